//! The store's wall clock: what every time the profile keeps is stamped
//! with (install and review times, a turn's start, a journal line, an
//! event token) and what an age is measured against (the settle window of
//! [`stamp`](crate::stamp), a card's recent errors, a stale review). A store
//! opened with [`Store::open`] reads the system clock; a test hands
//! [`Store::open_with_clock`] its own, so a second, the settle window or a
//! day passes without waiting for it.
//!
//! [`Store::open`]: crate::Store::open
//! [`Store::open_with_clock`]: crate::Store::open_with_clock

use crate::Store;
use std::time::{SystemTime, UNIX_EPOCH};

/// A wall clock.
pub trait Clock: Send + Sync {
    /// The time now.
    fn now(&self) -> SystemTime;
}

/// The system's clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

impl Store {
    /// Whole seconds since the Unix epoch by the store's clock, as the
    /// profile stores most times.
    pub(crate) fn now(&self) -> i64 {
        self.since_epoch().as_secs() as i64
    }

    /// Milliseconds since the Unix epoch by the store's clock, as a
    /// journal line is stamped.
    pub(crate) fn now_ms(&self) -> i64 {
        self.since_epoch().as_millis() as i64
    }

    fn since_epoch(&self) -> std::time::Duration {
        self.clock.now().duration_since(UNIX_EPOCH).unwrap_or_default()
    }
}
