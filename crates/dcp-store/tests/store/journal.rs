//! The action journal (§3, §19): newest first, per plugin, short subjects,
//! bounded retention, and the last failures for the Developer section.

use dcp_format::codes::{CallCode, EventReason, Refusal, SpecCode, ToolCode, ToolFamily};
use dcp_store::journal::{
    Decision, JournalQuery, Kind, NewEntry, Outcome, Source, Stored, CLIENT_CHARS, ENDED_AT_CHARS, KEPT_ENTRIES,
    SUBJECT_CHARS,
};
use dcp_store::{Profile, Store, StoreError};
use dcp_vault::testing::MemoryKeyStore;
use std::sync::Arc;

fn store(dir: &std::path::Path) -> Store {
    Store::open(Profile::at(dir).expect("profile"), Arc::new(MemoryKeyStore::new())).expect("store")
}

fn entry<'a>(plugin: &'a str, outcome: Outcome, code: Option<SpecCode>, subject: Option<&'a str>) -> NewEntry<'a> {
    NewEntry {
        plugin,
        action: "convert",
        who: Source::Voice,
        kind: Kind::Call,
        outcome,
        code,
        subject,
        error: None,
        confirmation: None,
        client: None,
        ended_at: None,
    }
}

const HTTP_500: SpecCode = SpecCode::Tool(ToolCode::Http(500));

#[test]
fn s3_entries_come_back_newest_first_with_a_short_subject() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    s.journal_write(&entry("fx", Outcome::Done, None, Some(&"s".repeat(200)))).expect("write");
    s.journal_write(&entry("todo", Outcome::Refused, Some(SpecCode::Refusal(Refusal::StreamPrivate)), None))
        .expect("write");
    s.journal_write(&entry(
        "fx",
        Outcome::Failed,
        Some(SpecCode::Tool(ToolCode::Call(CallCode::Timeout))),
        Some("100 USD"),
    ))
    .expect("write");
    let all = s.journal(10, None).expect("list");
    let outcomes: Vec<(&str, &str)> = all.iter().map(|e| (e.plugin.as_str(), e.outcome.as_str())).collect();
    assert_eq!(outcomes, vec![("fx", "failed"), ("todo", "refused"), ("fx", "done")]);
    assert_eq!(all[2].subject.as_ref().map(|s| s.chars().count()), Some(SUBJECT_CHARS));
    assert_eq!(s.journal(10, Some("fx")).expect("list").len(), 2);
    assert_eq!(s.journal(1, None).expect("list").len(), 1);
}

/// §3 and §19: a failed call's error is kept for the Developer section,
/// the newest 20 per plugin, never in the journal, and goes with the plugin.
#[test]
fn s19_last_failed_calls_keep_the_error_apart_from_the_journal_bounded_and_uninstalled() {
    let f = crate::common::Fixture::new();
    crate::common::install_my_tasks(&f);
    for i in 0..25 {
        let error = format!("HTTP_500: the service answered: server-text-{i}");
        let e = NewEntry { error: Some(&error), ..entry("mytasks", Outcome::Failed, Some(HTTP_500), None) };
        f.store.journal_write(&e).expect("write");
    }
    let failures = f.store.last_failures("mytasks", 100).expect("failures");
    let errors: Vec<String> = failures.iter().map(|c| c.error.clone()).collect();
    let newest: Vec<String> =
        (5..25).rev().map(|i| format!("HTTP_500: the service answered: server-text-{i}")).collect();
    assert_eq!(errors, newest, "the newest 20, newest first");
    assert_eq!(f.store.last_failures("mytasks", 3).expect("failures").len(), 3);
    let journal = f.store.journal(100, Some("mytasks")).expect("journal");
    assert_eq!(journal.len(), 25);
    assert!(journal.iter().all(|e| e.detail.is_none() && e.code == Some(Stored::Known(HTTP_500))));
    assert_eq!(f.count("SELECT COUNT(*) FROM journal WHERE subject LIKE '%server-text%'"), 0);
    let columns = f.count("SELECT COUNT(*) FROM pragma_table_info('journal') WHERE name = 'detail'");
    assert_eq!(columns, 0, "the journal has no column for content");
    // A plugin not installed keeps no failure.
    f.store
        .journal_write(&NewEntry { error: Some("x"), ..entry("gone", Outcome::Failed, Some(HTTP_500), None) })
        .expect("write");
    assert!(f.store.last_failures("gone", 5).expect("failures").is_empty());
    f.store.uninstall("mytasks").expect("uninstall");
    assert_eq!(f.count("SELECT COUNT(*) FROM failed_calls"), 0, "deleted with the plugin");
}

#[test]
fn s19_retention_keeps_the_newest_entries_only() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    let total = KEPT_ENTRIES + 2_000;
    for i in 0..total {
        let subject = i.to_string();
        s.journal_write(&entry("fx", Outcome::Done, None, Some(&subject))).expect("write");
    }
    let conn = rusqlite::Connection::open(dir.path().join("host.sqlite")).expect("db");
    let count: i64 = conn.query_row("SELECT count(*) FROM journal", [], |r| r.get(0)).expect("count");
    assert!(count <= KEPT_ENTRIES + 1_000, "{count} rows kept");
    assert!(count >= KEPT_ENTRIES, "{count} rows kept");
    let newest = s.journal(1, None).expect("list");
    assert_eq!(newest[0].subject, Some((total - 1).to_string()), "the newest entry is never pruned");
}

fn subjects(entries: &[dcp_store::journal::JournalLine]) -> Vec<&str> {
    entries.iter().map(|e| e.subject.as_deref().unwrap_or("")).collect()
}

/// The line a write gives back is the one the journal lists under its id
/// (what the host reports as `JournalAdded`), subject cut and code read
/// in its kind, whatever was written before or after it.
#[test]
fn s3_a_written_line_comes_back_as_the_journal_lists_it() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    let long = format!("w1{}", "s".repeat(200));
    let door = NewEntry {
        who: Source::Event,
        kind: Kind::Event,
        ..entry("pomodoro", Outcome::Refused, Some(SpecCode::Event(EventReason::PluginOff)), None)
    };
    let written = [
        s.journal_write(&entry("fx", Outcome::Done, None, Some(&long))).expect("write"),
        s.journal_write(&door).expect("write"),
        s.journal_write(&entry("fx", Outcome::Refused, Some(SpecCode::Refusal(Refusal::PluginOff)), Some("w3")))
            .expect("write"),
        s.journal_write(&entry("todo", Outcome::Failed, Some(HTTP_500), None)).expect("write"),
    ];
    let listed = s.journal(10, None).expect("list");
    let json = |e: &dcp_store::journal::JournalLine| serde_json::to_value(e).expect("JSON");
    assert_eq!(listed.iter().rev().map(json).collect::<Vec<_>>(), written.iter().map(json).collect::<Vec<_>>());
    assert!(written.windows(2).all(|w| w[0].id < w[1].id), "ids increase");
    assert_eq!(written[0].subject.as_ref().map(|s| s.chars().count()), Some(SUBJECT_CHARS), "cut as kept");
}

/// An R3 call's line keeps what the player answered (§12, issue 22), read
/// back as written; every other line has none, and no `confirmation` key in
/// its JSON (the shape of `dcplugin journal --json` does not change).
#[test]
fn s12_an_r3_lines_decision_is_kept_and_other_lines_have_none() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    let declined = SpecCode::Refusal(Refusal::Declined);
    let written = [
        s.journal_write(&NewEntry {
            confirmation: Some(Decision::Confirmed),
            ..entry("fx", Outcome::Done, None, None)
        }),
        s.journal_write(&NewEntry {
            confirmation: Some(Decision::Declined),
            ..entry("fx", Outcome::Refused, Some(declined), None)
        }),
        s.journal_write(&NewEntry {
            confirmation: Some(Decision::Expired),
            ..entry("fx", Outcome::Refused, Some(declined), None)
        }),
        s.journal_write(&entry("fx", Outcome::Done, None, None)),
    ]
    .map(|w| w.expect("write").confirmation);
    let listed: Vec<_> = s.journal(10, None).expect("list").into_iter().rev().map(|l| l.confirmation).collect();
    let expected = [Some(Decision::Confirmed), Some(Decision::Declined), Some(Decision::Expired), None]
        .map(|d| d.map(Stored::Known));
    assert_eq!(written.to_vec(), expected.to_vec());
    assert_eq!(listed, expected.to_vec());
    let lines = s.journal(10, None).expect("list");
    let json = |i: usize| serde_json::to_value(&lines[i]).expect("JSON");
    assert_eq!(json(1)["confirmation"], "expired");
    assert!(json(0).get("confirmation").is_none(), "{}", json(0));
}

/// A line is committed when its write returns: another connection sees it
/// at once, so a process that dies right after loses nothing it wrote.
#[test]
fn s3_a_line_is_committed_when_its_write_returns() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    let conn = rusqlite::Connection::open(dir.path().join("host.sqlite")).expect("db");
    for i in 0..3 {
        let id = s.journal_write(&entry("fx", Outcome::Done, None, Some(&i.to_string()))).expect("write").id;
        let seen: String =
            conn.query_row("SELECT subject FROM journal WHERE id = ?1", [id], |r| r.get(0)).expect("committed");
        assert_eq!(seen, i.to_string());
    }
}

#[test]
fn s3_a_line_that_cannot_be_written_is_reported_lost_and_the_next_one_is_written() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    s.journal_write(&entry("fx", Outcome::Done, None, Some("kept"))).expect("written");
    let conn = rusqlite::Connection::open(dir.path().join("host.sqlite")).expect("db");
    conn.execute_batch("ALTER TABLE journal RENAME TO journal_away").expect("rename");
    let err = s.journal_write(&entry("fx", Outcome::Done, None, Some("lost"))).expect_err("the loss is reported");
    assert!(matches!(err, StoreError::JournalLost(_)), "{err:?}");
    conn.execute_batch("ALTER TABLE journal_away RENAME TO journal").expect("rename back");
    s.journal_write(&entry("fx", Outcome::Done, None, Some("after"))).expect("written");
    assert_eq!(subjects(&s.journal(10, None).expect("list")), vec!["after", "kept"]);
}

/// §19: a card's number of recent errors counts the plugin's failed calls
/// of the last day, not its refused or done calls, nor another plugin's,
/// nor one older than `RECENT_ERRORS_MS`; the details page shows the same
/// count.
#[test]
fn s19_recent_errors_count_failed_calls_of_the_last_day() {
    let f = crate::common::Fixture::new();
    crate::common::install_my_tasks(&f);
    let failed = NewEntry { error: Some("HTTP_500"), ..entry("mytasks", Outcome::Failed, Some(HTTP_500), None) };
    let recent = |f: &crate::common::Fixture| {
        let card = f.store.list().expect("list").into_iter().find(|c| c.slug == "mytasks").expect("card");
        assert_eq!(card.recent_errors, f.store.show("mytasks").expect("show").card.recent_errors, "one count");
        card.recent_errors
    };
    assert_eq!(recent(&f), 0);
    f.store.journal_write(&failed).expect("write");
    f.store.journal_write(&failed).expect("write");
    f.store
        .journal_write(&entry("mytasks", Outcome::Refused, Some(SpecCode::Refusal(Refusal::PluginOff)), None))
        .expect("write");
    f.store.journal_write(&entry("mytasks", Outcome::Done, None, None)).expect("write");
    f.store.journal_write(&NewEntry { plugin: "other", ..failed.clone() }).expect("write");
    assert_eq!(recent(&f), 2);
    let day = dcp_store::journal::RECENT_ERRORS_MS;
    f.sql()
        .execute("UPDATE journal SET at = at - ?1 WHERE id = (SELECT MIN(id) FROM journal)", [day + 1000])
        .expect("a day and a second older");
    assert_eq!(recent(&f), 1);
}

/// A clock the test moves by hand.
struct Moved(std::sync::Mutex<std::time::SystemTime>);

impl dcp_store::Clock for Moved {
    fn now(&self) -> std::time::SystemTime {
        *self.0.lock().expect("clock")
    }
}

/// Issue 33: a line is stamped by the store's clock, and a day later by
/// that clock its failure is no longer a recent error: the test moves the
/// clock, no row is written back in time.
#[test]
fn s19_a_line_is_stamped_and_aged_by_the_stores_clock() {
    let start = std::time::UNIX_EPOCH + std::time::Duration::from_secs(2_000_000_000);
    let clock = Arc::new(Moved(std::sync::Mutex::new(start)));
    let f = crate::common::Fixture::with_clock(clock.clone());
    crate::common::install_my_tasks(&f);
    let failed = NewEntry { error: Some("HTTP_500"), ..entry("mytasks", Outcome::Failed, Some(HTTP_500), None) };
    let line = f.store.journal_write(&failed).expect("write");
    assert_eq!(line.at, 2_000_000_000_000, "the clock's time, in milliseconds");
    let recent = |f: &crate::common::Fixture| f.store.show("mytasks").expect("show").card.recent_errors;
    assert_eq!(recent(&f), 1);
    *clock.0.lock().expect("clock") += std::time::Duration::from_millis(dcp_store::journal::RECENT_ERRORS_MS as u64);
    assert_eq!(recent(&f), 1, "a day old to the millisecond: still recent");
    *clock.0.lock().expect("clock") += std::time::Duration::from_millis(1);
    assert_eq!(recent(&f), 0, "older than a day by the store's clock");
}

/// §3, §22: a line's code is read in the kind its writer stated, not
/// guessed from who asked: a call of an event turn refused `not_requested`
/// stays a call, `plugin_off` is the courtier's refusal in a call's line
/// and the door's reason in an event's, and so is `cloud_blocked` (issue
/// 32: a kept plugin's event held from an online AI is journaled
/// `dropped` with the reason of that spelling); the Kind filter lists each.
#[test]
fn s3_s22_issue32_a_line_reads_in_the_kind_its_writer_stated() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    let line_of = |who, kind, outcome, code| NewEntry { who, kind, ..entry("pomodoro", outcome, Some(code), None) };
    let refused = |who, kind, code| line_of(who, kind, Outcome::Refused, code);
    let event_turn = refused(Source::Event, Kind::Call, SpecCode::Refusal(Refusal::NotRequested));
    let door = refused(Source::Event, Kind::Event, SpecCode::Event(EventReason::PluginOff));
    let courtier = refused(Source::Voice, Kind::Call, SpecCode::Refusal(Refusal::PluginOff));
    let kept_call = refused(Source::Event, Kind::Call, SpecCode::Refusal(Refusal::CloudBlocked));
    let kept_event = line_of(Source::Event, Kind::Event, Outcome::Dropped, SpecCode::Event(EventReason::CloudBlocked));
    for written in [&event_turn, &door, &courtier, &kept_call, &kept_event] {
        s.journal_write(written).expect("written");
    }
    let read = |kind| {
        let filter = JournalQuery { limit: 10, kind, ..JournalQuery::default() };
        let lines = s.journal_page(&filter).expect("the journal reads");
        lines.into_iter().map(|e| (e.who.as_str().to_owned(), e.kind, e.code)).collect::<Vec<_>>()
    };
    let line = |who: &str, kind, code| (who.to_owned(), Stored::Known(kind), Some(Stored::Known(code)));
    let (kept_event, kept_call, courtier, door, event_turn) = (
        line("event", Kind::Event, SpecCode::Event(EventReason::CloudBlocked)),
        line("event", Kind::Call, SpecCode::Refusal(Refusal::CloudBlocked)),
        line("voice", Kind::Call, SpecCode::Refusal(Refusal::PluginOff)),
        line("event", Kind::Event, SpecCode::Event(EventReason::PluginOff)),
        line("event", Kind::Call, SpecCode::Refusal(Refusal::NotRequested)),
    );
    assert_eq!(read(Some(Kind::Call)), [kept_call.clone(), courtier.clone(), event_turn.clone()]);
    assert_eq!(read(Some(Kind::Event)), [kept_event.clone(), door.clone()]);
    assert_eq!(read(None), [kept_event, kept_call, courtier, door, event_turn]);
    // Issue 33: the same spelling says a refusal in a call's line, no
    // family in an event's.
    let lines = s.journal_page(&JournalQuery { limit: 10, ..JournalQuery::default() }).expect("the journal reads");
    let refused = Some(ToolFamily::Refused);
    assert_eq!(lines.iter().map(|e| e.family).collect::<Vec<_>>(), [None, refused, refused, None, refused]);
}

/// §19: a journal line or a last failed call whose code, outcome or kind
/// this version does not know is listed with its text as stored, beside
/// the others, in the Actions tab's page and the Developer section.
#[test]
fn s19_a_line_or_a_failed_call_this_version_cannot_read_is_listed_as_it_is() {
    let f = crate::common::Fixture::new();
    crate::common::install_my_tasks(&f);
    let failed = NewEntry { error: Some("HTTP_500"), ..entry("mytasks", Outcome::Failed, Some(HTTP_500), None) };
    f.store.journal_write(&failed).expect("write");
    f.sql()
        .execute_batch(
            "INSERT INTO failed_calls (slug, at, action, code, error) VALUES ('mytasks', 1, 'add_task', 'QUOTA_LEFT', 'x');
             INSERT INTO journal (at, slug, action, who, kind, outcome, code) VALUES (1, 'mytasks', 'add_task', 'voice', 'call', 'failed', 'QUOTA_LEFT');
             INSERT INTO journal (at, slug, action, who, kind, outcome, code) VALUES (1, 'mytasks', 'add_task', 'robot', 'chore', 'snoozed', NULL);",
        )
        .expect("lines of another version");
    f.store.journal_write(&failed).expect("write");
    let codes: Vec<Stored<ToolCode>> =
        f.store.last_failures("mytasks", 10).expect("the failures read").into_iter().map(|c| c.code).collect();
    let http_500 = Stored::Known(ToolCode::Http(500));
    assert_eq!(codes, [http_500.clone(), Stored::Unknown("QUOTA_LEFT".into()), http_500]);
    let lines = f.store.journal(10, Some("mytasks")).expect("the journal reads");
    let who: Vec<_> = lines.iter().map(|e| e.who.clone()).collect();
    let voice = || Stored::Known(Source::Voice);
    assert_eq!(who, [voice(), Stored::Unknown("robot".into()), voice(), voice()], "who asked, typed, or as stored");
    // Issue 33: what each code says happened, derived as the line is read;
    // none for a code this version does not know, nor for a line without one.
    let families: Vec<_> = lines.iter().map(|e| e.family).collect();
    assert_eq!(families, [Some(ToolFamily::ServiceDown), None, None, Some(ToolFamily::ServiceDown)]);
    let read: Vec<_> = lines.into_iter().map(|e| (e.kind, e.outcome, e.code)).collect();
    let call = Stored::Known(Kind::Call);
    let failed = || (call.clone(), Stored::Known(Outcome::Failed), Some(Stored::Known(HTTP_500)));
    let chore = (Stored::Unknown("chore".into()), Stored::Unknown("snoozed".into()), None);
    let quota = (call.clone(), Stored::Known(Outcome::Failed), Some(Stored::Unknown("QUOTA_LEFT".into())));
    assert_eq!(read, [failed(), chore, quota, failed()]);
}

/// §3, §19: a call whose caller numbered its step keeps that step in its
/// journal line's commit (one write a call): the line is listed, and the
/// turn's steps count from it as if `take_step` had kept it; a lower
/// number lowers nothing.
#[test]
fn s3_s19_a_numbered_step_is_kept_with_the_calls_line() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    let line = s.journal_write_in_step(&entry("fx", Outcome::Done, None, Some("100 USD")), "t", 2).expect("write");
    assert_eq!(s.steps_used("t").expect("read"), 2, "a turn not seen before starts at its numbered step");
    let listed = s.journal(10, None).expect("list");
    assert_eq!(listed.iter().map(|l| (l.id, l.subject.as_deref())).collect::<Vec<_>>(), [(line.id, Some("100 USD"))]);
    s.journal_write_in_step(&entry("fx", Outcome::Refused, None, None), "t", 1).expect("write");
    assert_eq!(s.steps_used("t").expect("read"), 2, "a lower number lowers nothing");
    assert_eq!(s.take_step("t", None).expect("step"), 3, "an unnumbered call counts on from it");
    assert_eq!(s.journal(10, None).expect("list").len(), 2);
}

/// Issue 24, §3, §19: the AI app's name is the client's own text, so it
/// is read as hostile: a name that tries to forge a second line of
/// Actions (line breaks), to reorder what is shown (a bidi override), to
/// hide words (zero-width, tag characters), or to flood the journal, is
/// kept without them, spaces collapsed, cut to `CLIENT_CHARS`; a name
/// of nothing but those is no name. Other lines have no `client` key.
#[test]
fn s3_s19_an_ai_apps_name_is_cleaned_and_cut_before_it_is_kept() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    let mcp = |client| NewEntry { who: Source::Mcp, client: Some(client), ..entry("fx", Outcome::Done, None, None) };
    let forged = "Evil\r\n12:00 fx convert done\u{202E}txt.exe\u{200B}\u{E0041}\u{7}\u{1b}[31m red";
    let long = "A".repeat(500);
    let written = [forged, &long, "\u{200B}\u{202E}\n\t ", "Claude Desktop 0.9.2"]
        .map(|client| s.journal_write(&mcp(client)).expect("write").client);
    let listed: Vec<_> = s.journal(10, None).expect("list").into_iter().rev().map(|l| l.client).collect();
    assert_eq!(listed, written, "kept as written back");
    assert_eq!(written[0].as_deref(), Some("Evil 12:00 fx convert donetxt.exe[31m red"));
    assert_eq!(written[1].as_ref().map(|n| n.chars().count()), Some(CLIENT_CHARS));
    assert_eq!(written[2], None, "nothing visible: no name");
    assert_eq!(written[3].as_deref(), Some("Claude Desktop 0.9.2"));
    let other = s.journal_write(&entry("fx", Outcome::Done, None, None)).expect("write");
    let json = serde_json::to_value(&other).expect("JSON");
    assert!(json.get("client").is_none(), "the JSON of a line without an AI app keeps its shape: {json}");
}

/// Issue 32, §3, §12: where a confirmed call's request ended is a server's
/// text (the URL it redirected to): kept cleaned and cut to
/// [`ENDED_AT_CHARS`], given back as written, in the JSON only when set.
#[test]
fn s3_s12_issue32_where_a_confirmed_call_ended_is_kept_cleaned_and_cut() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    let ended = |url| NewEntry { ended_at: Some(url), ..entry("fx", Outcome::Done, None, None) };
    let long = format!("https://api.example.com/{}", "a".repeat(500));
    let written = ["http://127.0.0.1:5001/sent/1", "https://x.example/\u{1b}]52;c;aGk=\u{7}\n12:00 forged", &long]
        .map(|url| s.journal_write(&ended(url)).expect("write").ended_at);
    let listed: Vec<_> = s.journal(10, None).expect("list").into_iter().rev().map(|l| l.ended_at).collect();
    assert_eq!(listed, written, "kept as written back");
    assert_eq!(written[0].as_deref(), Some("http://127.0.0.1:5001/sent/1"));
    assert_eq!(written[1].as_deref(), Some("https://x.example/]52;c;aGk= 12:00 forged"));
    assert_eq!(written[2].as_ref().map(|u| u.chars().count()), Some(ENDED_AT_CHARS));
    let line = s.journal_write(&ended("http://127.0.0.1:5001/sent/1")).expect("write");
    assert_eq!(serde_json::to_value(&line).expect("JSON")["ended_at"], "http://127.0.0.1:5001/sent/1");
    let other = s.journal_write(&entry("fx", Outcome::Done, None, None)).expect("write");
    let json = serde_json::to_value(&other).expect("JSON");
    assert!(json.get("ended_at").is_none(), "the JSON of a line that ended where it was sent keeps its shape: {json}");
}
