//! The values that cross the API boundary: made for a window and a
//! command line, serialized with serde, never holding a secret or an event
//! token (a secret is only ever reported as set or not set). They carry
//! facts (a status, an origin, a port), never a sentence: each shell words
//! them in its own language.
//!
//! A view a lower crate already builds crosses as that crate's own type,
//! exported to TypeScript there (each crate's `ts` feature) under the name
//! the UI knows: a field added below reaches every shell with no edit here.
//! Only a view whose shape really changes is the host's own
//! ([`PluginDetails`], [`EventsPage`], [`TriedAction`], [`PluginTest`]), and
//! it takes the lower values apart by destructuring, so that a field added
//! below does not compile until it is mapped.

mod details;

pub use dcp_call::pipeline::{CallOutcome, SentRequest};
pub use dcp_door::{CompanionState, DoorState, Notice, SaidEvent, Wanted};
pub use dcp_store::catalog::CatalogEntry;
/// Calls or events, as the journal spells them (TypeScript: `JournalKind`).
pub use dcp_store::journal::Kind as JournalKind;
/// What happened, as the journal spells it (TypeScript: `JournalOutcome`).
pub use dcp_store::journal::Outcome as JournalOutcome;
/// A journal value known to this version or shown as stored (TypeScript: `JournalValue`).
pub use dcp_store::journal::Stored as JournalValue;
pub use dcp_store::journal::{FailedCall, Failing, JournalLine, JournalQuery};
pub use dcp_store::review::ReviewAction;
/// The app switches of the Plugins and Tools tabs (§18, §19) (TypeScript: `AppSwitches`).
pub use dcp_store::Prefs as AppSwitches;
pub use dcp_store::{
    Card, CloudChoice, CloudQuestion, EventView, InstallOptions, Installed, Origin, Review, SettingView, Status,
};
pub use details::{ActionView, PluginDetails};

/// The door's port when none is given (8440).
pub const DEFAULT_DOOR_PORT: u16 = dcp_door::DEFAULT_PORT;

use dcp_store::Switch;
use serde::{Deserialize, Serialize};

/// A change to some app switches; the others stay as they are.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchesPatch {
    /// Plugins enabled.
    pub plugins_enabled: Option<bool>,
    /// Enable tools.
    pub tools_enabled: Option<bool>,
    /// Developer mode.
    pub dev_mode: Option<bool>,
    /// The player's language.
    pub language: Option<String>,
}

impl SwitchesPatch {
    /// Adds `key=value` as `dcplugin prefs` writes it; the message says
    /// what is wrong with it (the language is checked when it is set).
    pub fn set_text(&mut self, key: &str, value: &str) -> Result<(), String> {
        match Switch::parse(key, value).map_err(|e| e.to_string())? {
            Switch::PluginsEnabled(on) => self.plugins_enabled = Some(on),
            Switch::ToolsEnabled(on) => self.tools_enabled = Some(on),
            Switch::DevMode(on) => self.dev_mode = Some(on),
            Switch::Language(language) => self.language = Some(language),
        }
        Ok(())
    }

    /// Each switch given, typed.
    pub(crate) fn switches(&self) -> Vec<Switch> {
        [
            self.plugins_enabled.map(Switch::PluginsEnabled),
            self.tools_enabled.map(Switch::ToolsEnabled),
            self.dev_mode.map(Switch::DevMode),
            self.language.clone().map(Switch::Language),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// The Events section of a plugin (§16): its events, the door and the token.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct EventsPage {
    /// Slug.
    pub slug: String,
    /// The plugin's status (§18).
    pub status: Status,
    /// Events with their switches.
    pub events: Vec<EventView>,
    /// Whether the door should listen, and why not.
    pub door: DoorView,
    /// A token has been made (Copy makes one when none exists).
    pub token_made: bool,
}

/// The door as the Events section shows it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct DoorView {
    /// Open, or why it is closed.
    pub wanted: Wanted,
    /// The port the door listens on, on 127.0.0.1.
    pub port: u16,
    /// `127.0.0.1:<port>`, as `dcplugin events --json` has always said it.
    pub address: String,
    /// The running door's state, when this process runs it (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub state: Option<DoorState>,
    /// When the state is `port_taken`: whether the program holding the
    /// port answered as an event door does (the window beside `dcplugin
    /// serve`, or the other way round), which already takes the events;
    /// absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub held_by_a_door: Option<bool>,
}

/// Try an action (§19): what the AI reads and how the call ended, and the
/// request the app sent (none when the call ended before one was built).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct TriedAction {
    /// The outcome, with exactly what the AI reads.
    pub outcome: CallOutcome,
    /// Method, URL, headers and body as sent, every secret as `[secret]`.
    pub sent: Option<SentRequest>,
    /// An R3 action's answer from the player (absent for every other call).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub confirmation: Option<dcp_format::risk::Decision>,
}

/// What Options' Test button found (§18): one harmless call, as the player
/// would make it by text with an AI on this PC. Facts only: the window words
/// them (no action to test, what the action needs, connected, or the code
/// in plain words).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginTest {
    /// The action called (`<slug>__<tool>`); none when the plugin has nothing to test.
    pub action: Option<String>,
    /// The call went through: "Connected".
    pub ok: bool,
    /// The §22 code of a failure, or the courtier's reason of a refusal
    /// (none when the test passed or nothing was called).
    pub code: Option<dcp_format::codes::SpecCode>,
    /// What `code` says happened ([`SpecCode::tool_family`]), for the
    /// window to word it (issue 33: no shell classifies a code by its text).
    ///
    /// [`SpecCode::tool_family`]: dcp_format::codes::SpecCode::tool_family
    pub family: Option<dcp_format::codes::ToolFamily>,
    /// Nothing was called: `action` needs these arguments, and its schema
    /// gives none of them a value (issue 23: Test does not make one up).
    /// Absent when it was called, or when there is no action to test.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub needs: Option<Vec<String>>,
}
