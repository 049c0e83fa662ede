//! Times for people: the journal and `show` print the time of this PC's
//! zone, not milliseconds since 1970.
//!
//! The zone comes from `TZ` (a zone name, a zone file, or a POSIX rule such
//! as `CET-1CEST,M3.5.0,M10.5.0/3`), else `/etc/localtime`; a zone that
//! cannot be read is UTC, and the line then says so. No dependency and no
//! `unsafe`: the zone file (TZif, RFC 8536) and its POSIX footer are read
//! here.

use std::path::Path;
use std::sync::OnceLock;

/// `2026-11-30 14:05:09` in the local zone (with ` UTC` when the zone is unknown).
pub fn format_ms(ms: i64) -> String {
    let zone = zone();
    let secs = ms.div_euclid(1000);
    let (y, mo, d, h, mi, s) = civil(secs + i64::from(zone.offset_at(secs)));
    let utc = if zone.unknown { " UTC" } else { "" };
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}{utc}")
}

fn zone() -> &'static Zone {
    static ZONE: OnceLock<Zone> = OnceLock::new();
    ZONE.get_or_init(|| Zone::from_env().unwrap_or(Zone { unknown: true, ..Zone::utc() }))
}

/// A time zone: its transitions, then a rule for the times after them.
#[derive(Debug, Clone, Default)]
struct Zone {
    /// (UTC second from which it applies, offset east of UTC in seconds).
    transitions: Vec<(i64, i32)>,
    /// The offset before the first transition.
    first: i32,
    /// The rule after the last transition (the file's footer or `TZ`).
    rule: Option<Rule>,
    /// No zone could be read: times are UTC and say so.
    unknown: bool,
}

impl Zone {
    fn utc() -> Zone {
        Zone::default()
    }

    fn from_env() -> Option<Zone> {
        match std::env::var("TZ") {
            Ok(tz) => {
                let tz = tz.strip_prefix(':').unwrap_or(&tz);
                if tz.is_empty() {
                    return Some(Zone::utc());
                }
                if tz.starts_with('/') {
                    return Zone::from_file(Path::new(tz));
                }
                if !tz.split('/').any(|part| part == "..") {
                    for base in ["/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo"] {
                        if let Some(zone) = Zone::from_file(&Path::new(base).join(tz)) {
                            return Some(zone);
                        }
                    }
                }
                Rule::parse(tz).map(|rule| Zone { first: rule.std, rule: Some(rule), ..Zone::default() })
            }
            Err(_) => Zone::from_file(Path::new("/etc/localtime")),
        }
    }

    fn from_file(path: &Path) -> Option<Zone> {
        parse_tzif(&std::fs::read(path).ok()?)
    }

    /// Seconds east of UTC at the UTC second `t`.
    fn offset_at(&self, t: i64) -> i32 {
        match self.transitions.iter().rposition(|(at, _)| *at <= t) {
            None if self.transitions.is_empty() => self.rule.as_ref().map_or(self.first, |r| r.offset_at(t)),
            None => self.first,
            Some(i) if i + 1 == self.transitions.len() => {
                self.rule.as_ref().map_or(self.transitions[i].1, |r| r.offset_at(t))
            }
            Some(i) => self.transitions[i].1,
        }
    }
}

/// Reads a TZif file, preferring its 64-bit part (version 2 and later).
fn parse_tzif(b: &[u8]) -> Option<Zone> {
    let counts = |at: usize| -> Option<[usize; 6]> {
        let mut out = [0usize; 6];
        for (i, slot) in out.iter_mut().enumerate() {
            let start = at + 20 + i * 4;
            *slot = u32::from_be_bytes(b.get(start..start + 4)?.try_into().ok()?) as usize;
        }
        Some(out)
    };
    if b.get(..4)? != b"TZif" {
        return None;
    }
    let [isut, isstd, leap, time, types, chars] = counts(0)?;
    let v1_size = time * 5 + types * 6 + chars + leap * 8 + isstd + isut;
    let (header, width, footer) = if *b.get(4)? >= b'2' { (44 + v1_size, 8, true) } else { (0, 4, false) };
    let [isut, isstd, leap, time, types, chars] = counts(header)?;
    let data = header + 44;
    let times_end = data + time * width;
    let indices_end = times_end + time;
    let types_end = indices_end + types * 6;
    let offsets: Vec<i32> = (0..types)
        .map(|i| {
            let at = indices_end + i * 6;
            Some(i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
        })
        .collect::<Option<_>>()?;
    let mut transitions = Vec::with_capacity(time);
    for i in 0..time {
        let at = data + i * width;
        let when = if width == 8 {
            i64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?)
        } else {
            i64::from(i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
        };
        let kind = *b.get(times_end + i)? as usize;
        transitions.push((when, *offsets.get(kind)?));
    }
    let rule = if footer {
        let end = types_end + chars + leap * (width + 4) + isstd + isut;
        let text = b.get(end..).and_then(|rest| std::str::from_utf8(rest).ok()).unwrap_or_default();
        Rule::parse(text.trim_matches('\n'))
    } else {
        None
    };
    let first = offsets.first().copied().unwrap_or(0);
    Some(Zone { transitions, first, rule, unknown: false })
}

/// A POSIX `TZ` rule: a standard offset, and maybe a summer offset with its dates.
#[derive(Debug, Clone)]
struct Rule {
    /// Seconds east of UTC, standard time.
    std: i32,
    /// Summer time: its offset, start and end.
    dst: Option<(i32, Date, Date)>,
}

/// When summer time starts or ends, with the local time of the change.
#[derive(Debug, Clone, Copy)]
struct Date {
    day: Day,
    /// Seconds after local midnight.
    time: i64,
}

#[derive(Debug, Clone, Copy)]
enum Day {
    /// `Mm.w.d`: day `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
    Month(u32, u32, u32),
    /// `Jn`: 1 to 365, February 29 never counted.
    Julian(u32),
    /// `n`: 0 to 365, February 29 counted.
    Zero(u32),
}

impl Rule {
    fn parse(text: &str) -> Option<Rule> {
        let mut p = Parser { s: text.as_bytes(), i: 0 };
        p.name()?;
        let std = -p.offset()?;
        if p.done() {
            return Some(Rule { std, dst: None });
        }
        p.name()?;
        let dst = if p.peek() == Some(b',') || p.done() { std + 3600 } else { -p.offset()? };
        if p.done() {
            // No dates: the US rules, as POSIX leaves it to the system.
            let start = Date { day: Day::Month(3, 2, 0), time: 7200 };
            let end = Date { day: Day::Month(11, 1, 0), time: 7200 };
            return Some(Rule { std, dst: Some((dst, start, end)) });
        }
        p.expect(b',')?;
        let start = p.date()?;
        p.expect(b',')?;
        let end = p.date()?;
        p.done().then_some(Rule { std, dst: Some((dst, start, end)) })
    }

    fn offset_at(&self, t: i64) -> i32 {
        let Some((dst, start, end)) = self.dst else { return self.std };
        let (year, ..) = civil(t + i64::from(self.std));
        let start_at = start.local_seconds(year) - i64::from(self.std);
        let end_at = end.local_seconds(year) - i64::from(dst);
        let summer = if start_at < end_at { start_at <= t && t < end_at } else { !(end_at <= t && t < start_at) };
        if summer {
            dst
        } else {
            self.std
        }
    }
}

impl Date {
    /// The local second (since 1970, as if the zone were UTC) of the change in `year`.
    fn local_seconds(&self, year: i64) -> i64 {
        let leap = is_leap(year);
        let days = match self.day {
            Day::Month(m, w, d) => {
                let first = days_from_civil(year, m, 1);
                let weekday = (first + 4).rem_euclid(7); // 1970-01-01 was a Thursday.
                let mut day = first + (i64::from(d) - weekday).rem_euclid(7) + 7 * (i64::from(w) - 1);
                let next_month =
                    if m == 12 { days_from_civil(year + 1, 1, 1) } else { days_from_civil(year, m + 1, 1) };
                while day >= next_month {
                    day -= 7;
                }
                day
            }
            Day::Julian(n) => days_from_civil(year, 1, 1) + i64::from(n) - 1 + i64::from(leap && n >= 60),
            Day::Zero(n) => days_from_civil(year, 1, 1) + i64::from(n),
        };
        days * 86_400 + self.time
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn done(&self) -> bool {
        self.i >= self.s.len()
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// `CET` or `<+0530>`.
    fn name(&mut self) -> Option<()> {
        if self.peek()? == b'<' {
            let close = self.s[self.i..].iter().position(|&c| c == b'>')?;
            self.i += close + 1;
            return Some(());
        }
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        (self.i - start >= 3).then_some(())
    }

    fn number(&mut self) -> Option<i64> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i]).ok()?.parse().ok()
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, positive west of Greenwich as POSIX writes it.
    fn offset(&mut self) -> Option<i32> {
        let sign = match self.peek()? {
            b'-' => {
                self.i += 1;
                -1
            }
            b'+' => {
                self.i += 1;
                1
            }
            _ => 1,
        };
        let seconds = self.clock()?;
        i32::try_from(sign * seconds).ok()
    }

    fn clock(&mut self) -> Option<i64> {
        let mut seconds = self.number()? * 3600;
        for unit in [60, 1] {
            if self.peek() != Some(b':') {
                break;
            }
            self.i += 1;
            seconds += self.number()? * unit;
        }
        Some(seconds)
    }

    /// `Mm.w.d[/time]`, `Jn[/time]` or `n[/time]`.
    fn date(&mut self) -> Option<Date> {
        let day = match self.peek()? {
            b'M' => {
                self.i += 1;
                let m = self.number()?;
                self.expect(b'.')?;
                let w = self.number()?;
                self.expect(b'.')?;
                let d = self.number()?;
                ((1..=12).contains(&m) && (1..=5).contains(&w) && (0..=6).contains(&d))
                    .then_some(Day::Month(m as u32, w as u32, d as u32))?
            }
            b'J' => {
                self.i += 1;
                let n = self.number()?;
                (1..=365).contains(&n).then_some(Day::Julian(n as u32))?
            }
            _ => {
                let n = self.number()?;
                (0..=365).contains(&n).then_some(Day::Zero(n as u32))?
            }
        };
        let time = if self.peek() == Some(b'/') {
            self.i += 1;
            let negative = self.peek() == Some(b'-');
            if negative || self.peek() == Some(b'+') {
                self.i += 1;
            }
            let t = self.clock()?;
            if negative {
                -t
            } else {
                t
            }
        } else {
            7200
        };
        Some(Date { day, time })
    }
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days since 1970-01-01 of a date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Year, month, day, hour, minute, second of a second since 1970 (as UTC).
fn civil(t: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, (secs / 3600) as u32, (secs % 3600 / 60) as u32, (secs % 60) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(y: i64, m: u32, d: u32, h: i64) -> i64 {
        days_from_civil(y, m, d) * 86_400 + h * 3600
    }

    #[test]
    fn civil_round_trips() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(civil(at(2026, 11, 30, 23) + 61), (2026, 11, 30, 23, 1, 1));
        assert_eq!(civil(at(2024, 2, 29, 12)), (2024, 2, 29, 12, 0, 0));
    }

    #[test]
    fn posix_rules_switch_on_the_right_dates() {
        let paris = Rule::parse("CET-1CEST,M3.5.0,M10.5.0/3").expect("rule");
        assert_eq!(paris.offset_at(at(2026, 1, 15, 12)), 3600);
        assert_eq!(paris.offset_at(at(2026, 7, 15, 12)), 7200);
        // 2026: summer time from March 29, 01:00 UTC, to October 25, 01:00 UTC.
        assert_eq!(paris.offset_at(at(2026, 3, 29, 1) - 1), 3600);
        assert_eq!(paris.offset_at(at(2026, 3, 29, 1)), 7200);
        assert_eq!(paris.offset_at(at(2026, 10, 25, 1) - 1), 7200);
        assert_eq!(paris.offset_at(at(2026, 10, 25, 1)), 3600);
        let sydney = Rule::parse("AEST-10AEDT,M10.1.0,M4.1.0/3").expect("rule");
        assert_eq!(sydney.offset_at(at(2026, 1, 15, 0)), 11 * 3600);
        assert_eq!(sydney.offset_at(at(2026, 7, 15, 0)), 10 * 3600);
        let india = Rule::parse("<+0530>-5:30").expect("rule");
        assert_eq!(india.offset_at(0), 19_800);
        assert!(Rule::parse("nonsense").is_none());
    }

    #[test]
    fn a_zone_file_is_read_when_the_system_has_one() {
        let Some(zone) = Zone::from_file(Path::new("/usr/share/zoneinfo/Europe/Paris")) else { return };
        assert_eq!(zone.offset_at(at(2026, 1, 15, 12)), 3600);
        assert_eq!(zone.offset_at(at(2026, 7, 15, 12)), 7200);
        assert_eq!(zone.offset_at(at(1990, 7, 15, 12)), 7200);
    }
}
