//! Updates (§18 "Updating your plugin"): same slug, what is kept, what is
//! dropped, and the review's list of permission changes.

use crate::common::*;
use dcp_store::review::CloudQuestion;
use dcp_store::{CloudChoice, Review};
use serde_json::{json, Value};

fn bump(m: &mut Value, version: &str) {
    m["version"] = json!(version);
}

/// Imports a changed my-tasks (installed before) and returns its review.
fn review_of(f: &Fixture, name: &str, edit: impl FnOnce(&mut Value)) -> Review {
    let mut m = example("my-tasks");
    bump(&mut m, "1.1.0");
    edit(&mut m);
    f.store.import(&f.file(name, &m)).expect("import of the update")
}

fn tools(m: &mut Value) -> &mut Value {
    &mut meta(m)["tools"]
}

#[test]
fn s18_update_review_shows_update_old_and_new_versions() {
    let f = Fixture::new();
    install_my_tasks(&f);
    let r =
        review_of(&f, "v11.json", |m| m["description"] = json!("Reads, adds and completes the tasks of your list."));
    assert!(r.update);
    assert_eq!(r.old_version.as_deref(), Some("1.0.0"));
    assert_eq!(r.version, "1.1.0");
    assert!(!r.permissions_changed, "a text-only update does not change permissions: {:?}", r.permission_changes);
    assert!(r.permission_changes.is_empty());
    assert!(r.settings.iter().find(|s| s.key == "api_token").expect("token").set);
    let installed = f.store.install(&r.review, options(&[], &[], None)).expect("update needs no new answer");
    assert!(installed.update && !installed.permissions_changed);
    assert_eq!(f.store.show("mytasks").expect("show").card.version, "1.1.0");
}

#[test]
fn s18_update_review_lists_each_kind_of_permission_change() {
    let f = Fixture::new();
    install_my_tasks(&f);
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "host added",
            Box::new(|m| {
                meta(m)["permissions"]["network"]["hosts"] = json!(["api.tasks.example.com", "files.tasks.example.com"])
            }),
            "new site: files.tasks.example.com",
        ),
        (
            "tool added",
            Box::new(|m| {
                let mut t = tools(m)["list_tasks"].clone();
                t["description"] = json!("List the projects of the user, with their ids and names.");
                t["hint"] = json!({"en": "read your projects"});
                t["request"] = json!({"method": "GET", "url": "https://api.tasks.example.com/v1/projects"});
                t.as_object_mut().expect("tool").remove("inputSchema");
                t.as_object_mut().expect("tool").remove("response");
                tools(m)["list_projects"] = t;
            }),
            "new action list_projects: R1, GET https://api.tasks.example.com/v1/projects",
        ),
        (
            "tool removed",
            Box::new(|m| {
                tools(m).as_object_mut().expect("tools").remove("complete_task");
            }),
            "action removed: complete_task",
        ),
        (
            "level changed",
            Box::new(|m| tools(m)["complete_task"]["sideEffects"] = json!("irreversible")),
            "action complete_task: level R2 → R3",
        ),
        (
            "method changed",
            Box::new(|m| tools(m)["complete_task"]["request"]["method"] = json!("PUT")),
            "action complete_task: method POST → PUT",
        ),
        (
            "URL changed",
            Box::new(|m| tools(m)["list_tasks"]["request"]["url"] = json!("https://api.tasks.example.com/v2/tasks")),
            "action list_tasks: URL https://api.tasks.example.com/v1/tasks → https://api.tasks.example.com/v2/tasks",
        ),
        (
            "secrets sent elsewhere",
            Box::new(|m| meta(m)["auth"] = json!({"in": "query", "name": "token", "value": "{{secret.api_token}}"})),
            "secrets sent in",
        ),
    ];
    for (what, edit, expected) in cases {
        let r = review_of(&f, "changed.json", |m| edit(m));
        assert!(r.update, "{what}");
        assert!(r.permissions_changed, "{what}: {:?}", r.permission_changes);
        assert!(
            lines(&r).iter().any(|c| c.contains(expected)),
            "{what}: expected {expected:?} in {:?}",
            r.permission_changes
        );
        f.store.cancel(&r.review).expect("cancel");
    }
    // Where secrets are sent: both the old and the new destination are named.
    let r = review_of(&f, "auth.json", |m| {
        meta(m)["auth"] = json!({"in": "query", "name": "token", "value": "{{secret.api_token}}"})
    });
    assert!(
        lines(&r).iter().any(|c| c.starts_with("new secrets sent in") && c.contains("query token")),
        "{:?}",
        r.permission_changes
    );
    assert!(
        lines(&r).iter().any(|c| c.starts_with("secrets sent in removed") && c.contains("header authorization")),
        "{:?}",
        r.permission_changes
    );
}

#[test]
fn s18_update_events_added_and_removed_new_ones_off_kept_ones_keep_their_switch() {
    let f = Fixture::new();
    f.dev_mode(true);
    let r = f.import_example("pomodoro").expect("import");
    f.store.install(&r.review, options(&[], &[("token", SECRET)], None)).expect("install");
    f.store.set_event_enabled("pomodoro", "focus_done", true).expect("on");
    f.store.set_event_enabled("pomodoro", "break_done", true).expect("on");
    let mut m = example("pomodoro");
    bump(&mut m, "1.1.0");
    let events = meta(&mut m)["events"].as_object_mut().expect("events");
    events.remove("break_done");
    events.insert("long_break_done".into(), json!({"title": {"en": "Long break finished"}}));
    let r = f.store.import(&f.file("pomodoro.json", &m)).expect("import");
    assert!(r.permissions_changed);
    assert!(lines(&r).contains(&"new event: long_break_done".to_owned()), "{:?}", r.permission_changes);
    assert!(lines(&r).contains(&"event removed: break_done".to_owned()), "{:?}", r.permission_changes);
    let shown: Vec<_> = r.events.iter().map(|e| (e.name.as_str(), e.on)).collect();
    assert_eq!(shown, vec![("focus_done", true), ("long_break_done", false)]);
    f.store.install(&r.review, options(&[], &[], None)).expect("update");
    let d = f.store.show("pomodoro").expect("show");
    let after: Vec<_> = d.events.iter().map(|e| (e.name.as_str(), e.on)).collect();
    assert_eq!(after, vec![("focus_done", true), ("long_break_done", false)]);
    assert_eq!(f.count("SELECT COUNT(*) FROM events_on WHERE slug='pomodoro' AND event='break_done'"), 0);
    assert_eq!(d.card.status, Status::Active, "the kept token still opens");
}

#[test]
fn s18_update_keeps_switches_cloud_choice_and_twitch() {
    let f = Fixture::new();
    install_my_tasks(&f);
    f.store.set_enabled("mytasks", false).expect("off");
    f.store.set_action_enabled("mytasks", "add_task", false).expect("action off");
    f.store.set_cloud("mytasks", CloudChoice::Local).expect("cloud");
    f.store.set_twitch("mytasks", true).expect("twitch");
    // A permission-changing update, to show nothing is reset even then.
    let r = review_of(&f, "v11.json", |m| tools(m)["complete_task"]["request"]["method"] = json!("PUT"));
    assert_eq!(r.cloud, dcp_store::review::CloudQuestion::Ask);
    f.store.install(&r.review, options(&[], &[], None)).expect("the kept cloud answer is enough");
    let d = f.store.show("mytasks").expect("show");
    assert_eq!(d.card.version, "1.1.0");
    assert!(!d.card.enabled);
    assert_eq!(d.card.status, Status::Off);
    let off: Vec<_> = d.actions.iter().filter(|a| !a.enabled).map(|a| a.full_name.as_str()).collect();
    assert_eq!(off, vec!["mytasks__add_task"]);
    assert_eq!(d.cloud_choice, Some(CloudChoice::Local));
    assert!(d.card.kept_on_pc);
    assert!(d.twitch_allowed);
}

#[test]
fn s18_update_keeps_settings_still_present_and_drops_removed_ones() {
    let f = Fixture::new();
    install_my_tasks(&f);
    f.store.set_settings("mytasks", &[("max_tasks".into(), json!(20))]).expect("set");
    // Text-only update: the setting and the secret are kept (and still open).
    let r = review_of(&f, "v11.json", |m| m["display_name"] = json!("My task list"));
    assert!(r.settings.iter().all(|s| s.set), "{:?}", r.settings);
    f.store.install(&r.review, options(&[], &[], None)).expect("update");
    let d = f.store.show("mytasks").expect("show");
    assert_eq!(d.settings.iter().find(|s| s.key == "max_tasks").and_then(|s| s.value.clone()), Some(json!(20)));
    assert!(d.settings.iter().find(|s| s.key == "api_token").expect("token").set);
    assert_eq!(d.card.status, Status::Active);
    // Update that removes max_tasks: its row is dropped.
    let mut m = example("my-tasks");
    bump(&mut m, "1.2.0");
    m["user_config"].as_object_mut().expect("settings").remove("max_tasks");
    tools(&mut m)["list_tasks"]["request"]["query"].as_object_mut().expect("query").remove("limit");
    let r = f.store.import(&f.file("v12.json", &m)).expect("import");
    f.store.install(&r.review, options(&[], &[], None)).expect("update");
    assert_eq!(f.count("SELECT COUNT(*) FROM settings WHERE slug='mytasks' AND key='max_tasks'"), 0);
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets WHERE slug='mytasks' AND key='api_token'"), 1);
    assert_eq!(f.status("mytasks"), Status::Active);
}

#[test]
fn s18_update_deletes_removed_secrets_and_keeps_the_others() {
    let f = Fixture::new();
    let r = f.import_example("trello-perso").expect("import");
    f.store
        .install(
            &r.review,
            options(
                &[("board", json!("AbC123"))],
                &[("api_key", "app-key-1"), ("token", SECRET)],
                Some(CloudChoice::Allow),
            ),
        )
        .expect("install");
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets WHERE slug='trelloperso'"), 2);
    let mut m = example("trello-perso");
    bump(&mut m, "2.0.0");
    m["user_config"].as_object_mut().expect("settings").remove("api_key");
    meta(&mut m)["auth"] = json!([{ "in": "query", "name": "key", "value": "PUBLICAPPKEY" }, { "in": "query", "name": "token", "value": "{{secret.token}}" }]);
    meta(&mut m)["ui"]["labels"]["fr"].as_object_mut().expect("labels").remove("api_key");
    let r = f.store.import(&f.file("trello2.json", &m)).expect("import");
    assert!(r.permissions_changed, "where secrets are sent changed");
    f.store.install(&r.review, options(&[], &[], None)).expect("update");
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets WHERE slug='trelloperso' AND key='api_key'"), 0);
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets WHERE slug='trelloperso' AND key='token'"), 1);
    let d = f.store.show("trelloperso").expect("show");
    assert_eq!(d.card.status, Status::Active, "the kept token still opens");
    assert_eq!(d.settings.iter().find(|s| s.key == "board").and_then(|s| s.value.clone()), Some(json!("AbC123")));
}

#[test]
fn s18_review_banner_keep_survives_only_updates_without_permission_changes() {
    let f = Fixture::new();
    install_my_tasks(&f);
    assert!(f.store.show("mytasks").expect("show").review_banner);
    f.store.keep("mytasks").expect("keep");
    assert!(!f.store.show("mytasks").expect("show").review_banner);
    let r = review_of(&f, "text.json", |m| m["description"] = json!("Reads and adds tasks in your list."));
    f.store.install(&r.review, options(&[], &[], None)).expect("update");
    assert!(!f.store.show("mytasks").expect("show").review_banner, "text-only update: Keep is kept");
    let mut m = example("my-tasks");
    bump(&mut m, "1.2.0");
    meta(&mut m)["permissions"]["network"]["hosts"] = json!(["api.tasks.example.com", "files.tasks.example.com"]);
    let r = f.store.import(&f.file("host.json", &m)).expect("import");
    f.store.install(&r.review, options(&[], &[], None)).expect("update");
    assert!(f.store.show("mytasks").expect("show").review_banner, "permissions changed: asked again");
    assert_eq!(f.count("SELECT review_kept FROM plugins WHERE slug='mytasks'"), 0);
}

#[test]
fn s18_update_swaps_the_generation_folder_and_removes_the_old_one() {
    let f = Fixture::new();
    install_my_tasks(&f);
    let old = f.store.show("mytasks").expect("show").folder;
    let r = review_of(&f, "v11.json", |_| {});
    f.store.install(&r.review, options(&[], &[], None)).expect("update");
    let d = f.store.show("mytasks").expect("show");
    assert_ne!(d.folder, old);
    assert!(!old.exists());
    let bytes = std::fs::read(d.folder.join("manifest.json")).expect("new manifest");
    assert_eq!(d.manifest_fingerprint, dcp_format::fingerprint::sha256_hex(&bytes));
    assert_eq!(std::fs::read_dir(f.root().join("plugins/mytasks")).expect("slug dir").count(), 1);
}

// ------------------------------------------- §13 where private data may go

fn cloud_models(m: &mut Value, value: &str) {
    meta(m)["data"]["cloudModels"] = json!(value);
}

/// Installs my-tasks declaring `cloud`, answering `answer`, and clicks Keep
/// on the review banner.
fn install_declaring(f: &Fixture, cloud: &str, answer: Option<CloudChoice>) {
    let mut m = example("my-tasks");
    cloud_models(&mut m, cloud);
    let r = f.store.import(&f.file(&format!("v1-{cloud}.json"), &m)).expect("import");
    f.store.install(&r.review, options(&[], &[("api_token", SECRET)], answer)).expect("install");
    f.store.keep("mytasks").expect("keep");
}

fn online_line(r: &Review) -> Option<String> {
    lines(r).into_iter().find(|c| c.starts_with("your data with online AI models"))
}

/// The review's changes in the words `dcplugin` prints them (the review
/// carries them as facts).
fn lines(r: &Review) -> Vec<String> {
    r.permission_changes.iter().map(ToString::to_string).collect()
}

/// The review lists `line` as a change of permissions and asks the
/// online-AI question with no earlier answer kept: installing without an
/// answer is cloud_choice_required.
#[track_caller]
fn assert_asked_afresh(f: &Fixture, r: &Review, line: &str) {
    assert!(r.permissions_changed, "{:?}", r.permission_changes);
    assert_eq!(online_line(r).as_deref(), Some(line));
    assert_eq!((r.cloud, r.cloud_kept), (CloudQuestion::Ask, None));
    let e = f.store.install(&r.review, options(&[], &[], None)).expect_err("asked again");
    assert_eq!(code(&e), "cloud_choice_required");
}

/// §13, §18: `never` → `allowed` used to install silently ("permissions do
/// not change") and online models then read the player's tasks unasked.
/// Like `never` → `ask`, it is a change of permissions: listed, the
/// question asked again (nothing kept: the player was never asked), the
/// Keep of the banner asked again.
#[test]
fn s13_update_from_never_is_a_permission_change_asked_again() {
    for (wider, shown) in [("allowed", "allowed"), ("ask", "asked")] {
        let f = Fixture::new();
        install_declaring(&f, "never", None);
        let r = review_of(&f, "wider.json", |m| cloud_models(m, wider));
        assert_asked_afresh(&f, &r, &format!("your data with online AI models: never → {shown}"));
        let installed = f.store.install(&r.review, options(&[], &[], Some(CloudChoice::Local))).expect("answered");
        assert!(installed.permissions_changed);
        let d = f.store.show("mytasks").expect("show");
        assert_eq!(d.cloud_choice, Some(CloudChoice::Local));
        assert!(d.card.kept_on_pc, "{:?}", d.card);
        assert!(d.review_banner, "permissions changed: Keep asked again");
    }
}

/// `ask` → `allowed`: listed and asked again, and the player's earlier
/// answer still applies (it answered this very question): preselected and
/// kept when no new answer is given, "Only on this PC" included.
#[test]
fn s13_update_from_ask_to_allowed_keeps_the_earlier_answer() {
    for earlier in [CloudChoice::Local, CloudChoice::Allow] {
        let f = Fixture::new();
        install_declaring(&f, "ask", Some(earlier));
        let r = review_of(&f, "allowed.json", |m| cloud_models(m, "allowed"));
        assert!(r.permissions_changed, "{earlier:?}");
        assert_eq!(online_line(&r).as_deref(), Some("your data with online AI models: asked → allowed"));
        assert_eq!((r.cloud, r.cloud_kept), (CloudQuestion::Ask, Some(earlier)));
        f.store.install(&r.review, options(&[], &[], None)).expect("the earlier answer still applies");
        let d = f.store.show("mytasks").expect("show");
        assert_eq!(d.cloud_choice, Some(earlier));
        assert_eq!(d.card.kept_on_pc, earlier == CloudChoice::Local);
        assert!(d.review_banner);
    }
}

/// A first R1 tool under `allowed`: private data starts going to online
/// models, so the update asks too (its level change alone did not).
#[test]
fn s13_update_that_starts_reading_private_data_under_allowed_is_asked() {
    let f = Fixture::new();
    let mut m = example("my-tasks");
    cloud_models(&mut m, "allowed");
    tools(&mut m)["list_tasks"]["risk"] = json!("R0");
    let r = f.store.import(&f.file("v1.json", &m)).expect("import");
    assert_eq!(r.cloud, CloudQuestion::NotAsked, "no private data read yet");
    f.store.install(&r.review, options(&[], &[("api_token", SECRET)], None)).expect("install");
    let r = review_of(&f, "r1.json", |m| cloud_models(m, "allowed"));
    assert_asked_afresh(&f, &r, "your data with online AI models: no private data read → allowed");
}

/// What does not widen is not asked: `allowed` → `allowed` stays silent,
/// and `allowed` → `never` (narrower) is listed but asks nothing.
#[test]
fn s13_updates_that_do_not_widen_are_not_asked() {
    let f = Fixture::new();
    install_declaring(&f, "allowed", None);
    let r = review_of(&f, "same.json", |m| cloud_models(m, "allowed"));
    assert!(!r.permissions_changed, "{:?}", r.permission_changes);
    assert_eq!(r.cloud, CloudQuestion::NotAsked);
    f.store.install(&r.review, options(&[], &[], None)).expect("nothing to ask");
    let mut m = example("my-tasks");
    bump(&mut m, "1.2.0");
    cloud_models(&mut m, "never");
    let r = f.store.import(&f.file("never.json", &m)).expect("import");
    assert_eq!(online_line(&r).as_deref(), Some("your data with online AI models: allowed → never"));
    assert_eq!(r.cloud, CloudQuestion::Never);
    f.store.install(&r.review, options(&[], &[], None)).expect("narrower: nothing to ask");
}

/// §18: the same manifest imported again is no update, which the review and
/// the install both say; a changed one is.
#[test]
fn s18_the_same_manifest_again_is_said_so_and_a_changed_one_is_not() {
    let f = Fixture::new();
    let first = f.import_example("my-tasks").expect("import");
    assert!(!first.same_manifest, "nothing installed yet");
    let done = f.store.install(&first.review, options(&[], &[("api_token", SECRET)], Some(CloudChoice::Local)));
    assert!(!done.expect("install").same_manifest);
    let again = f.import_example("my-tasks").expect("import again");
    assert!(again.update && again.same_manifest);
    assert!(f.store.install(&again.review, options(&[], &[], None)).expect("install again").same_manifest);
    let newer = review_of(&f, "newer.json", |_| ());
    assert!(newer.update && !newer.same_manifest);
    assert!(!f.store.install(&newer.review, options(&[], &[], None)).expect("update").same_manifest);
}
