//! `dcplugin journal` prints a line's time in the zone `TZ` names, checked
//! against fixed points written out by hand (each one also what GNU
//! `date -d @SECONDS` prints), never against a date algorithm of the
//! test's own: the epoch, a leap day and its last millisecond, the start of
//! Europe's summer time.

mod support;

use support::{examples, text, Profile};

/// A journal line (a call refused at the Twitch level), in a new profile.
fn one_line() -> Profile {
    let p = Profile::new();
    let manifest = examples().join("my-tasks").join("manifest.json");
    let import = p.run_with(
        &["import", manifest.to_str().expect("utf-8"), "--yes", "--secrets-stdin", "--cloud", "local"],
        Some("api_token=journal-times-secret\n"),
        &[],
    );
    assert_eq!(import.status.code(), Some(0), "{}{}", text(&import.stdout), text(&import.stderr));
    p.run(&["call", "mytasks__list_tasks", "--source", "twitch"]);
    p
}

#[test]
fn journal_times_are_the_fixed_points_in_the_zone_tz_names() {
    let p = one_line();
    let db = rusqlite::Connection::open(p.root().join("host.sqlite")).expect("the profile's database");
    for (at, tz, shown) in [
        (0_i64, "UTC0", "1970-01-01 00:00:00"),
        (951_782_400_000, "UTC0", "2000-02-29 00:00:00"),
        (951_868_799_999, "UTC0", "2000-02-29 23:59:59"),
        (951_868_799_999, "ABC-2", "2000-03-01 01:59:59"),
        (1_774_745_999_000, "CET-1CEST,M3.5.0,M10.5.0/3", "2026-03-29 01:59:59"),
        (1_774_746_000_000, "CET-1CEST,M3.5.0,M10.5.0/3", "2026-03-29 03:00:00"),
    ] {
        assert_eq!(db.execute("UPDATE journal SET at = ?1", [at]).expect("the line's time"), 1);
        let out = p.run_with(&["journal"], None, &[("TZ", tz)]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let printed = text(&out.stdout);
        assert!(printed.starts_with(&format!("{shown}  mytasks__list_tasks")), "{at} in {tz}: {printed}");
    }
}
