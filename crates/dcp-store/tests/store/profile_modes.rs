//! The profile is the player's only (issue "Hardening"; §11 secrets, §18):
//! on Unix every folder under it is 0700 and every file 0600 (database,
//! WAL, shared memory, lock files, quarantine, plugin copies), when created
//! and again after another program loosened them.

#![cfg(unix)]

use crate::common::*;
use dcp_store::CloudChoice;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Every entry under `root` (itself included) with its mode, links apart.
fn modes(root: &Path) -> Vec<(PathBuf, bool, u32)> {
    let meta = std::fs::symlink_metadata(root).expect("entry");
    if meta.file_type().is_symlink() {
        return Vec::new();
    }
    let mut out = vec![(root.to_owned(), meta.is_dir(), meta.permissions().mode() & 0o7777)];
    if meta.is_dir() {
        for entry in std::fs::read_dir(root).expect("folder").flatten() {
            out.extend(modes(&entry.path()));
        }
    }
    out
}

#[track_caller]
fn assert_private(root: &Path) {
    let all = modes(root);
    let loose: Vec<_> = all
        .iter()
        .filter(|(_, dir, mode)| *mode != if *dir { 0o700 } else { 0o600 })
        .map(|(path, _, mode)| format!("{} {mode:o}", path.display()))
        .collect();
    assert!(loose.is_empty(), "not private: {loose:#?}");
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// A profile with a plugin installed, a review pending and a lock file:
/// every kind of file the store writes.
fn busy_profile() -> Fixture {
    let f = Fixture::new();
    install_my_tasks(&f);
    f.import_example("exchange-rates").expect("a review left pending");
    let names: Vec<String> = std::fs::read_dir(f.root())
        .expect("profile")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for name in ["host.sqlite", "host.sqlite-wal", "host.sqlite-shm", "plugins", "quarantine"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    f
}

#[test]
fn s11_every_file_of_a_profile_is_private_when_created() {
    let f = busy_profile();
    assert_private(&f.root());
    assert!(modes(&f.root()).len() > 8, "folders and files were checked");
}

/// Another program (an archive tool, a sync client, a careless `chmod -R`)
/// loosened everything: the next open repairs it all. A link inside the
/// profile is not followed: the file it points to keeps its mode.
#[test]
fn s11_loosened_modes_are_repaired_when_the_profile_is_opened() {
    let mut f = busy_profile();
    std::fs::create_dir_all(f.root().join("locks")).expect("locks");
    std::fs::write(f.root().join("locks/mytasks.lock"), b"").expect("lock file");
    let outside = f.dir.path().join("outside.txt");
    std::fs::write(&outside, b"not the profile's").expect("outside");
    chmod(&outside, 0o644);
    std::os::unix::fs::symlink(&outside, f.root().join("quarantine/link")).expect("link");
    for (path, dir, _) in modes(&f.root()) {
        chmod(&path, if dir { 0o755 } else { 0o644 });
    }
    f.reopen();
    assert_private(&f.root());
    assert_eq!(std::fs::metadata(&outside).expect("outside").permissions().mode() & 0o777, 0o644);
    // The store still works on the repaired profile.
    let r = f.import_example("recipe-search").expect("import");
    f.store.install(&r.review, options(&[], &[], Some(CloudChoice::Allow))).expect("install");
    assert_private(&f.root());
}
