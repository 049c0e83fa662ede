//! How long a chat connection waits before it tries again (issue 36):
//! 1, 2, 4, 8, 16, 32 seconds, then 60 at most, so a chat that is down is
//! not hammered and one back after a short outage is back soon. A
//! connection that stayed up [`STAYED_UP`] or more starts again from 1 s;
//! a `RECONNECT` from Twitch (it is about to close the connection, as it
//! does for maintenance) is tried again at once. Time comes in as an
//! argument, like the gate's.

use std::time::Duration;

/// The waits, in seconds; the last one repeats.
pub const WAITS: [u64; 7] = [1, 2, 4, 8, 16, 32, 60];

/// How long a connection must have stayed up for the waits to start again.
pub const STAYED_UP: Duration = Duration::from_secs(60);

/// The reconnect waits of one chat connection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backoff {
    /// Failures in a row since the last connection that stayed up.
    failures: usize,
}

impl Backoff {
    /// No failure yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The wait before the next try, once a connection ended after
    /// `up_for` (zero when it never opened); `asked`: Twitch asked for it
    /// (`RECONNECT`), so there is no wait and the count does not grow.
    pub fn next_wait(&mut self, up_for: Duration, asked: bool) -> Duration {
        if up_for >= STAYED_UP {
            self.failures = 0;
        }
        if asked {
            return Duration::ZERO;
        }
        let wait = WAITS[self.failures.min(WAITS.len() - 1)];
        self.failures += 1;
        Duration::from_secs(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    fn waits(backoff: &mut Backoff, n: usize, up_for: Duration) -> Vec<u64> {
        (0..n).map(|_| backoff.next_wait(up_for, false).as_secs()).collect()
    }

    #[test]
    fn issue36_waits_double_from_one_second_up_to_a_minute() {
        let mut backoff = Backoff::new();
        assert_eq!(waits(&mut backoff, 9, Duration::ZERO), [1, 2, 4, 8, 16, 32, 60, 60, 60]);
    }

    #[test]
    fn issue36_a_connection_that_stayed_up_a_minute_starts_again_from_one_second() {
        let mut backoff = Backoff::new();
        assert_eq!(waits(&mut backoff, 3, 59 * S), [1, 2, 4], "59 s is not long enough");
        assert_eq!(waits(&mut backoff, 2, STAYED_UP), [1, 1]);
    }

    #[test]
    fn issue36_a_reconnect_asked_by_twitch_is_tried_at_once_and_keeps_the_count() {
        let mut backoff = Backoff::new();
        assert_eq!(waits(&mut backoff, 2, Duration::ZERO), [1, 2]);
        assert_eq!(backoff.next_wait(10 * S, true), Duration::ZERO);
        assert_eq!(backoff.next_wait(Duration::ZERO, false), 4 * S);
        assert_eq!(backoff.next_wait(STAYED_UP, true), Duration::ZERO);
        assert_eq!(backoff.next_wait(Duration::ZERO, false), S, "the long connection reset the count");
    }
}
