//! The action journal (§3, §19): newest first, per plugin, short subjects,
//! bounded retention, and the last failures for the Developer section.

use dcp_store::journal::{NewEntry, Outcome, KEPT_ENTRIES, SUBJECT_CHARS};
use dcp_store::{Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use std::sync::Arc;

fn store(dir: &std::path::Path) -> Store {
    Store::open(Profile::at(dir).expect("profile"), Arc::new(MemoryKeyStore::new())).expect("store")
}

fn entry<'a>(plugin: &'a str, outcome: Outcome, code: Option<&'a str>, subject: Option<&'a str>) -> NewEntry<'a> {
    NewEntry { plugin, action: "convert", who: "voice", outcome, code, subject, detail: code }
}

#[test]
fn s3_entries_come_back_newest_first_with_a_short_subject() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    s.journal_write(&entry("fx", Outcome::Done, None, Some(&"s".repeat(200)))).expect("write");
    s.journal_write(&entry("todo", Outcome::Refused, Some("stream_private"), None)).expect("write");
    s.journal_write(&entry("fx", Outcome::Failed, Some("TIMEOUT"), Some("100 USD"))).expect("write");
    let all = s.journal(10, None).expect("list");
    let outcomes: Vec<(&str, &str)> = all.iter().map(|e| (e.plugin.as_str(), e.outcome.as_str())).collect();
    assert_eq!(outcomes, vec![("fx", "failed"), ("todo", "refused"), ("fx", "done")]);
    assert_eq!(all[2].subject.as_ref().map(|s| s.chars().count()), Some(SUBJECT_CHARS));
    assert_eq!(s.journal(10, Some("fx")).expect("list").len(), 2);
    assert_eq!(s.journal(1, None).expect("list").len(), 1);
    let failures = s.last_failures("fx", 5).expect("failures");
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].code.as_deref(), Some("TIMEOUT"));
}

#[test]
fn s19_retention_keeps_the_newest_entries_only() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    let total = KEPT_ENTRIES + 2_000;
    for i in 0..total {
        let code = i.to_string();
        s.journal_write(&entry("fx", Outcome::Done, Some(&code), None)).expect("write");
    }
    let conn = rusqlite::Connection::open(dir.path().join("host.sqlite")).expect("db");
    let count: i64 = conn.query_row("SELECT count(*) FROM journal", [], |r| r.get(0)).expect("count");
    assert!(count <= KEPT_ENTRIES + 1_000, "{count} rows kept");
    assert!(count >= KEPT_ENTRIES, "{count} rows kept");
    let newest = s.journal(1, None).expect("list");
    assert_eq!(newest[0].code.as_deref(), Some((total - 1).to_string().as_str()), "the newest entry is never pruned");
}
