//! The store's wall clock: what install times and a turn's start are
//! stamped with and what a manifest's age is measured against (the settle
//! window of [`stamp`](crate::stamp)). A store opened with [`Store::open`] reads the
//! system clock; a test hands [`Store::open_with_clock`] its own, so a
//! second or the settle window passes without waiting for it.
//!
//! [`Store::open`]: crate::Store::open
//! [`Store::open_with_clock`]: crate::Store::open_with_clock

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

/// Whole seconds since the Unix epoch, as the profile stores them.
pub(crate) fn unix_seconds(clock: &dyn Clock) -> i64 {
    clock.now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}
