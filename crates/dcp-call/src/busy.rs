//! One call at a time per plugin (§14 "Concurrency"), also across processes
//! sharing a profile: an exclusive lock on `<profile>/locks/<slug>.lock`,
//! held for the whole call and released when dropped (or when the process
//! dies, since the OS releases file locks with the process).
//!
//! A lock file, once opened, stays open for the life of the process: a call
//! then costs two lock calls instead of a folder check, an open and a close
//! (the host's overhead on a call). Two locks taken through one open
//! file do not exclude each other, so the process also keeps the set of
//! plugins it is calling. Nothing ever deletes a lock file, so every
//! process locks the same file.

use dcp_store::private;
use std::collections::{HashMap, HashSet};
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

/// The lock files this process opened, and those it holds now.
#[derive(Default)]
struct Locks {
    files: HashMap<PathBuf, Arc<File>>,
    held: HashSet<PathBuf>,
}

static LOCKS: LazyLock<Mutex<Locks>> = LazyLock::new(Mutex::default);

fn with_locks<T>(f: impl FnOnce(&mut Locks) -> T) -> T {
    f(&mut LOCKS.lock().unwrap_or_else(PoisonError::into_inner))
}

/// A held lock.
pub struct PluginLock {
    path: PathBuf,
    file: Arc<File>,
}

impl Drop for PluginLock {
    fn drop(&mut self) {
        // Released in the file first: until it is out of `held`, no call of
        // this process can take it through the same open file.
        let _ = self.file.unlock();
        with_locks(|locks| locks.held.remove(&self.path));
    }
}

/// Takes the plugin's lock, or `None` when another call holds it (BUSY).
pub fn try_lock(profile: &Path, slug: &str) -> std::io::Result<Option<PluginLock>> {
    let path = profile.join(dcp_store::profile::LOCKS_DIR).join(format!("{slug}.lock"));
    with_locks(|locks| {
        if locks.held.contains(&path) {
            return Ok(None);
        }
        let file = match locks.files.get(&path) {
            Some(file) => file.clone(),
            None => {
                let file = Arc::new(open(&path)?);
                locks.files.insert(path.clone(), file.clone());
                file
            }
        };
        match file.try_lock() {
            Ok(()) => {
                locks.held.insert(path.clone());
                Ok(Some(PluginLock { path, file }))
            }
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    })
}

/// Opens (creating) a lock file, and its folder the first time, for the
/// user only (the profile is private, see `dcp_store::private`).
fn open(path: &Path) -> std::io::Result<File> {
    let options = || private::file_options().create(true).truncate(false).write(true).open(path);
    match options() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            private::create_dir_all(path.parent().unwrap_or(path))?;
            options()
        }
        opened => opened,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s14_one_call_at_a_time_per_plugin_inside_one_process() {
        let profile = tempfile::tempdir().expect("profile");
        let first = try_lock(profile.path(), "fx").expect("lock").expect("free");
        assert!(try_lock(profile.path(), "fx").expect("lock").is_none(), "BUSY through the same open file");
        let other = try_lock(profile.path(), "todo").expect("lock");
        assert!(other.is_some(), "another plugin is not held up");
        drop(first);
        assert!(try_lock(profile.path(), "fx").expect("lock").is_some(), "free again once the call ended");
    }

    /// The profile is private: a lock file is created 0600 in a 0700 folder.
    #[cfg(unix)]
    #[test]
    fn s11_lock_files_are_the_users_only() {
        use std::os::unix::fs::PermissionsExt;
        let profile = tempfile::tempdir().expect("profile");
        drop(try_lock(profile.path(), "fx").expect("lock").expect("free"));
        let locks = profile.path().join(dcp_store::profile::LOCKS_DIR);
        let mode = |p: &Path| std::fs::metadata(p).expect("exists").permissions().mode() & 0o777;
        assert_eq!((mode(&locks), mode(&locks.join("fx.lock"))), (0o700, 0o600));
    }

    #[test]
    fn s14_a_lock_held_through_another_open_file_is_busy() {
        // Another process opens the file anew: simulated by a second open
        // file in this one, which flock treats the same way.
        let profile = tempfile::tempdir().expect("profile");
        drop(try_lock(profile.path(), "fx").expect("lock").expect("free"));
        let outside = open(&profile.path().join(dcp_store::profile::LOCKS_DIR).join("fx.lock")).expect("open");
        outside.try_lock().expect("free outside");
        assert!(try_lock(profile.path(), "fx").expect("lock").is_none(), "BUSY while another holds it");
        outside.unlock().expect("unlock");
        assert!(try_lock(profile.path(), "fx").expect("lock").is_some());
    }
}
