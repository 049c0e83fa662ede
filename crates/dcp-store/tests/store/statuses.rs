//! Statuses and badges (§18, §13, §15), driven by real files on disk and
//! the profile's switches.

use crate::common::*;
use dcp_store::{Origin, Status, StoreError};
use serde_json::json;

#[test]
fn s18_active_then_off_by_the_plugin_switch_and_by_plugins_enabled() {
    let f = Fixture::new();
    install_my_tasks(&f);
    assert_eq!(f.status("mytasks"), Status::Active);
    f.store.set_enabled("mytasks", false).expect("off");
    let list = f.store.list().expect("list");
    assert_eq!((list[0].status, list[0].enabled), (Status::Off, false));
    f.store.set_enabled("mytasks", true).expect("on");
    f.store.set_pref("plugins_enabled", "false").expect("pref");
    assert_eq!(f.status("mytasks"), Status::Off);
    assert!(f.store.show("mytasks").expect("show").card.enabled, "the plugin's own switch is untouched");
    f.store.set_pref("plugins_enabled", "true").expect("pref");
    assert_eq!(f.status("mytasks"), Status::Active);
}

#[test]
fn s18_tools_off_when_enable_tools_is_off() {
    let f = Fixture::new();
    install_my_tasks(&f);
    f.store.set_pref("tools_enabled", "false").expect("pref");
    assert_eq!(f.status("mytasks"), Status::ToolsOff);
    f.store.set_pref("tools_enabled", "true").expect("pref");
    assert_eq!(f.status("mytasks"), Status::Active);
}

#[test]
fn s10_needs_setup_after_clearing_a_required_secret_and_active_when_set_again() {
    let f = Fixture::new();
    install_my_tasks(&f);
    f.store.clear_secret("mytasks", "api_token").expect("clear");
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets WHERE slug='mytasks'"), 0);
    assert_eq!(f.status("mytasks"), Status::NeedsSetup);
    assert!(!f.store.show("mytasks").expect("show").settings.iter().find(|s| s.key == "api_token").expect("token").set);
    f.store.set_secret("mytasks", "api_token", SECRET.into()).expect("set");
    assert_eq!(f.status("mytasks"), Status::Active);
}

#[test]
fn s3_modified_when_the_installed_manifest_is_edited_and_import_again_fixes_it() {
    let f = Fixture::new();
    install_my_tasks(&f);
    let folder = f.store.show("mytasks").expect("show").folder;
    let path = folder.join("manifest.json");
    let text = std::fs::read_to_string(&path).expect("manifest");
    std::fs::write(&path, text.replace("read your tasks", "read all your tasks")).expect("edit");
    let d = f.store.show("mytasks").expect("show");
    assert_eq!(d.card.status, Status::Modified);
    assert_eq!(d.card.status, Status::Modified);
    // Switches that need the manifest are refused while Modified.
    let e = f.store.set_action_enabled("mytasks", "add_task", false).expect_err("Modified");
    assert!(matches!(e, StoreError::NotReadable(_)), "{e:?}");
    // Importing the original file again installs it anew (an update).
    let r = f.import_example("my-tasks").expect("import again");
    assert!(r.update);
    f.store.install(&r.review, options(&[], &[], None)).expect("install");
    assert_eq!(f.status("mytasks"), Status::Active);
}

#[test]
fn s18_missing_when_the_installed_file_is_deleted() {
    let f = Fixture::new();
    install_my_tasks(&f);
    let folder = f.store.show("mytasks").expect("show").folder;
    std::fs::remove_file(folder.join("manifest.json")).expect("delete");
    let d = f.store.show("mytasks").expect("show");
    assert_eq!(d.card.status, Status::Missing);
    assert!(!d.errors.is_empty(), "the details say what is missing");
    std::fs::remove_dir_all(&folder).expect("delete folder");
    assert_eq!(f.store.list().expect("list")[0].status, Status::Missing);
}

#[test]
fn s18_invalid_folder_plugin_saved_with_an_error_lists_its_errors() {
    let f = Fixture::new();
    f.dev_mode(true);
    let folder = f.dir.path().join("dev-fx");
    copy_dir(&examples().join("exchange-rates"), &folder);
    let r = f.store.load_folder(&folder).expect("load");
    f.store.install(&r.review, options(&[], &[], None)).expect("install");
    assert_eq!(f.status("fx"), Status::Active);
    let mut m = example("exchange-rates");
    meta(&mut m)["tools"]["convert"]["request"]["url"] = json!("https://api.example.org/v1/latest");
    std::fs::write(folder.join("manifest.json"), serde_json::to_string(&m).expect("json")).expect("save");
    let d = f.store.show("fx").expect("show");
    assert_eq!(d.card.status, Status::Invalid);
    assert!(
        d.errors.iter().any(|p| p.code.as_str() == "host_not_declared" && p.path == "tools.convert.request.url"),
        "{:?}",
        d.errors
    );
    // The store keeps the last validation of each plugin: saving the file
    // again must be judged on the new bytes, in the same Store.
    std::fs::write(folder.join("manifest.json"), serde_json::to_string(&example("exchange-rates")).expect("json"))
        .expect("save");
    assert_eq!(f.status("fx"), Status::Active);
}

#[test]
fn s15_developer_mode_off_pauses_a_plugin_that_talks_to_the_pc() {
    let f = Fixture::new();
    f.dev_mode(true);
    let r = f.import_example("local-server").expect("import");
    f.store.install(&r.review, options(&[], &[("token", SECRET)], None)).expect("install");
    let d = f.store.show("mypc").expect("show");
    assert_eq!(d.card.status, Status::Active);
    assert_eq!((d.card.origin, d.card.kept_on_pc, d.card.local_ports.clone()), (Origin::Import, false, vec![8420]));
    f.dev_mode(false);
    let d = f.store.show("mypc").expect("show");
    assert_eq!(d.card.status, Status::DevModeOff);
    assert!(d.card.enabled, "paused, not switched off");
    f.dev_mode(true);
    assert_eq!(f.status("mypc"), Status::Active);
}

#[test]
fn s18_badges_not_signed_folder_official_and_kept_on_this_pc() {
    let f = Fixture::new();
    f.dev_mode(true);
    let r = f.import_example("my-tasks").expect("import");
    f.store
        .install(&r.review, options(&[], &[("api_token", SECRET)], Some(dcp_store::CloudChoice::Local)))
        .expect("install");
    let folder = f.dir.path().join("fx-dev");
    copy_dir(&examples().join("exchange-rates"), &folder);
    let r = f.store.load_folder(&folder).expect("load");
    assert_eq!(r.origin, Origin::Folder);
    f.store.install(&r.review, options(&[], &[], None)).expect("install");
    let r = f.store.import_official("trello").expect("official");
    f.store
        .install(
            &r.review,
            options(
                &[("board", json!("AbC123"))],
                &[("api_key", "key-1"), ("token", SECRET)],
                Some(dcp_store::CloudChoice::Allow),
            ),
        )
        .expect("install official trello");
    // Where it comes from, kept on this PC, the ports of programs on this PC.
    let facts = |slug: &str| {
        let card = f.store.list().expect("list").into_iter().find(|e| e.slug == slug).expect(slug);
        (card.origin, card.kept_on_pc, card.local_ports)
    };
    assert_eq!(facts("mytasks"), (Origin::Import, true, vec![]));
    assert_eq!(facts("fx"), (Origin::Folder, false, vec![]));
    assert_eq!(facts("trello"), (Origin::Official, false, vec![]));
    f.store.set_cloud("mytasks", dcp_store::CloudChoice::Allow).expect("allow");
    assert_eq!(facts("mytasks"), (Origin::Import, false, vec![]));
    assert!(!f.store.show("fx").expect("show").review_banner, "folder plugins have no review banner");
}

#[test]
fn s18_status_order_missing_beats_off_and_modified_beats_dev_mode_off() {
    let f = Fixture::new();
    f.dev_mode(true);
    let r = f.import_example("local-server").expect("import");
    f.store.install(&r.review, options(&[], &[("token", SECRET)], None)).expect("install");
    f.dev_mode(false);
    f.store.set_enabled("mypc", false).expect("off");
    assert_eq!(f.status("mypc"), Status::DevModeOff);
    let folder = f.store.show("mypc").expect("show").folder;
    let path = folder.join("manifest.json");
    let mut bytes = std::fs::read(&path).expect("read");
    bytes.push(b'\n');
    std::fs::write(&path, &bytes).expect("edit");
    assert_eq!(f.status("mypc"), Status::Modified);
    std::fs::remove_file(&path).expect("delete");
    assert_eq!(f.status("mypc"), Status::Missing);
}

/// §18 "Needs setup": an optional secret may stay unset; a stored one that
/// this PC cannot open (§11) needs setup all the same.
#[test]
fn s18_an_optional_secret_needs_setup_only_when_stored_and_unreadable() {
    let f = Fixture::new();
    let mut manifest = example("my-tasks");
    manifest["user_config"]["api_token"]["required"] = json!(false);
    let review = f.store.import(&f.file("optional-token.json", &manifest)).expect("import");
    f.store.install(&review.review, options(&[], &[], Some(dcp_store::CloudChoice::Allow))).expect("install");
    assert_eq!(f.status("mytasks"), Status::Active, "an optional secret may stay unset");
    f.store.set_secret("mytasks", "api_token", SECRET.into()).expect("set");
    assert_eq!(f.status("mytasks"), Status::Active);
    f.sql().execute("UPDATE secrets SET sealed = X'00' WHERE slug = 'mytasks'", []).expect("damage the seal");
    assert_eq!(f.status("mytasks"), Status::NeedsSetup, "stored, but this PC cannot open it");
}
