//! The per-plugin limits of §16 and §21: one event every 10 seconds AND at
//! most 30 in any rolling hour, exactly.
//!
//! A token bucket (governor's GCRA) lets 32 through at one event every
//! 10 s before its first refusal, and cannot be asked "would this pass?"
//! without consuming, so two of them combine badly. Instead each plugin
//! keeps the times of its accepted events of the last hour (30 at most):
//! a request passes when the last one is at least 10 s old and fewer than
//! 30 are younger than an hour. Refused requests are not recorded.

use std::collections::VecDeque;
use std::time::Duration;

/// Minimum gap between two accepted events.
pub const MIN_GAP: Duration = Duration::from_secs(dcp_format::limits::EVENT_INTERVAL_SECONDS);
/// The rolling window.
pub const WINDOW: Duration = Duration::from_secs(3600);
/// Accepted events per window.
pub const PER_WINDOW: usize = dcp_format::limits::EVENTS_PER_HOUR;

/// One plugin's accepted events of the last hour.
#[derive(Debug, Default, Clone)]
pub struct RateLimit {
    accepted: VecDeque<Duration>,
}

impl RateLimit {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// `Ok` (and recorded) when an event at `now` is within both limits,
    /// else the whole seconds until one would be (at least 1), for
    /// `Retry-After`.
    pub fn try_accept(&mut self, now: Duration) -> Result<(), u64> {
        while self.accepted.front().is_some_and(|&t| now.saturating_sub(t) >= WINDOW) {
            self.accepted.pop_front();
        }
        let mut wait = Duration::ZERO;
        if let Some(&last) = self.accepted.back() {
            wait = wait.max((last + MIN_GAP).saturating_sub(now));
        }
        if self.accepted.len() >= PER_WINDOW {
            if let Some(&oldest) = self.accepted.front() {
                wait = wait.max((oldest + WINDOW).saturating_sub(now));
            }
        }
        if wait.is_zero() {
            self.accepted.push_back(now);
            Ok(())
        } else {
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            Err(secs.max(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    #[test]
    fn one_every_ten_seconds() {
        let mut l = RateLimit::new();
        assert_eq!(l.try_accept(s(100)), Ok(()));
        assert_eq!(l.try_accept(s(100)), Err(10));
        assert_eq!(l.try_accept(Duration::from_millis(109_500)), Err(1), "rounded up, at least 1");
        assert_eq!(l.try_accept(s(109)), Err(1));
        assert_eq!(l.try_accept(s(110)), Ok(()), "refusals do not count");
    }

    #[test]
    fn the_31st_in_an_hour_is_refused_until_the_first_is_an_hour_old() {
        let mut l = RateLimit::new();
        for i in 0..30 {
            assert_eq!(l.try_accept(s(i * 10)), Ok(()), "event {}", i + 1);
        }
        assert_eq!(l.try_accept(s(300)), Err(3300), "the 31st");
        assert_eq!(l.try_accept(s(3599)), Err(1));
        assert_eq!(l.try_accept(s(3600)), Ok(()), "the first left the window");
        assert_eq!(l.try_accept(s(3610)), Ok(()));
        assert_eq!(l.try_accept(s(3615)), Err(5), "the 10 s gap still holds");
    }

    #[test]
    fn never_more_than_30_in_any_rolling_hour() {
        let mut l = RateLimit::new();
        let mut accepted = Vec::new();
        let mut t = 0;
        while t < 4 * 3600 {
            if l.try_accept(s(t)).is_ok() {
                accepted.push(t);
            }
            t += 7;
        }
        for (i, &start) in accepted.iter().enumerate() {
            let within = accepted[i..].iter().take_while(|&&x| x < start + 3600).count();
            assert!(within <= 30, "{within} in the hour from {start}");
        }
        assert!(accepted.windows(2).all(|w| w[1] - w[0] >= 10));
    }
}
