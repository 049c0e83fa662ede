//! What counts as switched on: whether the door should listen at all
//! ([`door_wanted`]), and whether a plugin and one of its events may be
//! received and said now (asked for each request and again before an
//! event waiting in the queue is said).

use dcp_format::codes::EventReason;
use dcp_format::model::Plugin;
use dcp_store::{CallContext, Prefs, Status, Store};
use serde::Serialize;
use std::collections::HashSet;
use std::sync::Arc;

/// Whether the door should be open, and why not.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Wanted {
    /// Developer mode is on and an event of an active plugin is on.
    Open,
    /// Developer mode is off.
    DevModeOff,
    /// No event of an active plugin is switched on.
    NoEventOn,
}

/// A plugin counts as active for events when it runs: not missing,
/// invalid, modified, paused by developer mode or switched off. Needs
/// setup and Tools off concern its tools, not its events.
pub(super) fn runs(status: Status) -> bool {
    matches!(status, Status::Active | Status::NeedsSetup | Status::ToolsOff)
}

/// [`Wanted`] from the prefs and each plugin's context with its events on.
pub fn door_wanted(prefs: &Prefs, plugins: &[(Arc<CallContext>, Vec<String>)]) -> Wanted {
    if !prefs.dev_mode {
        return Wanted::DevModeOff;
    }
    let any = plugins.iter().any(|(c, on)| {
        runs(c.status)
            && prefs.plugins_enabled
            && c.plugin.as_ref().is_some_and(|p| p.events.iter().any(|e| on.contains(&e.name)))
    });
    if any {
        Wanted::Open
    } else {
        Wanted::NoEventOn
    }
}

/// [`door_wanted`] from the store as it is now.
pub fn wanted_now(store: &Store) -> Wanted {
    survey(store).0
}

/// [`wanted_now`], with the slugs of every installed plugin (whatever its
/// state): what the supervisor learns at each poll.
pub(super) fn survey(store: &Store) -> (Wanted, HashSet<String>) {
    let contexts = store.call_contexts().unwrap_or_default();
    let installed = contexts.iter().map(|c| c.slug.clone()).collect();
    let Ok(prefs) = store.prefs() else { return (Wanted::NoEventOn, installed) };
    let plugins: Vec<(Arc<CallContext>, Vec<String>)> = contexts
        .into_iter()
        .filter(|c| c.plugin.as_ref().is_some_and(|p| !p.events.is_empty()))
        .map(|c| {
            let on = store.event_switches(&c.slug).unwrap_or_default();
            (c, on)
        })
        .collect();
    (door_wanted(&prefs, &plugins), installed)
}

/// The plugin, when its events may be received and said now; else the
/// §22 reason (developer mode first, then the plugin's own state).
pub(super) fn plugin_state(prefs: &Prefs, context: Option<Arc<CallContext>>) -> Result<Arc<Plugin>, EventReason> {
    if !prefs.dev_mode || context.as_ref().is_some_and(|c| c.status == Status::DevModeOff) {
        return Err(EventReason::DevModeOff);
    }
    match context {
        Some(c) if runs(c.status) && prefs.plugins_enabled => c.plugin.clone().ok_or(EventReason::PluginOff),
        _ => Err(EventReason::PluginOff),
    }
}

/// Whether `event` is declared and switched on; else the §22 reason.
pub(super) fn event_state(store: &Store, slug: &str, plugin: &Plugin, event: &str) -> Result<(), EventReason> {
    if !plugin.events.iter().any(|e| e.name == event) {
        return Err(EventReason::UnknownEvent);
    }
    if !store.event_switches(slug).unwrap_or_default().iter().any(|e| e == event) {
        return Err(EventReason::EventOff);
    }
    Ok(())
}
