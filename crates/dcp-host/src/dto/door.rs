//! The event door as it crosses to a shell (§16): whether it should be
//! open, its state, what it reports, and the companion's state a shell
//! reports to it. Mirrors of `dcp-door`'s values, so that the door keeps
//! its own types and only the host's reach a window or a script.

use dcp_format::codes::EventReason;
use serde::{Deserialize, Serialize};

/// The door's port when none is given (8440).
pub const DEFAULT_DOOR_PORT: u16 = dcp_door::DEFAULT_PORT;

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

impl From<dcp_door::Wanted> for Wanted {
    fn from(w: dcp_door::Wanted) -> Wanted {
        match w {
            dcp_door::Wanted::Open => Wanted::Open,
            dcp_door::Wanted::DevModeOff => Wanted::DevModeOff,
            dcp_door::Wanted::NoEventOn => Wanted::NoEventOn,
        }
    }
}

/// The door's state.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum DoorState {
    /// Nothing listens.
    Closed {
        /// Why.
        why: Wanted,
    },
    /// Listening on 127.0.0.1:port.
    Listening {
        /// The port.
        port: u16,
    },
    /// Another program holds the port; tried again at each poll.
    PortTaken {
        /// The port.
        port: u16,
    },
}

impl From<dcp_door::DoorState> for DoorState {
    fn from(s: dcp_door::DoorState) -> DoorState {
        match s {
            dcp_door::DoorState::Closed { why } => DoorState::Closed { why: why.into() },
            dcp_door::DoorState::Listening { port } => DoorState::Listening { port },
            dcp_door::DoorState::PortTaken { port } => DoorState::PortTaken { port },
        }
    }
}

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
        /// Each event as the player is shown it.
        said: Vec<SaidEvent>,
    },
}

/// One event of an event turn as the player is shown it: its title in the
/// player's language and the program's own words, not the AI's framing.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SaidEvent {
    /// Slug.
    pub plugin: String,
    /// Event name.
    pub event: String,
    /// The event's title (§16).
    pub title: String,
    /// The program's cleaned text, if it sent one.
    pub text: Option<String>,
}

impl From<dcp_door::SaidEvent> for SaidEvent {
    fn from(e: dcp_door::SaidEvent) -> SaidEvent {
        SaidEvent { plugin: e.plugin, event: e.event, title: e.title, text: e.text }
    }
}

impl From<dcp_door::Notice> for Notice {
    fn from(n: dcp_door::Notice) -> Notice {
        use dcp_door::Notice as N;
        match n {
            N::Door { state } => Notice::Door { state: state.into() },
            N::Received { plugin, event, text } => Notice::Received { plugin, event, text },
            N::Refused { plugin, event, reason } => Notice::Refused { plugin, event, reason },
            N::Dropped { plugin, event, reason } => Notice::Dropped { plugin, event, reason },
            N::Turn { message, events, tools, said } => {
                Notice::Turn { message, events, tools, said: said.into_iter().map(SaidEvent::from).collect() }
            }
        }
    }
}

/// What the companion is doing, as it reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompanionState {
    /// Waiting for the player.
    Listening,
    /// Speaking or writing an answer.
    Answering,
    /// Asleep.
    Sleeping,
    /// The app is starting.
    WarmingUp,
    /// The player is speaking.
    UserSpeaking,
    /// The player is typing.
    UserTyping,
}

impl From<CompanionState> for dcp_door::CompanionState {
    fn from(s: CompanionState) -> dcp_door::CompanionState {
        use dcp_door::CompanionState as C;
        match s {
            CompanionState::Listening => C::Listening,
            CompanionState::Answering => C::Answering,
            CompanionState::Sleeping => C::Sleeping,
            CompanionState::WarmingUp => C::WarmingUp,
            CompanionState::UserSpeaking => C::UserSpeaking,
            CompanionState::UserTyping => C::UserTyping,
        }
    }
}
