//! What the event door is told of the window's companion (§16 "once the
//! player stops speaking or typing", issue 23): it listens while the
//! window is open, answers while a turn runs, and waits while the player
//! types in the Companion tab. The door hands an event turn over only to a
//! companion that listens, so an event never cuts into a turn or into what
//! the player is typing. The Twitch chat is told the same (issue 36): it
//! hands a viewer's turn over only while the companion listens.

use dcp_host::{Background, CompanionState, Host};
use std::sync::{Arc, Mutex, PoisonError};

/// The window companion's presence, told to the door and the chat once they run.
#[derive(Clone, Default)]
pub struct Listening(Arc<Mutex<Now>>);

#[derive(Default)]
struct Now {
    door: Option<Arc<Background>>,
    /// The host whose Twitch chat is told.
    chat: Option<Host>,
    answering: bool,
    typing: bool,
}

impl Listening {
    /// The door and `host`'s Twitch chat to tell from now on (the app started its background).
    pub fn attach(&self, door: Arc<Background>, host: Host) {
        self.change(|now| {
            now.door = Some(door);
            now.chat = Some(host);
        });
    }

    /// A turn starts (true) or ends (false).
    pub fn answering(&self, on: bool) {
        self.change(|now| now.answering = on);
    }

    /// The player types in the Companion tab (true), or stopped (false).
    pub fn typing(&self, on: bool) {
        self.change(|now| now.typing = on);
    }

    fn change(&self, edit: impl FnOnce(&mut Now)) {
        let mut now = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        edit(&mut now);
        let state = state(now.answering, now.typing);
        if let Some(door) = &now.door {
            door.set_companion(state);
        }
        if let Some(host) = &now.chat {
            host.twitch_companion(state);
        }
    }
}

/// What the door is told: a running turn first (it ends by itself), then
/// the player's typing, else listening.
fn state(answering: bool, typing: bool) -> CompanionState {
    match (answering, typing) {
        (true, _) => CompanionState::Answering,
        (false, true) => CompanionState::UserTyping,
        (false, false) => CompanionState::Listening,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s16_a_turn_then_typing_keep_events_waiting_else_the_companion_listens() {
        assert_eq!(state(false, false), CompanionState::Listening);
        assert_eq!(state(false, true), CompanionState::UserTyping);
        assert_eq!(state(true, true), CompanionState::Answering);
        assert_eq!(state(true, false), CompanionState::Answering);
    }
}
