//! §19: a loaded folder reloads by itself within a second of a save, keeps
//! its settings, takes new permissions without consent, and shows Invalid
//! after a bad save. Real files, real inotify, a real SQLite profile.

use dcp_store::watch::FolderWatcher;
use dcp_store::{Card, InstallOptions, Profile, Status, Store, StoreError};
use dcp_vault::testing::MemoryKeyStore;
use std::path::Path;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn example(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples").join(name).join("manifest.json");
    std::fs::read_to_string(path).expect("example manifest")
}

/// Saves like an editor: write a temporary file, then rename it over.
fn save(dir: &Path, text: &str) {
    let temp = dir.join(".manifest.json.swp");
    std::fs::write(&temp, text).expect("write");
    std::fs::rename(&temp, dir.join("manifest.json")).expect("rename");
}

/// exchange-rates loaded from a folder in developer mode, and a watcher on
/// its profile that sends each reload's statuses.
struct Watched {
    folder: tempfile::TempDir,
    store: Store,
    manifest: String,
    reloads: mpsc::Receiver<Result<Vec<Card>, StoreError>>,
    _watcher: FolderWatcher,
    profile: tempfile::TempDir,
}

fn watched() -> Watched {
    let profile = tempfile::tempdir().expect("profile");
    let folder = tempfile::tempdir().expect("folder");
    let keys = Arc::new(MemoryKeyStore::new());
    let store = Store::open(Profile::at(profile.path()).expect("profile"), keys.clone()).expect("store");
    store.set_pref("dev_mode", "true").expect("dev mode");
    let manifest = example("exchange-rates");
    save(folder.path(), &manifest);
    let review = store.load_folder(folder.path()).expect("review");
    store.install(&review.review, InstallOptions::default()).expect("installed");
    let (tx, reloads) = mpsc::channel();
    let watcher = FolderWatcher::start(Profile::at(profile.path()).expect("profile"), keys, move |reloaded| {
        let _ = tx.send(reloaded);
    })
    .expect("watcher");
    Watched { folder, store, manifest, reloads, _watcher: watcher, profile }
}

#[test]
fn s19_a_saved_folder_reloads_within_a_second() {
    let w = watched();
    w.store.set_action_enabled("fx", "convert", false).expect("switch");
    let newer = w.manifest.replace("\"version\": \"1.0.0\"", "\"version\": \"1.1.0\"").replace(
        "\"hosts\": [\"api.frankfurter.dev\"]",
        "\"hosts\": [\"api.frankfurter.dev\", \"cdn.frankfurter.dev\"]",
    );
    let saved = Instant::now();
    save(w.folder.path(), &newer);
    let entries = w.reloads.recv_timeout(Duration::from_secs(5)).expect("a reload after the save").expect("reloaded");
    assert!(saved.elapsed() < Duration::from_secs(1), "reloaded after {:?}", saved.elapsed());
    assert_eq!(entries[0].version, "1.1.0");
    assert_eq!(entries[0].status, Status::Active);
    let details = w.store.show("fx").expect("details");
    assert_eq!(
        details.sites,
        vec!["api.frankfurter.dev".to_owned(), "cdn.frankfurter.dev".to_owned()],
        "new permissions apply without consent"
    );
    assert!(!details.actions[0].enabled, "the per-action switch is kept");

    // Saved in place this time, as some editors do.
    std::fs::write(w.folder.path().join("manifest.json"), newer.replace("\"R0\"", "\"R9\"")).expect("write");
    let entries =
        w.reloads.recv_timeout(Duration::from_secs(5)).expect("a reload after the bad save").expect("reloaded");
    assert_eq!(entries[0].status, Status::Invalid);
    assert_eq!(w.store.show("fx").expect("details").errors[0].code.as_str(), "bad_risk");
}

/// §19 reloads on a save, and only then: reading the folder's files (the
/// reload itself does, so does an editor opening them) is not a save. A
/// watcher that took reads for saves reloaded every 200 ms for ever.
#[test]
fn s19_reading_a_loaded_folder_does_not_reload_it() {
    let w = watched();
    save(w.folder.path(), &w.manifest.replace("\"version\": \"1.0.0\"", "\"version\": \"1.1.0\""));
    let entries = w.reloads.recv_timeout(Duration::from_secs(5)).expect("a reload after the save").expect("reloaded");
    assert_eq!(entries[0].version, "1.1.0");
    let quiet = Duration::from_millis(1500);
    assert!(w.reloads.recv_timeout(quiet).is_err(), "the reload's own reads must not cause another reload");

    std::fs::read(w.folder.path().join("manifest.json")).expect("read the manifest");
    w.store.reload().expect("a reload by the app");
    assert!(w.reloads.recv_timeout(quiet).is_err(), "reads are not saves");
}

/// A save is never lost: a reload that fails (here the profile is locked by
/// another process past the busy timeout) is reported, then tried again
/// until it succeeds, with no second save.
#[test]
fn s19_a_failed_reload_is_reported_and_tried_again() {
    let w = watched();
    let other = rusqlite::Connection::open(w.profile.path().join("host.sqlite")).expect("another process");
    other.execute_batch("BEGIN EXCLUSIVE").expect("lock the profile");
    save(w.folder.path(), &w.manifest.replace("\"version\": \"1.0.0\"", "\"version\": \"1.2.0\""));
    let failed = w.reloads.recv_timeout(Duration::from_secs(30)).expect("the reload's outcome");
    let error = failed.expect_err("the profile is locked");
    let busy = match &error {
        StoreError::Db(e) => e.sqlite_error_code(),
        _ => None,
    };
    assert_eq!(busy, Some(rusqlite::ErrorCode::DatabaseBusy), "{error:?}");
    other.execute_batch("ROLLBACK").expect("unlock");
    let entries = loop {
        match w.reloads.recv_timeout(Duration::from_secs(30)).expect("a retry without a second save") {
            Ok(entries) => break entries,
            Err(_) => continue, // a retry that started before the unlock
        }
    };
    assert_eq!(entries[0].version, "1.2.0");
}
