//! A call's view of its plugin (§3 "A tool call", §18 statuses) is kept
//! between calls only while nothing it is made of changed: every write to
//! the profile, by this store or another process, and every edit of the
//! installed manifest shows in the next call.

use crate::common::*;
use dcp_store::{Clock, Status};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// The status a call sees; `call_contexts` (what `tools` and the door read)
/// must see the same.
fn status(f: &Fixture) -> Status {
    let one = f.store.call_context("mytasks").expect("context").expect("installed").status;
    let all = f.store.call_contexts().expect("contexts");
    assert_eq!(all.iter().map(|c| (c.slug.as_str(), c.status)).collect::<Vec<_>>(), vec![("mytasks", one)]);
    one
}

/// The store's clock: the system's, this far ahead of it.
struct Ahead(Duration);

impl Clock for Ahead {
    fn now(&self) -> SystemTime {
        SystemTime::now() + self.0
    }
}

/// When `path` last changed, as the file system's clock tells it.
fn last_change(path: &Path) -> SystemTime {
    let meta = std::fs::metadata(path).expect("metadata");
    let modified = meta.modified().expect("mtime");
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let changed = Duration::new(meta.ctime() as u64, meta.ctime_nsec() as u32);
        modified.max(SystemTime::UNIX_EPOCH + changed)
    }
    #[cfg(not(unix))]
    modified
}

/// Returns once the file system's clock has moved past `path`'s last
/// change, so that a write from then on shows in its times (the store's
/// settle window covers that tick; the test waits for the tick itself).
fn after_the_file_clock_ticks(path: &Path, probe: &Path) {
    let changed = last_change(path);
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        std::fs::write(probe, "").expect("probe");
        if last_change(probe) > changed {
            return;
        }
    }
    panic!("the file system's clock did not move past {changed:?}");
}

/// Installs my-tasks in a store whose clock runs past the settle window
/// ahead (a file changed within 3 s is read again at each call), so its
/// manifest is old enough for the store to keep its context.
fn installed_and_settled() -> Fixture {
    let f = Fixture::with_clock(Arc::new(Ahead(Duration::from_millis(3_200))));
    install_my_tasks(&f);
    let manifest = f.store.show("mytasks").expect("show").folder.join("manifest.json");
    after_the_file_clock_ticks(&manifest, &f.dir.path().join("probe"));
    assert_eq!(status(&f), Status::Active);
    assert_eq!(status(&f), Status::Active, "the kept context");
    let kept = f.store.call_context("mytasks").expect("context").expect("installed");
    let all = f.store.call_contexts().expect("contexts");
    assert!(Arc::ptr_eq(&kept, &all[0]), "call_contexts gives the kept context too");
    f
}

#[test]
fn s3_writes_by_another_process_show_in_the_next_call() {
    let f = installed_and_settled();
    let other = f.sql();
    other.execute("INSERT OR REPLACE INTO prefs (key, value) VALUES ('tools_enabled', 'false')", []).expect("pref");
    assert_eq!(status(&f), Status::ToolsOff);
    other.execute("UPDATE prefs SET value = 'true' WHERE key = 'tools_enabled'", []).expect("pref");
    assert_eq!(status(&f), Status::Active);
    other.execute("UPDATE plugins SET enabled = 0 WHERE slug = 'mytasks'", []).expect("off");
    assert_eq!(status(&f), Status::Off);
    other.execute("UPDATE plugins SET enabled = 1 WHERE slug = 'mytasks'", []).expect("on");
    other.execute("DELETE FROM secrets WHERE slug = 'mytasks'", []).expect("secret");
    assert_eq!(status(&f), Status::NeedsSetup);
    f.store.set_secret("mytasks", "api_token", SECRET.into()).expect("secret");
    assert_eq!(status(&f), Status::Active);
    other.execute("INSERT INTO tools_off (slug, tool) VALUES ('mytasks', 'add_task')", []).expect("tool off");
    let context = f.store.call_context("mytasks").expect("context").expect("installed");
    assert_eq!(context.tools_off, vec!["add_task".to_owned()]);
    other.execute("DELETE FROM plugins WHERE slug = 'mytasks'", []).expect("uninstall");
    assert!(f.store.call_context("mytasks").expect("context").is_none());
    assert!(f.store.call_contexts().expect("contexts").is_empty());
}

#[test]
fn s18_an_edit_of_the_installed_manifest_shows_even_with_its_old_size_and_times() {
    let f = installed_and_settled();
    let path = f.store.show("mytasks").expect("show").folder.join("manifest.json");
    let text = std::fs::read_to_string(&path).expect("manifest");
    let modified = std::fs::metadata(&path).and_then(|m| m.modified()).expect("mtime");
    // Same length, same modification time: only the change time tells (on
    // Windows, the content's hash: issue 35).
    let edited = text.replacen("read your tasks", "read our tasks!", 1);
    assert_ne!(edited, text, "the example has the phrase");
    assert_eq!(edited.len(), text.len());
    std::fs::write(&path, edited).expect("edit");
    std::fs::File::options().write(true).open(&path).and_then(|f| f.set_modified(modified)).expect("mtime back");
    assert_eq!(status(&f), Status::Modified);
    std::fs::write(&path, &text).expect("restore");
    assert_eq!(status(&f), Status::Active, "the original bytes match the fingerprint again");
}

#[test]
fn s18_a_manifest_replaced_or_removed_shows_in_the_next_call() {
    let f = installed_and_settled();
    let path = f.store.show("mytasks").expect("show").folder.join("manifest.json");
    let text = std::fs::read_to_string(&path).expect("manifest");
    std::fs::remove_file(&path).expect("remove");
    assert_eq!(status(&f), Status::Missing);
    // Put back by a rename: another file, the same bytes.
    let aside = path.with_extension("new");
    std::fs::write(&aside, &text).expect("write");
    std::fs::rename(&aside, &path).expect("rename");
    assert_eq!(status(&f), Status::Active);
}

#[test]
fn s11_a_secret_this_pc_cannot_open_is_left_out_even_while_the_context_is_kept() {
    let f = installed_and_settled();
    let context = f.store.call_context("mytasks").expect("context").expect("installed");
    let opened = f.store.open_secrets(&context);
    assert_eq!(opened.iter().map(|(k, s)| (k.as_str(), s.expose())).collect::<Vec<_>>(), vec![("api_token", SECRET)]);
    assert!(!format!("{context:?}").contains(SECRET), "Debug shows no secret");
    let profile_id: String =
        f.sql().query_row("SELECT value FROM prefs WHERE key='profile_id'", [], |r| r.get(0)).expect("id");
    f.keys.delete(&profile_id).expect("the key is gone");
    let kept = f.store.call_context("mytasks").expect("context").expect("installed");
    assert!(f.store.open_secrets(&kept).is_empty(), "the request then lacks it: NEEDS_SETUP (§22)");
}
