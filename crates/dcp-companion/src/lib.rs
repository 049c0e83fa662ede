//! The companion's turn engine (§3, §12, §16, §17; issue 22), free of any
//! window: a player's words (or an event the door hands over, or a message
//! of the player's Twitch chat) become one turn with the AI, each tool call
//! it asks for goes through the host, and everything the turn does is
//! reported as [`TurnEvent`]s, exactly the lines of `dcplugin chat --json`,
//! on the turn's [`TurnStream`], which a shell stops with the
//! [`CancellationToken`] it gave (issue 33).
//!
//! The pure parts (what the AI is told, what a step runs) live in their own
//! modules so they are tested without a network.

mod engine;
mod event;
mod kept;
mod prompt;
mod step;
mod viewer;

/// What a tool line's code says happened (`family`), for a shell to word it.
pub use dcp_format::codes::ToolFamily;
pub use engine::{Companion, Presence, TurnError, TurnStream};
pub use event::{EngineCode, Said, ToolOutcome, TurnCode, TurnEvent};
pub use prompt::system_message;
pub use step::{Action, Asked, Steps};
/// How a shell stops a turn (tokio-util's, re-exported so that a shell needs no crate of its own for it).
pub use tokio_util::sync::CancellationToken;
