//! The waiting queue (§16 "What happens next"): accepted events wait until
//! the companion is listening, then are said together in one turn.
//!
//! A small state machine over the companion's state and a clock:
//! * ready only while the state is `listening` and the 2 s of grace after
//!   an answer have passed (said even when the microphone is muted: the
//!   microphone is not part of the state);
//! * at most 3 wait: a fourth pushes out the oldest (`event_expired`);
//! * one waiting 10 minutes or more is dropped (`event_expired`);
//! * [`EventQueue::take_turn`] hands over everything waiting, in order.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::time::Duration;

/// Events waiting at most.
pub const MAX_WAITING: usize = dcp_format::limits::EVENTS_WAITING;
/// How long an event may wait.
pub const MAX_WAIT: Duration = Duration::from_secs(dcp_format::limits::EVENT_WAIT_SECONDS);
/// Grace after an answer before listening counts.
pub const GRACE_AFTER_ANSWER: Duration = Duration::from_secs(2);

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

/// An accepted event, waiting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Waiting {
    /// Slug.
    pub plugin: String,
    /// Event name.
    pub event: String,
    /// The cleaned text, if any.
    pub text: Option<String>,
    /// When it was accepted.
    #[serde(skip)]
    pub at: Duration,
}

/// The queue and the companion's state.
#[derive(Debug)]
pub struct EventQueue {
    waiting: VecDeque<Waiting>,
    state: CompanionState,
    grace_until: Duration,
}

impl EventQueue {
    /// Empty, with the companion warming up.
    pub fn new() -> Self {
        EventQueue { waiting: VecDeque::new(), state: CompanionState::WarmingUp, grace_until: Duration::ZERO }
    }

    /// The companion reports its state at `now`.
    pub fn set_state(&mut self, state: CompanionState, now: Duration) {
        if self.state == CompanionState::Answering && state != CompanionState::Answering {
            self.grace_until = now + GRACE_AFTER_ANSWER;
        }
        self.state = state;
    }

    /// The companion's state.
    pub fn state(&self) -> CompanionState {
        self.state
    }

    /// Adds an accepted event; returns those dropped to make room.
    pub fn push(&mut self, event: Waiting) -> Vec<Waiting> {
        self.waiting.push_back(event);
        let mut dropped = Vec::new();
        while self.waiting.len() > MAX_WAITING {
            dropped.extend(self.waiting.pop_front());
        }
        dropped
    }

    /// Drops what waited too long, then, if the companion is listening,
    /// takes everything waiting for one turn. Returns (turn, dropped).
    pub fn take_turn(&mut self, now: Duration) -> (Vec<Waiting>, Vec<Waiting>) {
        let mut dropped = Vec::new();
        while self.waiting.front().is_some_and(|w| now.saturating_sub(w.at) >= MAX_WAIT) {
            dropped.extend(self.waiting.pop_front());
        }
        let ready = self.state == CompanionState::Listening && now >= self.grace_until;
        let turn = if ready { self.waiting.drain(..).collect() } else { Vec::new() };
        (turn, dropped)
    }

    /// How many wait.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(name: &str, at: u64) -> Waiting {
        Waiting { plugin: "p".into(), event: name.into(), text: None, at: Duration::from_secs(at) }
    }

    fn names(v: &[Waiting]) -> Vec<&str> {
        v.iter().map(|w| w.event.as_str()).collect()
    }

    #[test]
    fn waits_until_listening_then_one_turn_for_all() {
        let mut q = EventQueue::new();
        assert!(q.push(ev("a", 0)).is_empty());
        assert!(q.push(ev("b", 1)).is_empty());
        for state in [
            CompanionState::WarmingUp,
            CompanionState::Sleeping,
            CompanionState::UserSpeaking,
            CompanionState::UserTyping,
            CompanionState::Answering,
        ] {
            q.set_state(state, Duration::from_secs(2));
            assert_eq!(q.take_turn(Duration::from_secs(3)), (vec![], vec![]), "{state:?}");
        }
        q.set_state(CompanionState::Listening, Duration::from_secs(10));
        assert!(q.take_turn(Duration::from_millis(11_999)).0.is_empty(), "2 s of grace after an answer");
        let (turn, dropped) = q.take_turn(Duration::from_secs(12));
        assert_eq!(names(&turn), ["a", "b"]);
        assert!(dropped.is_empty());
        assert!(q.is_empty());
    }

    #[test]
    fn a_fourth_drops_the_oldest() {
        let mut q = EventQueue::new();
        for (i, n) in ["a", "b", "c"].iter().enumerate() {
            assert!(q.push(ev(n, i as u64)).is_empty());
        }
        assert_eq!(names(&q.push(ev("d", 3))), ["a"]);
        q.set_state(CompanionState::Listening, Duration::from_secs(4));
        assert_eq!(names(&q.take_turn(Duration::from_secs(4)).0), ["b", "c", "d"]);
    }

    #[test]
    fn one_waiting_ten_minutes_is_dropped() {
        let mut q = EventQueue::new();
        q.push(ev("old", 0));
        q.push(ev("new", 300));
        assert_eq!(q.take_turn(Duration::from_secs(599)), (vec![], vec![]));
        let (turn, dropped) = q.take_turn(Duration::from_secs(600));
        assert!(turn.is_empty());
        assert_eq!(names(&dropped), ["old"]);
        q.set_state(CompanionState::Listening, Duration::from_secs(601));
        assert_eq!(names(&q.take_turn(Duration::from_secs(601)).0), ["new"]);
    }
}
