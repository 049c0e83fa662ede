//! The companion's turn engine (§3, §12, §16, §17; issue 22), free of any
//! window: a player's words (or an event the door hands over) become one
//! turn with the AI, each tool call it asks for goes through the host, and
//! everything the turn does is reported as [`TurnEvent`]s, exactly the
//! lines of `dcplugin chat --json`.
//!
//! The pure parts (what the AI is told, what a step runs) live in their own
//! modules so they are tested without a network.

mod engine;
mod event;
mod kept;
mod prompt;
mod step;

pub use engine::{Companion, Out, Presence, Stopper, TurnError};
pub use event::{Said, ToolOutcome, TurnEvent};
pub use prompt::system_message;
pub use step::{Action, Asked, Steps, NOT_RUN_CALL_LIMIT, NOT_RUN_ONE_PER_STEP, NOT_RUN_REPEATED};
