//! Upgrades: a profile saved at any earlier schema version opens with the
//! current code, keeps its plugins, settings, sealed secrets and journal,
//! and lands at the latest version (§3: installed plugins stay installed).
//!
//! # The fixtures (`fixtures/v<N>.sql`, `fixtures/plugins/`)
//!
//! Each `v<N>.sql` is a profile's database as version N left it: the schema
//! exactly as migrations 1 to N created it, the rows the store of that
//! version wrote, and `PRAGMA user_version = N`. The rows name one imported
//! plugin, `mytasks` (the my-tasks example), installed in
//! `plugins/mytasks/fixture/` (copied from `fixtures/plugins/`), with a
//! setting, an action switched off, a secret and, from version 2, journal
//! entries. The profile id is [`PROFILE_ID`]; the secret is sealed with the
//! fixed vault key [`VAULT_KEY`], which the test puts in a
//! `MemoryKeyStore`, so the upgraded profile can open it.
//!
//! Making the fixture of a new version N (every migration appended to
//! `db.rs` adds one, in the same commit):
//! 1. with the code of version N, install `plugins-examples/my-tasks` in a
//!    temp profile, set `max_tasks` to 25, switch `complete_task` off, and
//!    write the journal lines of the older fixtures;
//! 2. `sqlite3 host.sqlite .dump > fixtures/v<N>.sql`, append
//!    `PRAGMA user_version = N;`, set the plugin's `dir` to
//!    `plugins/mytasks/fixture`, the `profile_id` pref to [`PROFILE_ID`],
//!    and the sealed secret to the one in `v1.sql` (sealed with
//!    [`VAULT_KEY`] for `mytasks`/`api_token`: `Vault::seal` through a
//!    `MemoryKeyStore` holding that key);
//! 3. add N to [`VERSIONS`] (`every_schema_version_has_a_fixture` fails
//!    until then).
//!
//! Versions 1 to 6 were made this way from one profile of the code at
//! version 6, each cut back to its version's schema (the migration texts
//! of `db.rs`) and the columns that version had; the store has written
//! these rows in the same shape since version 1. Version 7 is version 6
//! with migration 7 applied: the failure's error moved from the journal's
//! `detail` to `failed_calls`, as the code of version 7 writes it. Version 8
//! is version 7 with migration 8 applied (an index, no row changes). Version 9
//! is version 8 with migration 9 applied (the journal's `kind`: both lines
//! are calls), the same rows a dump of that database gives. Version 10 is
//! version 9 with migration 10 applied (the journal's `confirmation`, none
//! on either line). Version 11 is version 10 with migration 11 applied
//! (the companion's AI, an empty table). Version 12 is version 11 with
//! migration 12 applied (the journal's `client`, none on either line),
//! checked against a dump of that database. Version 13 is version 12 with
//! migration 13 applied (the journal's `ended_at`, none on either line),
//! checked the same way. Version 14 is version 13 with migration 14 applied
//! (the AI's `max_tokens`, an empty table still), checked the same way.
//! Never edit a fixture: a profile saved by a released version does not
//! change.

use crate::common::{Status, SECRET};
use dcp_format::codes::{CallCode, EventReason, Refusal, SpecCode, ToolCode};
use dcp_store::journal::{Decision, Kind, NewEntry, Outcome, Source, Stored};
use dcp_store::{Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use dcp_vault::{KeyStore, VaultKey};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Every version a fixture was saved at: all of them, the latest included.
const VERSIONS: [u32; 14] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
/// The profile id of every fixture (it names the vault key).
const PROFILE_ID: &str = "fixture-profile";
/// The vault key the fixtures' secret was sealed with.
const VAULT_KEY: [u8; 32] = [0x5a; 32];

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/store/fixtures")
}

/// A profile folder holding the fixture of `version`.
fn saved_profile(version: u32, root: &Path) {
    crate::common::copy_dir(&fixtures().join("plugins/mytasks/fixture"), &root.join("plugins/mytasks/fixture"));
    let sql = std::fs::read_to_string(fixtures().join(format!("v{version}.sql"))).expect("fixture");
    let conn = rusqlite::Connection::open(root.join("host.sqlite")).expect("db");
    // A dump lists tables by name, not in the order their foreign keys need.
    conn.execute_batch("PRAGMA foreign_keys = OFF").expect("pragma");
    conn.execute_batch(&sql).expect("fixture loads");
    let saved: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).expect("version");
    assert_eq!(saved, version, "the fixture says its version");
}

/// The schema version a new profile gets: the latest.
fn latest_version() -> u32 {
    let dir = tempfile::tempdir().expect("dir");
    drop(Store::open(Profile::at(dir.path()).expect("profile"), Arc::new(MemoryKeyStore::new())).expect("store"));
    let conn = rusqlite::Connection::open(dir.path().join("host.sqlite")).expect("db");
    conn.query_row("PRAGMA user_version", [], |r| r.get(0)).expect("version")
}

fn keys() -> Arc<dyn KeyStore> {
    let keys = MemoryKeyStore::new();
    keys.store(PROFILE_ID, &VaultKey::from_bytes(VAULT_KEY)).expect("key");
    Arc::new(keys)
}

/// What a store opened on an upgraded profile must still show.
fn check_kept(store: &Store, version: u32) {
    let details = store.show("mytasks").unwrap_or_else(|e| panic!("v{version}: plugin lost: {e}"));
    assert_eq!(details.card.status, Status::Active, "v{version}: the files still match the fingerprint");
    let max = details.settings.iter().find(|s| s.key == "max_tasks").and_then(|s| s.value.clone());
    assert_eq!(max, Some(serde_json::json!(25)), "v{version}: setting kept");
    let off: Vec<&str> = details.actions.iter().filter(|a| !a.enabled).map(|a| a.full_name.as_str()).collect();
    assert_eq!(off, ["mytasks__complete_task"], "v{version}: switch kept");
    assert_eq!(store.prefs().expect("prefs").language.as_str(), "fr", "v{version}: prefs kept");
    let context = store.call_context("mytasks").expect("context").expect("installed");
    let secrets = store.open_secrets(&context);
    let opened: Vec<(&str, &str)> = secrets.iter().map(|(k, s)| (k.as_str(), s.expose())).collect();
    assert_eq!(opened, [("api_token", SECRET)], "v{version}: the sealed secret opens");
    let journal = store.journal(10, Some("mytasks")).expect("journal");
    let lines: Vec<(&str, Option<String>)> =
        journal.iter().map(|e| (e.outcome.as_str(), e.code.as_ref().map(|c| c.to_string()))).collect();
    let expected: Vec<(&str, Option<String>)> =
        if version >= 2 { vec![("failed", Some("HTTP_500".into())), ("done", None)] } else { vec![] };
    assert_eq!(lines, expected, "v{version}: journal kept");
    assert!(journal.iter().all(|e| e.detail.is_none()), "v{version}: the journal keeps no content (§3)");
    assert!(journal.iter().all(|e| e.kind == Stored::Known(Kind::Call)), "v{version}: both lines are calls");
    assert!(journal.iter().all(|e| e.client.is_none()), "v{version}: no AI app named before migration 12");
    assert!(journal.iter().all(|e| e.ended_at.is_none()), "v{version}: both calls ended where they were sent");
    let failures = store.last_failures("mytasks", 20).expect("failures");
    let kept: Vec<(&str, String)> = failures.iter().map(|c| (c.action.as_str(), c.code.to_string())).collect();
    let expected: Vec<(&str, String)> = if version >= 2 { vec![("add_task", "HTTP_500".into())] } else { vec![] };
    assert_eq!(kept, expected, "v{version}: the failed call's error moved to the Developer section (§19)");
    assert!(failures.iter().all(|c| c.error.contains("database down")), "v{version}: {failures:?}");
    check_recent_errors(store, version);
}

/// §19: the card's number of recent errors counts the fixture's failed
/// line (saved at [`FAILED_AT`]) only while it is recent, so the expected
/// count follows the clock, not the day the fixture was made.
fn check_recent_errors(store: &Store, version: u32) {
    let card = store.list().expect("list").into_iter().find(|c| c.slug == "mytasks").expect("card");
    let age = now_ms() - FAILED_AT;
    let expected = u32::from(version >= 2 && age <= dcp_store::journal::RECENT_ERRORS_MS);
    assert_eq!(card.recent_errors, expected, "v{version}: the failure is {age} ms old");
}

/// When the fixtures' failed call was journaled (milliseconds).
const FAILED_AT: i64 = 1_796_077_570_001;

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_millis() as i64
}

#[test]
fn s3_a_profile_saved_at_any_earlier_schema_version_upgrades_and_keeps_everything() {
    let latest = latest_version();
    for version in VERSIONS {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path().join("profile");
        saved_profile(version, &root);
        let store = Store::open(Profile::at(&root).expect("profile"), keys())
            .unwrap_or_else(|e| panic!("a profile at version {version} does not open: {e}"));
        check_kept(&store, version);
        let conn = rusqlite::Connection::open(root.join("host.sqlite")).expect("db");
        let now: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).expect("version");
        assert_eq!(now, latest, "v{version} lands at the latest version");
        let index: String = conn
            .query_row("SELECT sql FROM sqlite_master WHERE name = 'journal_failures'", [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("v{version}: the recent errors' index (migration 8) is there: {e}"));
        assert!(index.contains("WHERE outcome = 'failed'"), "v{version}: {index}");
        drop(store);
        // Opened again (the next start of the app): nothing left to migrate.
        check_kept(&Store::open(Profile::at(&root).expect("profile"), keys()).expect("reopens"), version);
    }
}

/// A migration added without its fixture fails here.
#[test]
fn every_schema_version_has_a_fixture() {
    assert_eq!(VERSIONS.to_vec(), (1..=latest_version()).collect::<Vec<_>>());
}

/// The door's reasons as version 8 spelled them, all it could journal:
/// migration 9 reads old lines, so its test writes only these. A reason
/// added since (`cloud_blocked`, issue 32, the spelling of a call's
/// refusal) is never in a journal saved at version 8, and each line
/// written since states its kind.
const VERSION_8_EVENT_REASONS: [&str; 19] = [
    "unknown_event",
    "event_off",
    "plugin_off",
    "dev_mode_off",
    "rate_limited",
    "event_expired",
    "accepted",
    "bad_token",
    "invalid_json",
    "missing_event",
    "text_too_long",
    "browser_request",
    "wrong_host",
    "method_not_allowed",
    "not_found",
    "unsupported_media_type",
    "body_too_large",
    "unreadable_body",
    "internal_error",
];

/// Migration 9 (§3, §19, §22): in a journal saved at version 8, which
/// said a line's family only by who = 'event', the lines of who = 'event'
/// that are received, dropped, or refused with a door's reason become
/// events (`plugin_off` and `dev_mode_off` included: a call of an event
/// turn is refused `not_requested` first); its call lines, refused
/// `not_requested` or failed before the courtier, and every other line,
/// become calls; each code then reads in its family. The lines are those
/// version 8 could write ([`VERSION_8_EVENT_REASONS`]), not today's
/// reasons (issue 32: the event reason `cloud_blocked` came later).
#[test]
fn s3_s22_migration_9_tells_the_saved_event_lines_from_the_call_lines() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().join("profile");
    saved_profile(8, &root);
    let event =
        |outcome: &'static str, code: Option<EventReason>| ("event", outcome, code.map(SpecCode::Event), Kind::Event);
    let mut lines = vec![event("received", None), event("dropped", Some(EventReason::EventExpired))];
    let reasons = VERSION_8_EVENT_REASONS.iter().map(|r| EventReason::parse(r).expect("still a door's reason"));
    lines.extend(reasons.map(|r| event("refused", Some(r))));
    lines.extend([
        ("event", "refused", Some(SpecCode::Refusal(Refusal::NotRequested)), Kind::Call),
        ("auto", "refused", Some(SpecCode::Refusal(Refusal::NotRequested)), Kind::Call),
        ("event", "failed", Some(SpecCode::Tool(ToolCode::Call(CallCode::ExecutionError))), Kind::Call),
        ("voice", "refused", Some(SpecCode::Refusal(Refusal::PluginOff)), Kind::Call),
    ]);
    let conn = rusqlite::Connection::open(root.join("host.sqlite")).expect("db");
    for (who, outcome, code, _) in &lines {
        conn.execute(
            "INSERT INTO journal (at, slug, action, who, outcome, code) VALUES (?1, 'pomodoro', 'focus_done', ?2, ?3, ?4)",
            rusqlite::params![now_ms(), who, outcome, code.map(|c| c.to_string())],
        )
        .expect("a line as version 8 wrote it");
    }
    drop(conn);
    let store = Store::open(Profile::at(&root).expect("profile"), keys()).expect("upgraded");
    let mut read = store.journal(100, Some("pomodoro")).expect("the journal reads");
    read.reverse();
    let got: Vec<_> = read.iter().map(|e| (e.who.as_str(), e.kind.clone(), e.code.clone())).collect();
    let want: Vec<_> =
        lines.iter().map(|(who, _, code, kind)| (*who, Stored::Known(*kind), code.map(Stored::Known))).collect();
    assert_eq!(got, want);
}

/// A call of `mytasks` that went through, as a store after an upgrade
/// writes it: nothing else said.
fn done_call(action: &str, who: Source) -> NewEntry<'_> {
    NewEntry {
        plugin: "mytasks",
        action,
        who,
        kind: Kind::Call,
        outcome: Outcome::Done,
        code: None,
        subject: None,
        error: None,
        confirmation: None,
        client: None,
        ended_at: None,
    }
}

/// Migration 12 (issue 24, §3): a profile saved at version 11 gets the
/// journal's `client`; its old lines name no AI app, and a line written
/// after the upgrade keeps the name of the MCP client that asked.
#[test]
fn s3_migration_12_adds_the_ai_app_that_asked_to_a_journal_saved_at_version_11() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().join("profile");
    saved_profile(11, &root);
    let store = Store::open(Profile::at(&root).expect("profile"), keys()).expect("upgraded");
    let written = store
        .journal_write(&NewEntry { client: Some("Claude Desktop 0.9.2"), ..done_call("list_tasks", Source::Mcp) })
        .expect("a line after the upgrade");
    let read: Vec<_> = store
        .journal(10, Some("mytasks"))
        .expect("journal")
        .into_iter()
        .map(|e| (e.id, e.who.as_str().to_owned(), e.client))
        .collect();
    assert_eq!(
        read,
        [
            (written.id, "mcp".to_owned(), Some("Claude Desktop 0.9.2".to_owned())),
            (2, "keyboard".to_owned(), None),
            (1, "voice".to_owned(), None),
        ]
    );
}

/// Migration 13 (issue 32, §12, §14): a profile saved at version 12 gets
/// the journal's `ended_at`; its old lines say none, and a confirmed
/// call's line written after the upgrade keeps where its request ended.
#[test]
fn s12_issue32_migration_13_adds_where_a_confirmed_call_ended_to_a_journal_saved_at_version_12() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().join("profile");
    saved_profile(12, &root);
    let store = Store::open(Profile::at(&root).expect("profile"), keys()).expect("upgraded");
    let written = store
        .journal_write(&NewEntry {
            confirmation: Some(Decision::Confirmed),
            ended_at: Some("http://127.0.0.1:5001/sent/1"),
            ..done_call("add_task", Source::Keyboard)
        })
        .expect("a line after the upgrade");
    let read: Vec<_> =
        store.journal(10, Some("mytasks")).expect("journal").into_iter().map(|e| (e.id, e.ended_at)).collect();
    assert_eq!(read, [(written.id, Some("http://127.0.0.1:5001/sent/1".to_owned())), (2, None), (1, None)]);
}

/// Migration 14 (issue 34): a profile saved at version 13 with an AI set
/// keeps it, and its answers get the app's default length until the player
/// sets one.
#[test]
fn issue34_migration_14_gives_an_ai_saved_at_version_13_the_default_answer_length() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().join("profile");
    saved_profile(13, &root);
    let conn = rusqlite::Connection::open(root.join("host.sqlite")).expect("db");
    // What the store of version 13 wrote for an AI on this PC.
    conn.execute("INSERT INTO ai_connection (id, url, model) VALUES (1, 'http://127.0.0.1:8080/v1', 'qwen')", [])
        .expect("an AI set at version 13");
    drop(conn);
    let store = Store::open(Profile::at(&root).expect("profile"), keys()).expect("upgraded");
    let kept = store.ai().expect("ai");
    assert_eq!(
        (kept.url.as_deref(), kept.model.as_deref(), kept.max_tokens),
        (Some("http://127.0.0.1:8080/v1"), Some("qwen"), None)
    );
    store.set_ai_max_tokens(Some(300)).expect("set after the upgrade");
    assert_eq!(store.ai().expect("ai").max_tokens, Some(300));
}
