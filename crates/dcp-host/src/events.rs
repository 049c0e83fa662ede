//! The host's event stream: what a window follows to stay live, and what
//! `dcplugin serve` prints. One `tokio::sync::broadcast` channel; a
//! subscriber that falls behind by more than [`CAPACITY`] events gets
//! `Lagged` and should read the cards again.

use crate::dto::{AppSwitches, Card, Notice};
use serde::Serialize;

/// Events kept for a slow subscriber before it lags.
pub const CAPACITY: usize = 1024;

/// Why a plugin's card changed.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Installed or updated.
    Installed,
    /// A switch, a setting, a secret, the online-AI choice, Twitch or Keep.
    Edited,
    /// A loaded folder was saved and reloaded (§19).
    FolderSaved,
    /// Its status changed for another reason: a file modified or missing,
    /// developer mode, another process; or its number of recent errors
    /// (§19) changed.
    Status,
    /// Uninstalled: no card.
    Removed,
}

/// One thing that happened in the host.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum HostEvent {
    /// A plugin's card changed.
    PluginChanged {
        /// Slug.
        slug: String,
        /// Why.
        change: Change,
        /// The new card; none once removed.
        card: Option<Card>,
    },
    /// A saved folder could not be reloaded; it is tried again every half second.
    ReloadFailed {
        /// Why.
        message: String,
    },
    /// The app switches changed.
    Switches {
        /// Their new values.
        switches: AppSwitches,
    },
    /// The event door: its state, an event received, refused or dropped, an event turn (§16).
    Door {
        /// What the door reported.
        notice: Notice,
    },
    /// A tool call ended.
    CallFinished {
        /// `<slug>__<tool>`.
        tool: String,
        /// done, failed or refused.
        outcome: crate::JournalOutcome,
        /// Its code.
        code: Option<dcp_format::ToolCode>,
    },
    /// A call's journal line could not be committed (disk full, database damaged).
    JournalLost {
        /// Why.
        message: String,
    },
    /// A line was added to the action journal.
    JournalAdded {
        /// The line.
        entry: crate::JournalLine,
    },
    /// The Twitch chat: its state, settings or counts changed, or a viewer's turn is to be said (issue 36).
    Twitch {
        /// What the chat reported.
        notice: crate::ChatNotice,
    },
}
