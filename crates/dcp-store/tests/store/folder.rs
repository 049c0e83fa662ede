//! Folder plugins (§19 "Load a folder"): read in place, reloaded without a
//! new consent, never deleted.

use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Pomodoro loaded from a folder of its own, with its token, focus_done on.
fn loaded(f: &Fixture) -> PathBuf {
    f.dev_mode(true);
    let folder = f.dir.path().join("pomodoro-dev");
    copy_dir(&examples().join("pomodoro"), &folder);
    let r = f.store.load_folder(&folder).expect("load");
    assert_eq!(r.origin, dcp_store::Origin::Folder);
    assert!(!f.root().join("quarantine").join(&r.review).exists(), "nothing is copied");
    f.store.install(&r.review, options(&[], &[("token", SECRET)], None)).expect("install");
    f.store.set_event_enabled("pomodoro", "focus_done", true).expect("event on");
    folder
}

fn save(folder: &Path, m: &Value) {
    std::fs::write(folder.join("manifest.json"), serde_json::to_string_pretty(m).expect("json")).expect("save");
}

#[test]
fn s19_load_folder_reads_in_place_and_records_the_folder() {
    let f = Fixture::new();
    let folder = loaded(&f);
    let d = f.store.show("pomodoro").expect("show");
    assert_eq!(d.folder, dunce::canonicalize(&folder).expect("canonical"));
    assert_eq!(d.card.origin, dcp_store::Origin::Folder);
    assert_eq!(d.card.status, Status::Active);
    assert!(!d.review_banner);
    assert!(!f.root().join("plugins").join("pomodoro").exists(), "no copy in the plugins folder");
}

#[test]
fn s19_reload_applies_new_permissions_without_consent_new_events_off_settings_kept() {
    let f = Fixture::new();
    let folder = loaded(&f);
    let before = f.store.show("pomodoro").expect("show");
    let mut m = example("pomodoro");
    m["version"] = json!("1.1.0");
    meta(&mut m)["permissions"]["network"]["local"]["ports"] = json!([8421, 8422]);
    meta(&mut m)["tools"]["status"]["request"]["url"] = json!("http://127.0.0.1:8422/status");
    meta(&mut m)["events"]["long_break_done"] = json!({"title": {"en": "Long break finished"}});
    save(&folder, &m);
    let statuses = f.store.reload().expect("reload");
    assert_eq!(statuses.iter().find(|e| e.slug == "pomodoro").expect("entry").status, Status::Active);
    let d = f.store.show("pomodoro").expect("show");
    assert_eq!(d.card.version, "1.1.0");
    assert_eq!(d.card.local_ports, vec![8421, 8422], "new permissions apply at once");
    assert_ne!(d.permissions_fingerprint, before.permissions_fingerprint);
    assert_eq!(
        d.manifest_fingerprint,
        dcp_format::fingerprint::sha256_hex(&std::fs::read(folder.join("manifest.json")).expect("read"))
    );
    assert!(d.actions.iter().any(|a| a.url == "http://127.0.0.1:8422/status"));
    let events: Vec<_> = d.events.iter().map(|e| (e.name.as_str(), e.on)).collect();
    assert_eq!(events, vec![("focus_done", true), ("break_done", false), ("long_break_done", false)]);
    assert!(d.settings.iter().find(|s| s.key == "token").expect("token").set, "the secret is kept");
    assert_eq!(f.count("SELECT COUNT(*) FROM reviews"), 0, "no new consent");
    // An event removed from the folder loses its switch.
    meta(&mut m)["events"].as_object_mut().expect("events").remove("focus_done");
    save(&folder, &m);
    f.store.reload().expect("reload");
    assert_eq!(f.count("SELECT COUNT(*) FROM events_on WHERE slug='pomodoro'"), 0);
}

#[test]
fn s19_an_invalid_save_shows_invalid_with_errors_and_a_fix_brings_it_back() {
    let f = Fixture::new();
    let folder = loaded(&f);
    std::fs::write(folder.join("manifest.json"), "{ \"name\": ").expect("broken save");
    f.store.reload().expect("reload");
    let d = f.store.show("pomodoro").expect("show");
    assert_eq!(d.card.status, Status::Invalid);
    assert!(d.errors.iter().any(|p| p.code.as_str() == "not_json"), "{:?}", d.errors);
    let mut m = example("pomodoro");
    meta(&mut m)["tools"]["stop"]["hint"] = json!({"fr": "arrêter"});
    save(&folder, &m);
    let d = f.store.show("pomodoro").expect("show");
    assert_eq!(d.card.status, Status::Invalid);
    assert!(d.errors.iter().any(|p| p.code.as_str() == "bad_hint"), "{:?}", d.errors);
    save(&folder, &example("pomodoro"));
    f.store.reload().expect("reload");
    let d = f.store.show("pomodoro").expect("show");
    assert_eq!(d.card.status, Status::Active);
    assert!(d.errors.is_empty());
    assert!(d.settings.iter().find(|s| s.key == "token").expect("token").set);
}

#[test]
fn s19_a_changed_slug_is_invalid_until_the_folder_is_loaded_again() {
    let f = Fixture::new();
    let folder = loaded(&f);
    let mut m = example("pomodoro");
    meta(&mut m)["slug"] = json!("pomo2");
    save(&folder, &m);
    let statuses = f.store.reload().expect("reload");
    assert_eq!(statuses.len(), 1);
    let d = f.store.show("pomodoro").expect("show");
    assert_eq!(d.card.status, Status::Invalid);
    assert!(d.errors.iter().any(|p| p.message.contains("pomo2")), "{:?}", d.errors);
    assert!(matches!(f.store.show("pomo2"), Err(dcp_store::StoreError::UnknownPlugin(_))));
}

#[test]
fn s19_uninstall_never_deletes_the_folder() {
    let f = Fixture::new();
    let folder = loaded(&f);
    let files: Vec<_> = std::fs::read_dir(&folder).expect("dir").flatten().map(|e| e.file_name()).collect();
    f.store.uninstall("pomodoro").expect("uninstall");
    let after: Vec<_> =
        std::fs::read_dir(&folder).expect("folder still there").flatten().map(|e| e.file_name()).collect();
    assert_eq!(files, after);
    assert_eq!(f.count("SELECT COUNT(*) FROM plugins"), 0);
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets"), 0);
    // Cancel of a folder review never deletes the folder either.
    let r = f.store.load_folder(&folder).expect("load");
    f.store.cancel(&r.review).expect("cancel");
    assert!(folder.join("manifest.json").is_file());
}

#[test]
fn s19_dev_mode_off_pauses_a_folder_plugin() {
    let f = Fixture::new();
    let folder = f.dir.path().join("fx-dev");
    f.dev_mode(true);
    copy_dir(&examples().join("exchange-rates"), &folder);
    let r = f.store.load_folder(&folder).expect("load");
    f.store.install(&r.review, options(&[], &[], None)).expect("install");
    f.dev_mode(false);
    assert_eq!(f.status("fx"), Status::DevModeOff);
    f.dev_mode(true);
    assert_eq!(f.status("fx"), Status::Active);
}

#[test]
fn s19_importing_the_file_to_share_updates_the_folder_plugin_and_keeps_settings() {
    let f = Fixture::new();
    let folder = loaded(&f);
    let r = f.store.import(&folder.join("manifest.json")).expect("import");
    assert!(r.update);
    f.store.install(&r.review, options(&[], &[], None)).expect("install");
    let d = f.store.show("pomodoro").expect("show");
    assert_eq!(d.card.origin, dcp_store::Origin::Import);
    assert_eq!(d.card.status, Status::Active, "the secret is kept");
    assert!(d.folder.starts_with(f.root().join("plugins")));
    assert!(folder.join("manifest.json").is_file(), "the dev folder is left alone");
}

/// §19: a saved folder is one state for every reader, even before any
/// reload: the card's version and the details' ports are the file's, as
/// calls already use it.
#[test]
fn s19_a_saved_folder_reads_the_same_for_list_show_and_calls_before_a_reload() {
    let f = Fixture::new();
    let folder = loaded(&f);
    let mut m = example("pomodoro");
    m["version"] = json!("1.2.0");
    meta(&mut m)["permissions"]["network"]["local"]["ports"] = json!([8421, 8423]);
    save(&folder, &m);
    let card = f.store.list().expect("list").into_iter().find(|c| c.slug == "pomodoro").expect("card");
    assert_eq!(card.version, "1.2.0");
    assert!(card.local_ports.contains(&8423), "{:?}", card.local_ports);
    let d = f.store.show("pomodoro").expect("show");
    assert_eq!(d.card.local_ports, [8421, 8423]);
    let context = f.store.call_context("pomodoro").expect("context").expect("installed");
    assert_eq!(context.plugin.as_ref().expect("valid").local_ports, [8421, 8423]);
}
