//! Import → review → install → cards → details → switch → call → journal,
//! through the host's API only (§3, §18, §19), with a real profile and a
//! real program on 127.0.0.1 (§15).

mod common;

use common::*;
use dcp_host::events::{Change, HostEvent};
use dcp_host::{ErrorCode, HostCode, InstallOptions, Place, Sensitive, Source, Status, Turn};
use dcp_host::{JournalKind, JournalOutcome, JournalQuery, JournalValue};
use dcp_host::{Refusal, SpecCode};
use std::time::Duration;

fn voice() -> Turn {
    Turn::new(Source::Voice, Place::Pc)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_import_consent_install_call_and_journal() {
    let f = fixture();
    let port = free_port();
    let server = pc_server(port, r#"{"time":"12:34","date":"2026-11-30","extra":"dropped by pick"}"#);
    let dir = folder(f.dir.path(), "mypc", &example_on_port("local-server", port));
    let file = dir.join("manifest.json");
    let mut events = f.host.subscribe();

    // §15: a plugin that talks to the PC needs developer mode, with its code.
    let refused = f.host.import_path(file.clone()).await.expect_err("refused without developer mode");
    assert_eq!(refused.code, ErrorCode::Import(dcp_format::Code::DevModeRequired));
    assert_eq!(refused.problems[0].code.as_str(), "dev_mode_required");

    dev_mode(&f.host, true).await;
    let review = f.host.import_path(file).await.expect("review");
    assert_eq!(review.slug, "mypc");
    assert!(!review.update);
    assert_eq!(review.local_ports.len(), 1, "This PC · port N is on the consent screen");

    // Required secret missing: missing_settings, the review stays pending.
    let missing = f.host.install(&review.review, Default::default()).await.expect_err("token is required");
    assert_eq!(missing.code, ErrorCode::Settings(dcp_host::SettingsCode::MissingSettings));
    let installed = f.host.install(&review.review, with_token()).await.expect("installed");
    assert_eq!((installed.slug.as_str(), installed.update), ("mypc", false));
    let event = next_event(&mut events, Duration::from_secs(5), |e| {
        matches!(e, HostEvent::PluginChanged { change: Change::Installed, .. })
    })
    .await;
    let HostEvent::PluginChanged { card: Some(card), .. } = event else { panic!("a card") };
    assert_eq!(card.status, Status::Active);

    let cards = f.host.cards().await.expect("cards");
    assert_eq!(cards.len(), 1);
    assert!(!cards[0].has_icon, "a .json folder without icon.png: the letter tile");
    assert_eq!(cards[0].local_ports, vec![port]);

    let details = f.host.details("mypc").await.expect("details");
    let token = details.settings.iter().find(|s| s.key == "token").expect("token setting");
    assert!(token.secret && token.set && token.value.is_none(), "a secret shows Set, never its value");
    assert_eq!(details.actions.len(), 2);
    assert!(details.actions.iter().all(|a| a.level >= dcp_format::risk::Level::R2), "§15: R2 at least");
    assert!(!serde_json::to_string(&details).expect("JSON").contains(TOKEN), "no secret crosses the boundary");
    // §19 Try an action: each action's arguments, for its form.
    let note = details.actions.iter().find(|a| a.name == "add_note").expect("add_note");
    assert_eq!(
        note.input_schema,
        serde_json::json!({"type": "object", "required": ["text"],
            "properties": {"text": {"type": "string", "description": "Text of the note"}}})
    );
    let time = details.actions.iter().find(|a| a.name == "get_time").expect("get_time");
    assert_eq!(time.input_schema, serde_json::json!({"type": "object", "properties": {}, "required": []}));

    // The call reaches the program and the AI reads the picked fields only.
    let done = f.host.call(voice(), "mypc__get_time", serde_json::json!({})).await.expect("call");
    assert_eq!(done.outcome.as_str(), "done", "{}", done.for_ai);
    assert!(done.for_ai.contains("12:34") && !done.for_ai.contains("dropped by pick"), "{}", done.for_ai);
    assert_eq!(server.requests.load(std::sync::atomic::Ordering::SeqCst), 1);

    // Try an action (§19): the request as sent, its credential as [secret] (§11).
    let tried = f.host.try_action(voice(), "mypc__get_time", serde_json::json!({}), None).await.expect("try");
    assert_eq!(tried.outcome.outcome.as_str(), "done", "{}", tried.outcome.for_ai);
    let sent = tried.sent.expect("a request was sent");
    assert_eq!((sent.method, sent.url.as_str()), ("GET", format!("http://127.0.0.1:{port}/time").as_str()));
    let auth = sent.headers.iter().find(|(name, _)| name.eq_ignore_ascii_case("authorization")).expect("auth header");
    assert!(auth.1.contains("[secret]"), "{auth:?}");
    assert!(!serde_json::to_string(&sent).expect("JSON").contains(TOKEN), "the secret never shows");
    assert_eq!(server.requests.load(std::sync::atomic::Ordering::SeqCst), 2);

    // Switched off: refused as plugin_off, and the program sees nothing more.
    let card = f.host.set_enabled("mypc", false).await.expect("off");
    assert_eq!(card.status, Status::Off);
    let refused = f.host.call(voice(), "mypc__get_time", serde_json::json!({})).await.expect("call");
    assert_eq!((refused.outcome, refused.reason), (JournalOutcome::Refused, Some(Refusal::PluginOff)));
    assert_eq!(server.requests.load(std::sync::atomic::Ordering::SeqCst), 2);

    let journal = f
        .host
        .journal(JournalQuery { limit: 10, plugin: Some("mypc".into()), ..Default::default() })
        .await
        .expect("journal");
    let outcomes: Vec<&str> = journal.iter().map(|e| e.outcome.as_str()).collect();
    assert_eq!(outcomes, ["refused", "done", "done"], "newest first");
    // The Actions tab's filters and paging (§3, §19).
    let refused = JournalQuery { limit: 10, outcome: Some(JournalOutcome::Refused), ..Default::default() };
    let refused = f.host.journal(refused).await.expect("refused lines");
    let codes: Vec<_> = refused.iter().map(|e| e.code.clone()).collect();
    assert_eq!(codes, [Some(JournalValue::Known(SpecCode::Refusal(Refusal::PluginOff)))]);
    let only_events = JournalQuery { limit: 10, kind: Some(JournalKind::Event), ..Default::default() };
    assert!(f.host.journal(only_events).await.expect("events").is_empty(), "no event was posted");
    let calls = JournalQuery { limit: 10, kind: Some(JournalKind::Call), ..Default::default() };
    assert_eq!(f.host.journal(calls).await.expect("calls").len(), 3);
    let next = JournalQuery { limit: 10, before: Some(journal[0].id), ..Default::default() };
    let next = f.host.journal(next).await.expect("next page");
    assert_eq!(next.iter().map(|e| e.outcome.as_str()).collect::<Vec<_>>(), ["done", "done"]);
    let line = next_event(&mut events, Duration::from_secs(5), |e| matches!(e, HostEvent::JournalAdded { .. })).await;
    let HostEvent::JournalAdded { entry } = line else { unreachable!() };
    assert_eq!(entry.action, "get_time");

    f.host.uninstall("mypc").await.expect("uninstall");
    assert!(f.host.cards().await.expect("cards").is_empty());
    let gone = f.host.details("mypc").await.expect_err("gone");
    assert_eq!(gone.code, ErrorCode::Host(HostCode::UnknownPlugin));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s18_an_update_that_adds_a_host_is_a_permission_change() {
    let f = fixture();
    let mut manifest = example("exchange-rates");
    let first = folder(f.dir.path(), "v1", &manifest).join("manifest.json");
    let review = f.host.import_path(first).await.expect("review");
    f.host.install(&review.review, Default::default()).await.expect("installed");

    let meta = &mut manifest["_meta"]["com.desktopaicompanion"];
    meta["permissions"]["network"]["hosts"].as_array_mut().expect("hosts").push("api.example.com".into());
    manifest["version"] = "1.1.0".into();
    let second = folder(f.dir.path(), "v2", &manifest).join("manifest.json");
    let update = f.host.import_path(second).await.expect("update review");
    assert!(update.update && update.permissions_changed, "{:?}", update.permission_changes);
    assert!(
        update.permission_changes.contains(&dcp_host::PermissionChange::SiteAdded { site: "api.example.com".into() }),
        "{:?}",
        update.permission_changes
    );
    let installed = f.host.install(&update.review, Default::default()).await.expect("updated");
    assert!(installed.update && installed.permissions_changed);
    assert_eq!(f.host.card("fx").await.expect("card").version, "1.1.0");
}

/// §19: Try an action is in the Developer section, so it is refused while
/// developer mode is off, before the plugin's program is reached; a call
/// (`dcplugin call`, the companion) is not a developer tool and still runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s19_try_an_action_needs_developer_mode() {
    let f = fixture();
    let port = free_port();
    let server = pc_server(port, r#"{"time":"12:34","date":"2026-11-30"}"#);
    install_pc_example(&f, "mypc", port, with_token()).await;
    dev_mode(&f.host, false).await;

    let refused =
        f.host.try_action(voice(), "mypc__get_time", serde_json::json!({}), None).await.expect_err("dev mode off");
    assert_eq!(refused.code.as_str(), "dev_mode_required");
    assert_eq!(server.requests.load(std::sync::atomic::Ordering::SeqCst), 0);
    // The call itself is answered (the paused plugin refuses it, §15), not refused as a developer tool.
    let call = f.host.call(voice(), "mypc__get_time", serde_json::json!({})).await.expect("a call's outcome");
    assert_eq!(call.outcome, JournalOutcome::Refused);

    dev_mode(&f.host, true).await;
    let tried = f.host.try_action(voice(), "mypc__get_time", serde_json::json!({}), None).await.expect("dev mode on");
    assert_eq!(tried.outcome.outcome.as_str(), "done", "{}", tried.outcome.for_ai);
    assert_eq!(server.requests.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// §19 "on each card: the plugin's ID and its number of recent errors":
/// failed calls raise the count, on the cards and the details page alike;
/// a refused or successful call does not; a failure older than a day
/// (`RECENT_ERRORS_MS`) or from before the plugin was installed again is
/// not counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s19_a_card_counts_its_recent_errors() {
    let f = fixture();
    let port = free_port();
    let server = pc_server(port, r#"{"time":"12:34","date":"2026-11-30"}"#);
    // A wrong token: the program answers 401, so every call fails (HTTP_401).
    let wrong =
        || InstallOptions { secrets: vec![("token".into(), Sensitive::new("wrong".into()))], ..Default::default() };
    install_pc_example(&f, "mypc", port, wrong()).await;
    let errors = |cards: Vec<dcp_host::Card>| cards.iter().find(|c| c.slug == "mypc").map(|c| c.recent_errors);
    assert_eq!(errors(f.host.cards().await.expect("cards")), Some(0));

    for _ in 0..2 {
        let failed = f.host.call(voice(), "mypc__get_time", serde_json::json!({})).await.expect("call");
        assert_eq!(failed.outcome, JournalOutcome::Failed, "{}", failed.for_ai);
    }
    assert_eq!(server.requests.load(std::sync::atomic::Ordering::SeqCst), 2);
    assert_eq!(errors(f.host.cards().await.expect("cards")), Some(2), "§19: two failed calls");
    let details = f.host.details("mypc").await.expect("details");
    assert_eq!((details.card.recent_errors, details.last_failures.len()), (2, 2), "the same count on the details page");

    // A refused call is not an error of the plugin.
    f.host.set_enabled("mypc", false).await.expect("off");
    let refused = f.host.call(voice(), "mypc__get_time", serde_json::json!({})).await.expect("call");
    assert_eq!(refused.outcome, JournalOutcome::Refused);
    assert_eq!(f.host.card("mypc").await.expect("card").recent_errors, 2);
    f.host.set_enabled("mypc", true).await.expect("on");

    // The first failure a day and an hour ago, as the journal of yesterday
    // would hold it (the journal's times come from the clock; no API sets one).
    assert_eq!(age_failures(&f, "SELECT MIN(id) FROM journal WHERE outcome = 'failed'", 25 * 3600 * 1000), 1);
    assert_eq!(errors(f.host.cards().await.expect("cards")), Some(1), "§19: an old failure is not recent");
    assert_eq!(f.host.details("mypc").await.expect("details").card.recent_errors, 1);

    // Installed again: its earlier failures went with it (as its last failed
    // calls did). The install time is kept to the second: the failures are
    // moved a second back, as if the new install came in the next second.
    f.host.uninstall("mypc").await.expect("uninstall");
    assert_eq!(age_failures(&f, "SELECT id FROM journal WHERE outcome = 'failed'", 1000), 2);
    install_pc_example(&f, "mypc2", port, wrong()).await;
    assert_eq!(errors(f.host.cards().await.expect("cards")), Some(0), "a new install starts at 0");
}

/// §18 "Active: installed, on, ready": a plugin whose every call fails is
/// not ready, and its card says so as a fact read from the journal: its
/// failed calls since the last that went through, and the newest one's
/// code. A refusal (the app's decision) neither counts nor clears it; a
/// call that goes through clears it; the cards and the details agree.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s18_a_card_says_its_calls_keep_failing() {
    let f = fixture();
    let port = free_port();
    let _server = pc_server(port, r#"{"time":"12:34","date":"2026-11-30"}"#);
    let token = |value: &str| Sensitive::new(value.into());
    let wrong = InstallOptions { secrets: vec![("token".into(), token("wrong"))], ..Default::default() };
    install_pc_example(&f, "mypc", port, wrong).await;
    let failing = |cards: Vec<dcp_host::Card>| cards.into_iter().find(|c| c.slug == "mypc").and_then(|c| c.failing);
    assert_eq!(failing(f.host.cards().await.expect("cards")), None, "no call yet: nothing failed");
    let call = || async { f.host.call(voice(), "mypc__get_time", serde_json::json!({})).await.expect("call").outcome };

    for _ in 0..3 {
        assert_eq!(call().await, JournalOutcome::Failed, "the program refuses the wrong token");
    }
    let three = Some(dcp_host::Failing {
        calls: 3,
        code: JournalValue::Known(dcp_host::ToolCode::Http(401)),
        family: Some(dcp_format::codes::ToolFamily::KeyRefused),
    });
    assert_eq!(failing(f.host.cards().await.expect("cards")), three);
    assert_eq!(f.host.card("mypc").await.expect("card").failing, three, "one card alone says the same");
    let details = f.host.details("mypc").await.expect("details");
    assert_eq!((details.card.status, details.card.failing), (Status::Active, three.clone()), "Active, and failing");

    f.host.set_enabled("mypc", false).await.expect("off");
    assert_eq!(call().await, JournalOutcome::Refused);
    f.host.set_enabled("mypc", true).await.expect("on");
    assert_eq!(f.host.card("mypc").await.expect("card").failing, three, "a refusal is not the plugin's failure");

    f.host.set_secret("mypc", "token", token(TOKEN)).await.expect("the right token");
    assert_eq!(call().await, JournalOutcome::Done);
    assert_eq!(failing(f.host.cards().await.expect("cards")), None, "a call went through: not failing any more");

    f.host.set_secret("mypc", "token", token("wrong again")).await.expect("a wrong token");
    assert_eq!(call().await, JournalOutcome::Failed);
    let one = f.host.card("mypc").await.expect("card").failing.expect("failing again");
    assert_eq!((one.calls, one.code.to_string()), (1, "HTTP_401".into()), "counted from the last success");
}

/// Moves the journal lines `ids` (a query of their ids) `by` milliseconds
/// back; how many moved.
fn age_failures(f: &Fixture, ids: &str, by: i64) -> usize {
    let conn = rusqlite::Connection::open(f.host.profile_dir().join("host.sqlite")).expect("the profile's database");
    conn.busy_timeout(Duration::from_secs(10)).expect("busy timeout");
    conn.execute(&format!("UPDATE journal SET at = at - ?1 WHERE id IN ({ids})"), [by]).expect("update")
}
