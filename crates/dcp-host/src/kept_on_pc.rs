//! "Kept on this PC" (§13) for what the companion's conversation holds,
//! not only for the next call (issue 32): which plugins are kept on this
//! PC now, so the turn engine leaves out of an online AI's request every
//! earlier turn that touched one; and an event turn's events of those
//! plugins held back from an online AI, each journaled `dropped` with the
//! reason `cloud_blocked` (and reported as the door's `dropped` notice),
//! the others said in the door's message made again without them.
//!
//! Kept means what the courtier refuses `cloud_blocked` with an online AI:
//! the player answered "Only with an AI running on this PC", or the plugin
//! says `never`, and it reads private data (an R1 tool).

use crate::dto::SaidEvent;
use dcp_door::message::{reports_message, Report};
use dcp_format::codes::EventReason;
use dcp_store::journal::{JournalLine, NewEntry, Outcome};
use dcp_store::{CallContext, Store, StoreError};
use std::sync::Arc;

/// Why an event is not said to an online AI: its plugin is kept on this PC.
pub(crate) const HELD: EventReason = EventReason::CloudBlocked;

/// An event turn as an online AI may hear it (issue 32).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventsForAi {
    /// What the AI reads: the door's message when nothing was held, made
    /// again for [`EventsForAi::said`] when some were; none when every
    /// event was held (no request is made then).
    pub message: Option<String>,
    /// The events the AI is told, in order.
    pub said: Vec<SaidEvent>,
    /// The events of plugins kept on this PC, in order: not told, each
    /// journaled `dropped` (`cloud_blocked`).
    pub held: Vec<SaidEvent>,
}

/// A plugin kept on this PC now (see the module doc). One whose manifest
/// cannot be read now counts as kept when its stored answer says so: what
/// it returned earlier is no less private for that.
fn kept(context: &CallContext) -> bool {
    context.kept_on_pc && context.plugin.as_ref().is_none_or(|p| p.reads_private_data())
}

/// The plugins kept on this PC now, by slug, in the store's order.
pub(crate) fn slugs(store: &Store) -> Result<Vec<String>, StoreError> {
    Ok(store.call_contexts()?.iter().filter(|c| kept(c)).map(|c| c.slug.clone()).collect())
}

/// `events` (said in `message`) for an online AI: those of plugins kept on
/// this PC held and journaled, the message made again for the others in
/// the player's language. Each held event comes with its journal line (or
/// why it was lost), for the host's stream.
pub(crate) fn for_online_ai(
    store: &Store,
    message: String,
    events: Vec<SaidEvent>,
) -> Result<(EventsForAi, Vec<Result<JournalLine, StoreError>>), StoreError> {
    let contexts = store.call_contexts()?;
    let context = |slug: &str| contexts.iter().find(|c| c.slug == slug).cloned();
    let (held, said): (Vec<SaidEvent>, Vec<SaidEvent>) =
        events.into_iter().partition(|e| context(&e.plugin).is_some_and(|c| kept(&c)));
    if held.is_empty() {
        return Ok((EventsForAi { message: Some(message), said, held }, Vec::new()));
    }
    let lines = held.iter().map(|e| drop_held(store, e)).collect();
    let message = match said.is_empty() {
        true => None,
        false => Some(message_for(store, &said, &context)?),
    };
    Ok((EventsForAi { message, said, held }, lines))
}

/// The door's message for `said` alone (`dcp_door::message`), each event
/// under its plugin's display name (its slug when its manifest cannot be
/// read now) and the title it was shown with.
fn message_for(
    store: &Store,
    said: &[SaidEvent],
    context: &dyn Fn(&str) -> Option<Arc<CallContext>>,
) -> Result<String, StoreError> {
    let language = store.prefs()?.language;
    let names: Vec<String> = said
        .iter()
        .map(|e| context(&e.plugin).and_then(|c| c.plugin.clone()).map_or(e.plugin.clone(), |p| p.display_name.clone()))
        .collect();
    let reports: Vec<Report> = said
        .iter()
        .zip(&names)
        .map(|(e, name)| Report { display_name: name, title: &e.title, text: e.text.as_deref() })
        .collect();
    Ok(reports_message(language, &reports))
}

/// Journals a held event `dropped`, as the door journals one that waited
/// too long.
fn drop_held(store: &Store, event: &SaidEvent) -> Result<JournalLine, StoreError> {
    store.journal_write(&NewEntry::event(
        &event.plugin,
        &event.event,
        Outcome::Dropped,
        Some(HELD),
        event.text.as_deref(),
    ))
}
