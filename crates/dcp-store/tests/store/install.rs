//! Import, review, install, cancel, refusals and uninstall through the
//! engine API, on a real profile folder and SQLite database (§3, §10, §12,
//! §13, §15, §16, §18, §22).

use crate::common::*;
use dcp_format::package::MANIFEST_FILE;
use dcp_store::review::CloudQuestion;
use dcp_store::{CloudChoice, Origin, StoreError};
use serde_json::json;

#[test]
fn s3_review_of_my_tasks_shows_everything_the_consent_screen_needs() {
    let f = Fixture::new();
    let r = f.import_example("my-tasks").expect("import");
    assert_eq!((r.slug.as_str(), r.name.as_str(), r.version.as_str()), ("mytasks", "My tasks", "1.0.0"));
    assert_eq!(r.author.as_deref(), Some("Your name"));
    assert_eq!(r.origin, Origin::Import);
    assert!(!r.update);
    assert_eq!(r.old_version, None);
    let actions: Vec<_> = r
        .actions
        .iter()
        .map(|a| {
            (a.full_name.as_str(), format!("{:?}", a.level), a.level.label(), a.hint.as_str(), a.method, a.url.as_str())
        })
        .collect();
    assert_eq!(
        actions,
        vec![
            (
                "mytasks__list_tasks",
                "R1".into(),
                "reads your data",
                "read your tasks",
                "GET",
                "https://api.tasks.example.com/v1/tasks"
            ),
            (
                "mytasks__add_task",
                "R2".into(),
                "reversible action",
                "add a task to your list",
                "POST",
                "https://api.tasks.example.com/v1/tasks"
            ),
            (
                "mytasks__complete_task",
                "R2".into(),
                "reversible action",
                "complete a task",
                "POST",
                "https://api.tasks.example.com/v1/tasks/{{task_id}}/close"
            ),
        ]
    );
    assert_eq!(r.sites, vec!["api.tasks.example.com".to_owned()]);
    assert!(r.local_ports.is_empty());
    assert!(r.events_door.is_none(), "no events, no events warning");
    let token = r.settings.iter().find(|s| s.key == "api_token").expect("api_token");
    assert!(token.secret && token.required && !token.set);
    assert_eq!(token.help_domain.as_deref(), Some("tasks.example.com"));
    let max = r.settings.iter().find(|s| s.key == "max_tasks").expect("max_tasks");
    assert_eq!((max.kind, max.value.clone(), max.secret), ("number", Some(json!(10)), false));
    assert_eq!(r.cloud, CloudQuestion::Ask);
    // The package waits in quarantine.
    assert!(f.root().join("quarantine").join(&r.review).join(MANIFEST_FILE).is_file());
    assert_eq!(f.count("SELECT COUNT(*) FROM reviews"), 1);
}

#[test]
fn s15_review_of_local_server_shows_this_pc_port() {
    let f = Fixture::new();
    f.dev_mode(true);
    let r = f.import_example("local-server").expect("import");
    assert!(r.sites.is_empty());
    // The port is the fact; each shell words §15's warning beside it.
    assert_eq!(r.local_ports, [8420]);
    // Every action to the PC is R2 at least (§15), even a GET.
    assert!(r.actions.iter().all(|a| a.level == dcp_format::risk::Level::R2), "{:?}", r.actions);
    assert_eq!(r.cloud, CloudQuestion::NotAsked);
}

#[test]
fn s16_review_of_pomodoro_shows_its_events_off() {
    let f = Fixture::new();
    f.dev_mode(true);
    let r = f.import_example("pomodoro").expect("import");
    let events: Vec<_> = r.events.iter().map(|e| (e.name.as_str(), e.title.as_str(), e.on)).collect();
    assert_eq!(events, vec![("focus_done", "Focus session finished", false), ("break_done", "Break finished", false)]);
    assert_eq!(r.events_door, Some(8440), "§16: the port events arrive on (each shell words its warning)");
    f.store.install(&r.review, options(&[], &[("token", SECRET)], None)).expect("install");
    let shown = f.store.show("pomodoro").expect("show");
    assert!(shown.events.iter().all(|e| !e.on), "{:?}", shown.events);
    assert_eq!(f.count("SELECT COUNT(*) FROM events_on"), 0);
}

#[test]
fn s3_install_copies_the_manifest_with_its_fingerprint_and_empties_quarantine() {
    let f = Fixture::new();
    let r = f.import_example("my-tasks").expect("import");
    let installed = f
        .store
        .install(&r.review, options(&[("max_tasks", json!("20"))], &[("api_token", SECRET)], Some(CloudChoice::Allow)))
        .expect("install");
    assert_eq!((installed.slug.as_str(), installed.version.as_str(), installed.update), ("mytasks", "1.0.0", false));
    let d = f.store.show("mytasks").expect("show");
    assert_eq!(d.card.status, Status::Active);
    assert!(d.folder.starts_with(f.root().join("plugins").join("mytasks")), "{}", d.folder.display());
    let bytes = std::fs::read(d.folder.join(MANIFEST_FILE)).expect("installed manifest");
    assert_eq!(bytes, std::fs::read(examples().join("my-tasks/manifest.json")).expect("source"));
    assert_eq!(d.manifest_fingerprint, dcp_format::fingerprint::sha256_hex(&bytes));
    assert!(!f.root().join("quarantine").join(&r.review).exists());
    assert_eq!(f.count("SELECT COUNT(*) FROM reviews"), 0);
    assert_eq!(
        f.sql()
            .query_row("SELECT value FROM settings WHERE slug='mytasks' AND key='max_tasks'", [], |r| r
                .get::<_, String>(0))
            .expect("row"),
        "20"
    );
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets WHERE slug='mytasks' AND key='api_token'"), 1);
    assert_eq!(d.cloud_choice, Some(CloudChoice::Allow));
    assert!(d.review_banner, "unsigned plugins start with the review banner");
}

#[test]
fn s3_cancel_deletes_the_quarantined_copy_and_forgets_the_review() {
    let f = Fixture::new();
    let r = f.import_example("exchange-rates").expect("import");
    let copy = f.root().join("quarantine").join(&r.review);
    assert!(copy.join(MANIFEST_FILE).is_file());
    f.store.cancel(&r.review).expect("cancel");
    assert!(!copy.exists());
    assert_eq!(f.count("SELECT COUNT(*) FROM reviews"), 0);
    assert!(matches!(f.store.review(&r.review), Err(StoreError::UnknownReview(_))));
    assert!(matches!(f.store.install(&r.review, options(&[], &[], None)), Err(StoreError::UnknownReview(_))));
    assert!(f.store.list().expect("list").is_empty());
}

#[test]
fn s22_invalid_packages_are_refused_with_the_validator_codes_and_nothing_is_kept() {
    let f = Fixture::new();
    let mut bad_slug = example("exchange-rates");
    meta(&mut bad_slug)["slug"] = json!("Bad Slug");
    let e = f.store.import(&f.file("bad-slug.json", &bad_slug)).expect_err("refused");
    assert_eq!(code(&e), "bad_slug");
    let mut undeclared = example("exchange-rates");
    meta(&mut undeclared)["tools"]["convert"]["request"]["url"] = json!("https://api.example.org/v1/latest");
    let e = f.store.import(&f.file("host.json", &undeclared)).expect_err("refused");
    assert_eq!(code(&e), "host_not_declared");
    let StoreError::Refused(problems) = &e else { panic!("{e:?}") };
    assert!(problems.errors.iter().any(|p| p.path == "tools.convert.request.url"), "{problems:?}");
    let not_json = f.dir.path().join("broken.json");
    std::fs::write(&not_json, "{ not json").expect("write");
    assert_eq!(code(&f.store.import(&not_json).expect_err("refused")), "not_json");
    let txt = f.dir.path().join("plugin.txt");
    std::fs::write(&txt, "{}").expect("write");
    assert_eq!(code(&f.store.import(&txt).expect_err("refused")), "unsupported_package");
    assert_eq!(std::fs::read_dir(f.root().join("quarantine")).expect("quarantine").count(), 0);
    assert_eq!(f.count("SELECT COUNT(*) FROM reviews"), 0);
}

#[test]
fn s15_local_server_needs_dev_mode_at_import_and_at_install() {
    let f = Fixture::new();
    let e = f.import_example("local-server").expect_err("refused");
    assert_eq!(code(&e), "dev_mode_required");
    // Imported in dev mode, then dev mode turned off before Install.
    f.dev_mode(true);
    let r = f.import_example("local-server").expect("import");
    f.dev_mode(false);
    let e = f.store.install(&r.review, options(&[], &[("token", SECRET)], None)).expect_err("refused");
    assert_eq!(code(&e), "dev_mode_required");
    assert_eq!(f.count("SELECT COUNT(*) FROM plugins"), 0);
}

#[test]
fn s19_load_folder_needs_dev_mode_and_refuses_a_folder_inside_the_plugins_folder() {
    let f = Fixture::new();
    let outside = f.dir.path().join("my-plugin");
    copy_dir(&examples().join("exchange-rates"), &outside);
    assert_eq!(code(&f.store.load_folder(&outside).expect_err("refused")), "dev_mode_required");
    f.dev_mode(true);
    let inside = f.root().join("plugins").join("mine");
    copy_dir(&examples().join("exchange-rates"), &inside);
    assert_eq!(code(&f.store.load_folder(&inside).expect_err("refused")), "bad_folder");
    assert_eq!(f.count("SELECT COUNT(*) FROM reviews"), 0);
    f.store.load_folder(&outside).expect("a folder outside the profile loads");
}

/// §19, §22 `bad_folder`: every path into the profile is refused, checked
/// before anything reads the folder: the player's own folder inside an
/// installed plugin's (it survives the sweep of the open before), the
/// installed copy, the plugins folder itself, the profile, a path that does
/// not exist, one that climbs back in with `..`.
#[test]
fn s19_load_folder_refuses_any_path_into_the_profile_and_touches_nothing() {
    let mut f = Fixture::new();
    install_my_tasks(&f);
    f.dev_mode(true);
    let mine = f.root().join("plugins/mytasks/mine");
    copy_dir(&examples().join("exchange-rates"), &mine);
    f.reopen();
    let tries = [
        mine.clone(),
        mine.join("."),
        f.root().join("plugins/mytasks"),
        generation_of(&f, "mytasks"),
        f.root().join("plugins"),
        f.root(),
        f.root().join("quarantine"),
        f.root().join("plugins/none/missing"),
        f.dir.path().join("elsewhere/../profile/plugins/mytasks/mine"),
    ];
    for dir in tries {
        let e = f.store.load_folder(&dir).expect_err("refused");
        assert_eq!(code(&e), "bad_folder", "{}", dir.display());
    }
    assert!(mine.join(MANIFEST_FILE).is_file(), "the player's folder is untouched");
    assert_eq!(f.count("SELECT COUNT(*) FROM reviews"), 0);
    assert_eq!(f.status("mytasks"), Status::Active);
}

/// §19: links count both ways: one outside pointing into the plugins
/// folder, and one inside it pointing out.
#[cfg(unix)]
#[test]
fn s19_load_folder_refuses_links_into_and_out_of_the_plugins_folder() {
    let f = Fixture::new();
    f.dev_mode(true);
    let mine = f.root().join("plugins/mine/sub");
    copy_dir(&examples().join("exchange-rates"), &mine);
    let outside = f.dir.path().join("outside");
    copy_dir(&examples().join("exchange-rates"), &outside);
    let link_in = f.dir.path().join("link-in");
    std::os::unix::fs::symlink(&mine, &link_in).expect("link in");
    let link_out = f.root().join("plugins/link-out");
    std::os::unix::fs::symlink(&outside, &link_out).expect("link out");
    for dir in [link_in, link_out] {
        let e = f.store.load_folder(&dir).expect_err("refused");
        assert_eq!(code(&e), "bad_folder", "{}", dir.display());
    }
    assert!(mine.join(MANIFEST_FILE).is_file());
    f.store.load_folder(&outside).expect("the folder itself loads");
}

#[test]
fn s22_missing_settings_and_cloud_choice_required() {
    let f = Fixture::new();
    let r = f.import_example("my-tasks").expect("import");
    let e = f.store.install(&r.review, options(&[], &[], Some(CloudChoice::Allow))).expect_err("refused");
    assert_eq!(code(&e), "missing_settings");
    assert!(matches!(&e, StoreError::MissingSettings(keys) if keys == &vec!["api_token".to_owned()]), "{e:?}");
    let e = f.store.install(&r.review, options(&[], &[("api_token", SECRET)], None)).expect_err("refused");
    assert_eq!(code(&e), "cloud_choice_required");
    assert_eq!(f.count("SELECT COUNT(*) FROM plugins"), 0);
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets"), 0);
    // The review is still pending: the player fixes the options and installs.
    f.store.install(&r.review, options(&[], &[("api_token", SECRET)], Some(CloudChoice::Local))).expect("install");
    let card = f.store.show("mytasks").expect("show").card;
    assert_eq!((card.origin, card.kept_on_pc, card.local_ports), (dcp_store::Origin::Import, true, vec![]));
}

fn bad_reason(e: &StoreError, key: &str) -> &'static str {
    let StoreError::BadSettings { refused: list, .. } = e else { panic!("expected bad_settings, got {e:?}") };
    list.iter().find(|(k, _)| k == key).map(|(_, r)| r.reason.as_str()).unwrap_or("<no refusal for key>")
}

#[test]
fn s22_bad_settings_with_each_reason() {
    let f = Fixture::new();
    let tasks = f.import_example("my-tasks").expect("import").review;
    let trello = f.import_example("trello-perso").expect("import").review;
    let secrets = [("api_key", "key-1"), ("token", SECRET)];
    type Case<'a> = (&'a str, &'a str, Vec<(&'a str, serde_json::Value)>, &'a str);
    let cases: Vec<Case> = vec![
        (&tasks, "max_tasks", vec![("max_tasks", json!("ten"))], "bad_type"),
        (&tasks, "max_tasks", vec![("max_tasks", json!(true))], "bad_type"),
        (&tasks, "max_tasks", vec![("max_tasks", json!("99"))], "out_of_bounds"),
        (&tasks, "max_tasks", vec![("max_tasks", json!(0))], "out_of_bounds"),
        (&trello, "board", vec![("board", json!("abc\u{200b}def"))], "bad_text"),
        (&trello, "board", vec![("board", json!("a".repeat(65)))], "bad_text"),
        (&trello, "board", vec![("board", json!("https://trello.com/b/AbC123/my-board"))], "bad_format"),
        (&trello, "board", vec![("board", json!("my board"))], "bad_format"),
        (&trello, "board", vec![("board", json!("   "))], "empty"),
        (&trello, "nope", vec![("board", json!("AbC123")), ("nope", json!("1"))], "unknown_setting"),
    ];
    for (review, key, settings, reason) in cases {
        let sec: &[(&str, &str)] = if review == trello { &secrets } else { &[("api_token", SECRET)] };
        let e = f.store.install(review, options(&settings, sec, Some(CloudChoice::Allow))).expect_err("refused");
        assert_eq!(code(&e), "bad_settings", "{settings:?}");
        assert_eq!(bad_reason(&e, key), reason, "{settings:?}: {e}");
    }
    // A pasted URL says what to copy.
    let e = f
        .store
        .install(
            &trello,
            options(&[("board", json!("https://trello.com/b/AbC123/x"))], &secrets, Some(CloudChoice::Allow)),
        )
        .expect_err("refused");
    assert_eq!((code(&e).as_str(), bad_reason(&e, "board")), ("bad_settings", "bad_format"), "{e}");
    assert!(e.to_string().contains("paste only the id"), "the words say what to copy: {e}");
    // A secret too long is bad_text, and its value is never repeated.
    let long = "s".repeat(201);
    let e =
        f.store.install(&tasks, options(&[], &[("api_token", &long)], Some(CloudChoice::Allow))).expect_err("refused");
    assert_eq!(bad_reason(&e, "api_token"), "bad_text");
    assert!(!e.to_string().contains(&long));
    // A secret given as a setting is refused, not stored in clear.
    let e = f
        .store
        .install(&tasks, options(&[("api_token", json!(SECRET))], &[], Some(CloudChoice::Allow)))
        .expect_err("refused");
    assert_eq!(bad_reason(&e, "api_token"), "bad_type");
    assert!(!contains(&f.db_bytes(), SECRET));
    assert_eq!(f.count("SELECT COUNT(*) FROM plugins"), 0);
    // An id with spaces around it is trimmed and accepted.
    f.store
        .install(&trello, options(&[("board", json!("  AbC123  "))], &secrets, Some(CloudChoice::Allow)))
        .expect("install");
    let board =
        f.store.show("trelloperso").expect("show").settings.into_iter().find(|s| s.key == "board").expect("board");
    assert_eq!(board.value, Some(json!("AbC123")));
}

#[test]
fn s22_bad_settings_when_saving_stores_nothing() {
    let f = Fixture::new();
    install_my_tasks(&f);
    let e = f
        .store
        .set_settings("mytasks", &[("max_tasks".into(), json!("7")), ("max_tasks".into(), json!("500"))])
        .expect_err("refused");
    assert_eq!(bad_reason(&e, "max_tasks"), "out_of_bounds");
    assert_eq!(f.count("SELECT COUNT(*) FROM settings WHERE slug='mytasks' AND key='max_tasks'"), 0, "all or nothing");
    let e = f.store.set_settings("mytasks", &[("colour".into(), json!("red"))]).expect_err("refused");
    assert_eq!(bad_reason(&e, "colour"), "unknown_setting");
    f.store.set_settings("mytasks", &[("max_tasks".into(), json!("7"))]).expect("saved");
    assert_eq!(
        f.sql()
            .query_row("SELECT value FROM settings WHERE slug='mytasks' AND key='max_tasks'", [], |r| r
                .get::<_, String>(0))
            .expect("row"),
        "7"
    );
}

#[test]
fn s22_vault_unavailable_writes_nothing_in_clear() {
    let f = Fixture::with_keys(std::sync::Arc::new(dcp_vault::testing::UnavailableKeyStore));
    let r = f.import_example("my-tasks").expect("import");
    let e = f
        .store
        .install(&r.review, options(&[], &[("api_token", SECRET)], Some(CloudChoice::Allow)))
        .expect_err("refused");
    assert_eq!(code(&e), "vault_unavailable");
    assert!(!e.to_string().contains(SECRET));
    assert_eq!(f.count("SELECT COUNT(*) FROM plugins"), 0);
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets"), 0);
    assert!(!f.root().join("plugins").join("mytasks").exists(), "no files written before the vault said no");
    assert!(!contains(&f.db_bytes(), SECRET));
    // A plugin without secrets still installs.
    let fx = f.import_example("exchange-rates").expect("import");
    f.store.install(&fx.review, options(&[], &[], None)).expect("install");
}

#[test]
fn s22_vault_unavailable_when_replacing_a_secret_keeps_the_old_one() {
    let mut f = Fixture::new();
    install_my_tasks(&f);
    let sealed_before: Vec<u8> =
        f.sql().query_row("SELECT sealed FROM secrets WHERE slug='mytasks'", [], |r| r.get(0)).expect("row");
    f.keys = std::sync::Arc::new(dcp_vault::testing::UnavailableKeyStore);
    f.reopen();
    let e = f.store.set_secret("mytasks", "api_token", "another-secret-value-123".into()).expect_err("refused");
    assert_eq!(code(&e), "vault_unavailable");
    let sealed_after: Vec<u8> =
        f.sql().query_row("SELECT sealed FROM secrets WHERE slug='mytasks'", [], |r| r.get(0)).expect("row");
    assert_eq!(sealed_before, sealed_after);
    assert!(!contains(&f.db_bytes(), "another-secret-value-123"));
}

#[test]
fn s18_uninstall_removes_files_settings_secrets_and_switches() {
    let f = Fixture::new();
    install_my_tasks(&f);
    f.store.set_settings("mytasks", &[("max_tasks".into(), json!(5))]).expect("set");
    f.store.set_action_enabled("mytasks", "add_task", false).expect("off");
    let folder = f.store.show("mytasks").expect("show").folder;
    assert!(folder.join(MANIFEST_FILE).is_file());
    f.store.uninstall("mytasks").expect("uninstall");
    assert!(!folder.exists());
    assert!(!f.root().join("plugins").join("mytasks").exists());
    for table in ["plugins", "settings", "secrets", "tools_off", "events_on"] {
        assert_eq!(f.count(&format!("SELECT COUNT(*) FROM {table} WHERE slug='mytasks'")), 0, "{table}");
    }
    assert!(matches!(f.store.show("mytasks"), Err(StoreError::UnknownPlugin(_))));
    assert!(matches!(f.store.uninstall("mytasks"), Err(StoreError::UnknownPlugin(_))));
    // Installing again starts from scratch: nothing of the old settings.
    install_my_tasks(&f);
    assert_eq!(f.count("SELECT COUNT(*) FROM settings WHERE slug='mytasks'"), 0);
    assert_eq!(f.count("SELECT COUNT(*) FROM tools_off WHERE slug='mytasks'"), 0);
}

#[test]
fn s18_official_catalog_lists_todoist_and_trello_and_installs_as_official() {
    let f = Fixture::new();
    let slugs: Vec<_> = f.store.catalog().expect("catalog").into_iter().map(|e| e.slug).collect();
    assert!(slugs.contains(&"todoist") && slugs.contains(&"trello"), "{slugs:?}");
    let r = f.store.import_official("todoist").expect("review");
    assert_eq!(r.origin, Origin::Official);
    f.store.install(&r.review, options(&[], &[("api_token", SECRET)], Some(CloudChoice::Allow))).expect("install");
    let d = f.store.show("todoist").expect("show");
    assert_eq!(
        (d.card.origin, d.card.kept_on_pc, d.card.local_ports.clone()),
        (dcp_store::Origin::Official, false, vec![])
    );
    assert_eq!(d.card.status, Status::Active);
    assert!(!d.review_banner, "official plugins have no review banner");
    let e = f.store.import_official("nothing").expect_err("not in the catalog");
    assert!(matches!(e, StoreError::NoSuchName(_)), "{e:?}");
}

#[test]
fn s22_a_user_file_with_an_official_slug_is_reserved_slug() {
    let f = Fixture::new();
    for slug in ["todoist", "trello"] {
        let mut m = example("my-tasks");
        meta(&mut m)["slug"] = json!(slug);
        let e = f.store.import(&f.file(&format!("{slug}.json"), &m)).expect_err("refused");
        assert_eq!(code(&e), "reserved_slug", "{slug}");
    }
    assert_eq!(f.count("SELECT COUNT(*) FROM reviews"), 0);
}

#[test]
fn s3_a_quarantined_package_changed_after_its_review_is_not_installed() {
    let f = Fixture::new();
    let r = f.import_example("exchange-rates").expect("import");
    assert_eq!(r.sites, vec!["api.frankfurter.dev".to_owned()]);
    // Something rewrites the waiting copy: the player consented to other permissions.
    let mut m = example("exchange-rates");
    meta(&mut m)["permissions"]["network"]["hosts"] = json!(["api.frankfurter.dev", "collector.example.com"]);
    let copy = f.root().join("quarantine").join(&r.review).join(MANIFEST_FILE);
    std::fs::write(&copy, serde_json::to_string(&m).expect("json")).expect("tamper");
    let e = f.store.install(&r.review, options(&[], &[], None)).expect_err("refused");
    assert!(matches!(e, StoreError::ReviewOutdated(_)), "{e:?}");
    assert_eq!(f.count("SELECT COUNT(*) FROM plugins"), 0);
    // Importing again shows the new permissions for a new consent.
    let again = f.store.import(&copy).expect("import again");
    assert!(again.sites.contains(&"collector.example.com".to_owned()));
    f.store.install(&again.review, options(&[], &[], None)).expect("install");
}

#[test]
fn s19_a_folder_saved_between_its_review_and_install_needs_a_new_review() {
    let f = Fixture::new();
    f.dev_mode(true);
    let folder = f.dir.path().join("fx-dev");
    copy_dir(&examples().join("exchange-rates"), &folder);
    let r = f.store.load_folder(&folder).expect("load");
    let mut m = example("exchange-rates");
    meta(&mut m)["permissions"]["network"]["hosts"] = json!(["api.frankfurter.dev", "collector.example.com"]);
    std::fs::write(folder.join(MANIFEST_FILE), serde_json::to_string(&m).expect("json")).expect("save");
    let e = f.store.install(&r.review, options(&[], &[], None)).expect_err("saved since its review");
    assert!(matches!(e, StoreError::ReviewOutdated(_)), "{e:?}");
    assert_eq!(f.count("SELECT COUNT(*) FROM plugins"), 0);
    let r = f.store.load_folder(&folder).expect("load again");
    assert!(r.sites.contains(&"collector.example.com".to_owned()));
    f.store.install(&r.review, options(&[], &[], None)).expect("install");
}

#[test]
fn s3_a_profile_from_before_review_fingerprints_upgrades_and_its_pending_review_installs() {
    let mut f = Fixture::new();
    let r = f.import_example("exchange-rates").expect("import");
    // Bring the database back to schema 2, as an older build left it.
    let sql = f.sql();
    let triggers: Vec<String> = sql
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("triggers");
    for trigger in triggers {
        sql.execute_batch(&format!("DROP TRIGGER {trigger}")).expect("drop trigger");
    }
    sql.execute_batch(
        "ALTER TABLE journal DROP COLUMN ended_at; ALTER TABLE journal DROP COLUMN client; DROP TABLE ai_connection; ALTER TABLE journal DROP COLUMN confirmation; ALTER TABLE journal DROP COLUMN kind; DROP INDEX journal_failures; DROP TABLE failed_calls; ALTER TABLE journal ADD COLUMN detail TEXT; DROP TABLE generation; ALTER TABLE reviews DROP COLUMN manifest_fingerprint; DROP TABLE event_tokens; ALTER TABLE turns DROP COLUMN steps; PRAGMA user_version = 2;",
    )
    .expect("downgrade");
    drop(sql);
    f.reopen();
    let version: i64 = f.sql().query_row("PRAGMA user_version", [], |r| r.get(0)).expect("version");
    assert_eq!(
        version, 14,
        "every later migration applied again (4: event tokens, 5: turn steps, 6: generation, 7: failed calls, \
         8: the recent errors' index, 9: the journal's kind, 10: an R3 call's confirmation, 11: the companion's AI, 12: the AI app that asked, \
         13: where a confirmed call ended, 14: the AI's answer length)"
    );
    assert_eq!(f.count("SELECT COUNT(*) FROM reviews WHERE manifest_fingerprint IS NULL"), 1);
    f.store
        .install(&r.review, options(&[], &[], None))
        .expect("a review without a recorded fingerprint still installs");
    assert_eq!(f.status("fx"), Status::Active);
}

// ------------------------------------------------- copies left by a killed writer

/// What a process killed while writing a copy leaves: the copy's folder,
/// named by no row, and its lock file, which nobody holds any more.
fn killed_writer_copy(f: &Fixture, copy: &std::path::Path) {
    std::fs::create_dir_all(copy).expect("copy folder");
    std::fs::write(copy.join(MANIFEST_FILE), b"{}").expect("half-written copy");
    let id = copy.file_name().expect("id").to_string_lossy().into_owned();
    std::fs::create_dir_all(f.root().join("locks")).expect("locks");
    std::fs::write(f.root().join(format!("locks/copy-{id}.lock")), b"").expect("stale lock file");
}

fn generations(f: &Fixture) -> usize {
    std::fs::read_dir(f.root().join("plugins/mytasks")).expect("slug folder").count()
}

/// §18: an install or update killed before its commit leaves its generation
/// folder, and an import killed before its review row its quarantined
/// copy. No live process holds their locks, so the next open removes them
/// at once (they used to wait ten minutes, and a clean update afterwards
/// still left them), without touching the installed plugin.
#[test]
fn s18_copies_of_a_killed_writer_are_removed_at_the_next_open() {
    let mut f = Fixture::new();
    install_my_tasks(&f);
    let generation = f.root().join("plugins/mytasks/00deadbeef000001");
    let quarantined = f.root().join("quarantine/00deadbeef000002");
    killed_writer_copy(&f, &generation);
    killed_writer_copy(&f, &quarantined);
    assert_eq!(generations(&f), 2);
    f.reopen();
    assert!(!generation.exists() && !quarantined.exists(), "leftovers removed at once");
    assert!(!f.root().join("locks/copy-00deadbeef000001.lock").exists(), "their lock files too");
    assert_eq!(generations(&f), 1);
    assert_eq!(f.status("mytasks"), Status::Active);
}

/// The same leftovers are removed by the next install too: a clean update
/// after a killed one leaves exactly one generation.
#[test]
fn s18_copies_of_a_killed_writer_are_removed_by_the_next_install() {
    let f = Fixture::new();
    install_my_tasks(&f);
    killed_writer_copy(&f, &f.root().join("plugins/mytasks/00deadbeef000003"));
    killed_writer_copy(&f, &f.root().join("plugins/mytasks/00deadbeef000004"));
    let mut m = example("my-tasks");
    m["version"] = json!("1.1.0");
    let r = f.store.import(&f.file("v11.json", &m)).expect("import");
    f.store.install(&r.review, options(&[], &[], None)).expect("update");
    assert_eq!(generations(&f), 1, "only the installed generation is left");
    assert_eq!(f.status("mytasks"), Status::Active);
}

/// A copy whose lock a live process holds (another `dcplugin` or the app,
/// writing it right now) is kept however often the profile is opened or
/// installed into; once that process lets go without naming it, it goes.
#[test]
fn s18_a_copy_being_written_under_its_lock_is_kept() {
    let mut f = Fixture::new();
    install_my_tasks(&f);
    let copy = f.root().join("plugins/mytasks/00deadbeef000005");
    killed_writer_copy(&f, &copy);
    let writer = std::fs::OpenOptions::new()
        .write(true)
        .open(f.root().join("locks/copy-00deadbeef000005.lock"))
        .expect("the writer's lock file");
    writer.lock().expect("held by the live writer");
    f.reopen();
    let r = f.import_example("exchange-rates").expect("import");
    f.store.install(&r.review, options(&[], &[], None)).expect("install");
    assert!(copy.join(MANIFEST_FILE).is_file(), "a copy being written is kept");
    drop(writer);
    f.reopen();
    assert!(!copy.exists(), "removed once its writer is gone");
}

/// The folder a plugin's row names.
fn generation_of(f: &Fixture, slug: &str) -> std::path::PathBuf {
    let dir: String = f.sql().query_row("SELECT dir FROM plugins WHERE slug = ?1", [slug], |r| r.get(0)).expect("row");
    f.root().join(dir)
}

/// §18, §19: the sweep deletes only what the store wrote. A folder a player
/// or another program put in `plugins/` or `quarantine/` survives an open
/// and an install whatever its name (one named like a copy carries no
/// mark), and so does a copy of an installed generation put elsewhere by
/// hand (its mark names another place).
#[test]
fn s18_s19_folders_the_store_did_not_write_survive_the_sweep() {
    let mut f = Fixture::new();
    install_my_tasks(&f);
    let generation = generation_of(&f, "mytasks");
    let backup = f.root().join("plugins/backup").join(generation.file_name().expect("id"));
    copy_dir(&generation, &backup);
    let foreign =
        ["plugins/mytasks/mine", "plugins/mine/sub", "plugins/mytasks/00deadbeef0000aa", "quarantine/00deadbeef0000bb"]
            .map(|place| f.root().join(place));
    for dir in &foreign {
        copy_dir(&examples().join("exchange-rates"), dir);
    }
    f.reopen();
    let r = f.import_example("exchange-rates").expect("import");
    f.store.install(&r.review, options(&[], &[], None)).expect("install");
    for dir in foreign.iter().chain([&backup]) {
        assert!(dir.join(MANIFEST_FILE).is_file(), "{} is kept", dir.display());
    }
    assert!(!f.root().join("locks/copy-mine.lock").exists(), "no lock file made for a folder not the store's");
    assert_eq!(f.status("mytasks"), Status::Active);
    assert_eq!(f.status("fx"), Status::Active);
}

/// §18: a copy the store wrote is still swept once no row names it, with no
/// lock file left: what a process killed after its commit (an install's
/// quarantined copy, an uninstall's generation) leaves.
#[test]
fn s18_copies_the_store_wrote_that_no_row_names_are_removed_at_the_next_open() {
    let mut f = Fixture::new();
    install_my_tasks(&f);
    let generation = generation_of(&f, "mytasks");
    let r = f.import_example("exchange-rates").expect("import");
    let quarantined = f.root().join("quarantine").join(&r.review);
    f.sql()
        .execute_batch("DELETE FROM plugins WHERE slug = 'mytasks'; DELETE FROM reviews;")
        .expect("rows gone, folders left");
    assert!(generation.join(MANIFEST_FILE).is_file() && quarantined.join(MANIFEST_FILE).is_file());
    f.reopen();
    assert!(!generation.exists() && !quarantined.exists(), "both removed");
}

/// §18: uninstall racing an update of the same plugin in another process
/// (two stores on one profile) never leaves a generation folder that no
/// row names: either the plugin is gone with all its folders, or the
/// update won and exactly its generation is left.
#[test]
fn s18_uninstall_racing_an_update_leaves_no_orphan_folder() {
    for round in 0..8 {
        let f = Fixture::new();
        install_my_tasks(&f);
        let mut m = example("my-tasks");
        m["version"] = json!("1.1.0");
        let r = f.store.import(&f.file("v11.json", &m)).expect("import");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let run = |uninstall: bool| {
            let (root, keys, barrier, id) = (f.root(), f.keys.clone(), barrier.clone(), r.review.clone());
            std::thread::spawn(move || {
                let store = dcp_store::Store::open(dcp_store::Profile::at(root).expect("profile"), keys).expect("open");
                barrier.wait();
                if uninstall {
                    store.uninstall("mytasks").is_ok()
                } else {
                    store.install(&id, options(&[], &[], None)).is_ok()
                }
            })
        };
        let (update, uninstall) = (run(false), run(true));
        let (updated, uninstalled) = (update.join().expect("update"), uninstall.join().expect("uninstall"));
        let rows = f.count("SELECT COUNT(*) FROM plugins WHERE slug='mytasks'");
        let left = std::fs::read_dir(f.root().join("plugins/mytasks")).map_or(0, |d| d.count());
        assert_eq!(left as i64, rows, "round {round}: updated {updated}, uninstalled {uninstalled}");
    }
}
