//! Issue 32 (§18): a copy's deletion killed at any point (an update's old
//! generation and quarantined copy, an uninstall's generation, a cancelled
//! review's copy) leaves nothing the next open does not remove: no old
//! copy, no half-deleted or empty copy folder, no stale lock file, and the
//! plugin whole. Each case runs in a child process (this test binary,
//! running `deletion_child`) killed by `DCPLUGIN_TEST_CRASH_AT` at the n-th
//! pass of a point of the deletion, for every n until one is not reached.

use crate::common::*;
use dcp_store::{Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

const CHILD: &str = "DCP_TEST_DELETION_CHILD";

/// Not a test of its own: one operation on a profile, in the child process
/// the test below starts (without `DCP_TEST_DELETION_CHILD` it does nothing).
#[test]
fn deletion_child() {
    let Ok(spec) = std::env::var(CHILD) else { return };
    let [op, root, review]: [&str; 3] = spec.splitn(3, '|').collect::<Vec<_>>().try_into().expect("op|root|review");
    let store = Store::open(Profile::at(root).expect("profile"), Arc::new(MemoryKeyStore::new())).expect("store");
    match op {
        "update" => store.install(review, options(&[], &[], None)).map(drop),
        "uninstall" => store.uninstall("fx"),
        _ => store.cancel(review),
    }
    .expect("the operation");
}

/// Runs `op` in a child killed at `point`; true when it was killed.
fn killed(f: &Fixture, op: &str, review: &str, point: &str) -> bool {
    let out = Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", "deletion::deletion_child", "--test-threads=1"])
        .env(CHILD, format!("{op}|{}|{review}", f.root().display()))
        .env("DCPLUGIN_TEST_CRASH_AT", point)
        .output()
        .expect("the child runs");
    assert!(out.status.success() || aborted(out.status), "{op} {point}: failed, not killed: {out:?}");
    !out.status.success()
}

/// Whether the crash point's `abort()` ended the child: a signal on Unix
/// (no exit code); on Windows the fail-fast exit code 0xC0000409 (issue 35:
/// there every process has an exit code, so "no code" never held).
fn aborted(status: std::process::ExitStatus) -> bool {
    if cfg!(windows) {
        status.code() == Some(0xC000_0409_u32 as i32)
    } else {
        status.code().is_none()
    }
}

/// The folders under `dir` (`plugins/` holds one per slug, each holding copies).
fn folders(dir: &Path) -> Vec<std::path::PathBuf> {
    let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
    entries.filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).map(|e| e.path()).collect()
}

/// No leftover: every copy is one a row names, whole; `trash/` is empty;
/// no copy lock file is left.
fn assert_no_leftover(f: &Fixture, case: &str) {
    let named: Vec<String> = f
        .sql()
        .prepare("SELECT dir FROM plugins UNION SELECT dir FROM reviews")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("rows");
    let mut copies = folders(&f.root().join("quarantine"));
    copies.extend(folders(&f.root().join("plugins")).iter().flat_map(|slug| folders(slug)));
    for copy in &copies {
        let place = copy.strip_prefix(f.root()).expect("in the profile").to_string_lossy().into_owned();
        assert!(named.contains(&place), "{case}: {place} is left, named by no row");
        assert!(copy.join("manifest.json").is_file(), "{case}: {place} is not whole");
    }
    assert_eq!(folders(&f.root().join("trash")).len(), 0, "{case}: trash/ emptied");
    let locks = std::fs::read_dir(f.root().join("locks")).into_iter().flatten().flatten();
    let copy_locks: Vec<_> =
        locks.map(|e| e.file_name()).filter(|n| n.to_string_lossy().starts_with("copy-")).collect();
    assert!(copy_locks.is_empty(), "{case}: stale lock files {copy_locks:?}");
}

#[test]
fn s18_issue32_a_deletion_killed_at_any_point_leaves_nothing_after_the_next_open() {
    for op in ["update", "uninstall", "cancel"] {
        for point in ["delete:renamed", "delete:a-file-removed"] {
            let mut nth = 1;
            loop {
                let mut f = Fixture::new();
                let r = f.import_example("exchange-rates").expect("import");
                f.store.install(&r.review, options(&[], &[], None)).expect("install 1.0");
                let review = match op {
                    "uninstall" => String::new(),
                    _ => {
                        let mut m = example("exchange-rates");
                        m["version"] = serde_json::json!("1.1.0");
                        f.store.import(&f.file("v11.json", &m)).expect("import 1.1").review
                    }
                };
                let case = format!("{op} killed at {point}@{nth}");
                let was_killed = killed(&f, op, &review, &format!("{point}@{nth}"));
                f.reopen();
                assert_no_leftover(&f, &case);
                let versions: Vec<String> = f.store.list().expect("list").into_iter().map(|c| c.version).collect();
                let expected = match op {
                    "update" => vec!["1.1.0".to_owned()],
                    "uninstall" => vec![],
                    _ => vec!["1.0.0".to_owned()],
                };
                assert_eq!(versions, expected, "{case}: the commit stands");
                if op != "uninstall" {
                    assert_eq!(f.status("fx"), Status::Active, "{case}");
                }
                if !was_killed {
                    assert!(nth > 1, "{case}: the point was never reached");
                    break;
                }
                nth += 1;
            }
        }
    }
}
