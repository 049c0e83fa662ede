//! Times for people: the journal and `show` print the time of this PC's
//! zone, not milliseconds since 1970.
//!
//! The zone is the system's as `jiff` finds it: `TZ` (a zone name, a zone
//! file, or a POSIX rule such as `CET-1CEST,M3.5.0,M10.5.0/3`), else
//! `/etc/localtime` on Unix and the zone set in Windows. A zone that cannot
//! be found is UTC, and the line then says so.

use jiff::tz::TimeZone;
use jiff::Timestamp;
use std::sync::OnceLock;

/// `2026-11-30 14:05:09` in the local zone (with ` UTC` when the zone is unknown).
pub fn format_ms(ms: i64) -> String {
    static ZONE: OnceLock<Option<TimeZone>> = OnceLock::new();
    format_in(ms, ZONE.get_or_init(|| TimeZone::try_system().ok()).as_ref())
}

/// `ms` in `zone`, or in UTC saying so when there is no zone.
fn format_in(ms: i64, zone: Option<&TimeZone>) -> String {
    // Beyond jiff's range (years -9999 to 9999) the nearest end is printed:
    // no journal time is that far.
    let at = Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 { Timestamp::MIN } else { Timestamp::MAX });
    let (local, suffix) = match zone {
        Some(zone) => (zone.to_datetime(at), ""),
        None => (TimeZone::UTC.to_datetime(at), " UTC"),
    };
    format!("{}{suffix}", local.strftime("%Y-%m-%d %H:%M:%S"))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Fixed points, each checked against `date -d @SECONDS` (GNU coreutils).
    /// 2023-11-14 22:13:20 UTC.
    const NOV_2023: i64 = 1_700_000_000_000;
    /// 2026-03-29 01:00:00 UTC: Europe starts summer time.
    const SPRING_2026: i64 = 1_774_746_000_000;
    /// 2026-10-25 01:00:00 UTC: Europe ends summer time.
    const AUTUMN_2026: i64 = 1_792_890_000_000;

    fn posix(rule: &str) -> TimeZone {
        TimeZone::posix(rule).expect("a POSIX rule")
    }

    #[test]
    fn utc_and_an_unknown_zone_say_the_same_time() {
        assert_eq!(format_in(0, Some(&TimeZone::UTC)), "1970-01-01 00:00:00");
        assert_eq!(format_in(NOV_2023 + 999, Some(&TimeZone::UTC)), "2023-11-14 22:13:20");
        assert_eq!(format_in(-1, Some(&TimeZone::UTC)), "1969-12-31 23:59:59");
        assert_eq!(format_in(NOV_2023, None), "2023-11-14 22:13:20 UTC");
        // Out of range: the last time jiff holds, not a panic.
        assert!(format_in(i64::MAX, None).starts_with("9999-12-"));
        assert!(format_in(i64::MIN, None).starts_with("-9999-01-"));
    }

    #[test]
    fn posix_rules_switch_on_the_right_dates() {
        let paris = posix("CET-1CEST,M3.5.0,M10.5.0/3");
        assert_eq!(format_in(NOV_2023, Some(&paris)), "2023-11-14 23:13:20");
        assert_eq!(format_in(SPRING_2026 - 1000, Some(&paris)), "2026-03-29 01:59:59");
        assert_eq!(format_in(SPRING_2026, Some(&paris)), "2026-03-29 03:00:00");
        assert_eq!(format_in(AUTUMN_2026 - 1000, Some(&paris)), "2026-10-25 02:59:59");
        assert_eq!(format_in(AUTUMN_2026, Some(&paris)), "2026-10-25 02:00:00");
        let sydney = posix("AEST-10AEDT,M10.1.0,M4.1.0/3");
        assert_eq!(format_in(NOV_2023, Some(&sydney)), "2023-11-15 09:13:20");
        assert_eq!(format_in(SPRING_2026, Some(&sydney)), "2026-03-29 12:00:00");
        assert_eq!(format_in(0, Some(&posix("<+0530>-5:30"))), "1970-01-01 05:30:00");
        assert!(TimeZone::posix("nonsense").is_err());
    }

    #[test]
    fn a_zone_name_is_read_when_the_system_has_one() {
        let Ok(paris) = TimeZone::get("Europe/Paris") else { return };
        assert_eq!(format_in(NOV_2023, Some(&paris)), "2023-11-14 23:13:20");
        assert_eq!(format_in(SPRING_2026, Some(&paris)), "2026-03-29 03:00:00");
        // 1990-07-15 12:00:00 UTC, before the rule of today's footer.
        assert_eq!(format_in(648_043_200_000, Some(&paris)), "1990-07-15 14:00:00");
    }
}
