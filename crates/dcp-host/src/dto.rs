//! The values that cross the API boundary: made for a window and a
//! command line, serialized with serde, never holding a secret or an event
//! token (a secret is only ever reported as set or not set). They carry
//! facts (a status, an origin, a port), never a sentence: each shell words
//! them in its own language. Lower crates' values convert into them.

mod call;
mod card;
mod details;
mod door;
mod install;
mod journal;
mod review;
mod spelled;

pub use call::{CallOutcome, SentRequest};
pub use card::{Card, Failing};
pub use details::{ActionView, EventView, PluginDetails, SettingView};
pub use door::{CompanionState, DoorState, Notice, SaidEvent, Wanted, DEFAULT_DOOR_PORT};
pub use install::{CatalogEntry, InstallOptions, Installed};
pub use journal::{FailedCall, JournalLine, JournalQuery, JournalValue};
pub use review::{CloudQuestion, Review, ReviewAction, ReviewEvent};
pub use spelled::{CloudChoice, JournalKind, JournalOutcome, Origin, Status};

use dcp_store::{Prefs, Switch};
use serde::{Deserialize, Serialize};

/// The app switches of the Plugins and Tools tabs (§18, §19).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppSwitches {
    /// Plugins enabled: off turns every plugin off at once.
    pub plugins_enabled: bool,
    /// Enable tools (Tools tab).
    pub tools_enabled: bool,
    /// Developer mode.
    pub dev_mode: bool,
    /// The player's language, one of §10's.
    pub language: String,
}

impl From<Prefs> for AppSwitches {
    fn from(p: Prefs) -> AppSwitches {
        AppSwitches {
            plugins_enabled: p.plugins_enabled,
            tools_enabled: p.tools_enabled,
            dev_mode: p.dev_mode,
            language: p.language,
        }
    }
}

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
    /// `127.0.0.1:<port>`.
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
    /// Nothing was called: `action` needs these arguments, and its schema
    /// gives none of them a value (issue 23: Test does not make one up).
    /// Absent when it was called, or when there is no action to test.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub needs: Option<Vec<String>>,
}
