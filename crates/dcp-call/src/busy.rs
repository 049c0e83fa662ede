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
//!
//! The lock file also says why it is held (issue 34): empty while its call
//! runs, one byte long while its call waits for the player's answer to an
//! R3 question, so a call refused BUSY meanwhile, from any process, says
//! that nothing runs. Taking the lock empties it: a process that died
//! asking leaves nothing behind.

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

/// Why another call holds a plugin's lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// It runs.
    Running,
    /// It waits for the player's answer to its R3 question.
    Asking,
}

impl PluginLock {
    /// Says to every process whether the call holding the lock waits for
    /// the player's answer. Only words depend on it: a failure to say it
    /// leaves the plain BUSY.
    pub(crate) fn asking(&self, asking: bool) {
        let _ = self.file.set_len(u64::from(asking));
    }
}

/// Why the lock of `file`, held by another call, is held.
fn held(file: &File) -> Held {
    if file.metadata().is_ok_and(|m| m.len() > 0) {
        Held::Asking
    } else {
        Held::Running
    }
}

impl Drop for PluginLock {
    fn drop(&mut self) {
        // Released in the file first: until it is out of `held`, no call of
        // this process can take it through the same open file.
        let _ = self.file.unlock();
        with_locks(|locks| locks.held.remove(&self.path));
    }
}

/// Takes the plugin's lock, or says why another call holds it (BUSY).
pub fn try_lock(profile: &Path, slug: &str) -> std::io::Result<Result<PluginLock, Held>> {
    let path = profile.join(dcp_store::profile::LOCKS_DIR).join(format!("{slug}.lock"));
    with_locks(|locks| {
        let file = match locks.files.get(&path) {
            Some(file) => file.clone(),
            None => {
                let file = Arc::new(open(&path)?);
                locks.files.insert(path.clone(), file.clone());
                file
            }
        };
        if locks.held.contains(&path) {
            return Ok(Err(held(&file)));
        }
        match file.try_lock() {
            Ok(()) => {
                locks.held.insert(path.clone());
                let lock = PluginLock { path, file };
                lock.asking(false);
                Ok(Ok(lock))
            }
            Err(TryLockError::WouldBlock) => Ok(Err(held(&file))),
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
        let busy = || try_lock(profile.path(), "fx").expect("lock").err();
        assert_eq!(busy(), Some(Held::Running), "BUSY through the same open file");
        first.asking(true);
        assert_eq!(busy(), Some(Held::Asking), "BUSY, its call waiting for the player");
        first.asking(false);
        assert_eq!(busy(), Some(Held::Running));
        let other = try_lock(profile.path(), "todo").expect("lock");
        assert!(other.is_ok(), "another plugin is not held up");
        drop(first);
        assert!(try_lock(profile.path(), "fx").expect("lock").is_ok(), "free again once the call ended");
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
        let path = profile.path().join(dcp_store::profile::LOCKS_DIR).join("fx.lock");
        let outside = open(&path).expect("open");
        outside.try_lock().expect("free outside");
        let busy = || try_lock(profile.path(), "fx").expect("lock").err();
        assert_eq!(busy(), Some(Held::Running), "BUSY while another holds it");
        outside.set_len(1).expect("asking");
        assert_eq!(busy(), Some(Held::Asking), "BUSY while another's call waits for the player");
        // It dies asking: its file is closed, which releases the lock. (Not
        // `File::unlock`: under Wine it releases the lock yet answers "lock
        // violation", os error 33.) The next call to take the lock says it runs.
        drop(outside);
        let taken = try_lock(profile.path(), "fx").expect("lock").expect("free");
        assert_eq!(std::fs::metadata(&path).expect("metadata").len(), 0, "taking the lock clears the mark");
        drop(taken);
    }
}
