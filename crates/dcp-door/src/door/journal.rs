//! The journal of refusals: each refusal is journaled (and reported as a
//! [`Notice::Refused`]) at most once a minute per plugin and reason, so a
//! flood writes a line a minute, never one per request. A bad token is
//! journaled after the answer, and only for an installed plugin (one
//! installed since the supervisor's last poll is not journaled yet);
//! [`Door::stop`](super::Door::stop) waits for those writes.

use super::ticker::Notice;
use super::{lock, Shared, JOURNAL_REFUSAL_EVERY};
use dcp_format::codes::EventReason;
use dcp_store::journal::{NewEntry, Outcome};
use dcp_store::Store;
use std::sync::Arc;

/// After the answer to a bad token: journals it when the slug is an
/// installed plugin (never for an unknown slug), at most once a minute.
/// A slug not installed at the supervisor's last poll, or journaled within
/// the minute, costs a flood no task and no store read; the plugin is
/// looked up again before its line is written.
pub(super) fn bad_token_later(shared: &Arc<Shared>, slug: &str) {
    if !lock(&shared.installed).contains(slug) || recently_journaled(shared, slug, EventReason::BadToken) {
        return;
    }
    let slug = slug.to_owned();
    let writer = shared.clone();
    // The minute is counted from the answer, not from the write: a write
    // delayed on a loaded machine past the minute of an earlier one of the
    // same flood would otherwise journal it a second time.
    let answered = shared.clock.now();
    let write = tokio::spawn(async move {
        let _ = tokio::task::spawn_blocking(move || {
            let store = lock(&writer.store);
            if matches!(store.call_context(&slug), Ok(Some(_))) {
                journal_at(&store, &writer, answered, &slug, None, EventReason::BadToken);
            }
        })
        .await;
    });
    let mut later = lock(&shared.later);
    later.retain(|w| !w.is_finished());
    later.push(write);
}

/// Whether a refusal of this kind was journaled for this plugin within the
/// last minute.
fn recently_journaled(shared: &Shared, slug: &str, reason: EventReason) -> bool {
    let now = shared.clock.now();
    lock(&shared.journaled)
        .get(&(slug.to_owned(), reason))
        .is_some_and(|&at| now.saturating_sub(at) < JOURNAL_REFUSAL_EVERY)
}

/// Journals (and reports) a refusal, at most once a minute per plugin and
/// reason.
pub(super) fn refuse_journal(store: &Store, shared: &Shared, slug: &str, event: Option<&str>, reason: EventReason) {
    journal_at(store, shared, shared.clock.now(), slug, event, reason);
}

/// [`refuse_journal`] for a refusal answered at `now` on the door's clock.
fn journal_at(
    store: &Store,
    shared: &Shared,
    now: std::time::Duration,
    slug: &str,
    event: Option<&str>,
    reason: EventReason,
) {
    {
        let mut journaled = lock(&shared.journaled);
        let key = (slug.to_owned(), reason);
        if journaled.get(&key).is_some_and(|&at| now.saturating_sub(at) < JOURNAL_REFUSAL_EVERY) {
            return;
        }
        journaled.insert(key, now);
    }
    let _ = store.journal_write(&NewEntry::event(slug, event.unwrap_or("-"), Outcome::Refused, Some(reason), None));
    let _ = shared.notices.send(Notice::Refused { plugin: slug.to_owned(), event: event.map(str::to_owned), reason });
}
