//! The waiting queue's ticker and what the door tells its caller: each
//! poll drops what waited too long and, when the companion listens, makes
//! one event turn of everything waiting (dropping, with the reason, an
//! event whose plugin or event was switched off meanwhile). Every change
//! is sent as a [`Notice`].

use super::switches::{event_state, plugin_state};
use super::{lock, DoorState, Shared};
use crate::message::{turn_message, EventLine};
use crate::queue::Waiting;
use dcp_format::codes::EventReason;
use dcp_format::model::Plugin;
use dcp_store::journal::{NewEntry, Outcome};
use dcp_store::Store;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

/// What the door tells its caller (and `dcplugin serve` prints).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Notice {
    /// The door opened, closed or found its port taken.
    Door {
        /// The new state.
        state: DoorState,
    },
    /// An event accepted (202).
    Received {
        /// Slug.
        plugin: String,
        /// Event name.
        event: String,
        /// Cleaned text.
        text: Option<String>,
    },
    /// A refusal, as journaled (at most once a minute per plugin and kind).
    Refused {
        /// Slug.
        plugin: String,
        /// Event name when known.
        event: Option<String>,
        /// The reason (journal code).
        reason: EventReason,
    },
    /// An accepted event dropped (`event_expired`).
    Dropped {
        /// Slug.
        plugin: String,
        /// Event name.
        event: String,
        /// `event_expired`, or why it can no longer be said (`plugin_off`, `dev_mode_off`, `event_off`, `unknown_event`).
        reason: EventReason,
    },
    /// An event turn: what the AI gets. It offers no tool: the courtier
    /// refuses any call in it as `not_requested` (§16). The companion keeps
    /// none of it (event or answer) in its memory, only in the conversation.
    Turn {
        /// The message, in the player's language.
        message: String,
        /// The events said, as `slug/event`.
        events: Vec<String>,
        /// Tools offered: none.
        tools: Vec<String>,
        /// Each event said, as the player is shown it: the program's own
        /// words, not the AI's framing of them.
        said: Vec<SaidEvent>,
    },
}

/// One event of an event turn, as a shell shows it to the player.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SaidEvent {
    /// Slug.
    pub plugin: String,
    /// Event name.
    pub event: String,
    /// The event's title in the player's language (§16).
    pub title: String,
    /// The program's cleaned text, if it sent one.
    pub text: Option<String>,
}

/// Drops what waited too long and, when the companion listens, makes one
/// turn of everything waiting.
pub(super) fn tick_queue(shared: &Arc<Shared>) {
    let now = shared.clock.now();
    let (turn, dropped) = lock(&shared.queue).take_turn(now);
    if turn.is_empty() && dropped.is_empty() {
        return;
    }
    let store = lock(&shared.store);
    for d in &dropped {
        drop_event(&store, shared, d, EventReason::EventExpired);
    }
    if turn.is_empty() {
        return;
    }
    let Ok(prefs) = store.prefs() else { return };
    // The player may have switched the plugin or the event off, or
    // developer mode, while the event waited: it is dropped then, with the
    // reason, rather than said.
    let mut plugins: HashMap<String, Result<Arc<Plugin>, EventReason>> = HashMap::new();
    let mut said = Vec::new();
    for w in &turn {
        let plugin = plugins
            .entry(w.plugin.clone())
            .or_insert_with(|| plugin_state(&prefs, store.call_context(&w.plugin).ok().flatten()));
        match plugin.as_ref().map_err(|r| *r).and_then(|p| event_state(&store, &w.plugin, p, &w.event)) {
            Ok(()) => said.push(w),
            Err(reason) => drop_event(&store, shared, w, reason),
        }
    }
    let lines: Vec<(&Waiting, EventLine)> = said
        .iter()
        .filter_map(|w| {
            let plugin = plugins.get(&w.plugin)?.as_ref().ok()?;
            let event = plugin.events.iter().find(|e| e.name == w.event)?;
            Some((*w, EventLine { display_name: &plugin.display_name, title: &event.title, text: w.text.as_deref() }))
        })
        .collect();
    if lines.is_empty() {
        return;
    }
    let language = prefs.language;
    let _ = shared.notices.send(Notice::Turn {
        message: turn_message(language, &lines.iter().map(|(_, line)| line.clone()).collect::<Vec<_>>()),
        events: said.iter().map(|w| format!("{}/{}", w.plugin, w.event)).collect(),
        tools: Vec::new(),
        said: lines
            .iter()
            .map(|(w, line)| SaidEvent {
                plugin: w.plugin.clone(),
                event: w.event.clone(),
                title: line.title_in(language).to_owned(),
                text: w.text.clone(),
            })
            .collect(),
    });
}

/// Journals a waiting event that will not be said, and tells `serve`.
pub(super) fn drop_event(store: &Store, shared: &Shared, w: &Waiting, reason: EventReason) {
    let _ =
        store.journal_write(&NewEntry::event(&w.plugin, &w.event, Outcome::Dropped, Some(reason), w.text.as_deref()));
    let _ = shared.notices.send(Notice::Dropped { plugin: w.plugin.clone(), event: w.event.clone(), reason });
}
