//! §18 "whether the permissions change": an update's review lists each
//! change as a kind and its parameters (`permission_changes`, worded by a
//! window in the player's language, §10) beside the English lines
//! `dcplugin` prints (`changes`).

mod common;

use common::*;
use dcp_host::Level;
use dcp_host::PermissionChange;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s18_an_update_review_lists_structured_changes_and_their_english_lines() {
    let f = fixture();
    let mut manifest = example("exchange-rates");
    install_manifest(&f.host, f.dir.path(), "v1", &manifest, Default::default()).await;

    let meta = &mut manifest["_meta"]["com.desktopaicompanion"];
    meta["permissions"]["network"]["hosts"].as_array_mut().expect("hosts").push("api.example.com".into());
    meta["tools"]["convert"]["request"]["method"] = "POST".into();
    manifest["version"] = "1.1.0".into();
    let file = folder(f.dir.path(), "v2", &manifest).join("manifest.json");
    let update = f.host.import_path(file).await.expect("update review");

    assert!(update.update && update.permissions_changed);
    assert_eq!(
        update.permission_changes,
        [
            PermissionChange::SiteAdded { site: "api.example.com".into() },
            PermissionChange::LevelChanged { action: "convert".into(), old: Level::R0, new: Level::R2 },
            PermissionChange::MethodChanged { action: "convert".into(), old: "GET".into(), new: "POST".into() },
        ]
    );
    let sent = serde_json::to_value(&update).expect("JSON");
    assert_eq!(sent["permission_changes"][0], serde_json::json!({ "kind": "site_added", "site": "api.example.com" }));
    assert!(sent.get("changes").is_none(), "facts only: each shell words the changes: {sent}");

    // A first install has no changes.
    let fresh = folder(f.dir.path(), "other", &example("recipe-search")).join("manifest.json");
    let review = f.host.import_path(fresh).await.expect("review");
    assert!(review.permission_changes.is_empty() && !review.permissions_changed);
}
