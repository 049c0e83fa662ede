//! One call at a time per plugin (§14 "Concurrency"), also across processes
//! sharing a profile: an exclusive lock on `<profile>/locks/<slug>.lock`,
//! held for the whole call and released when dropped (or when the process
//! dies, since the OS releases file locks with the process).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

/// A held lock.
pub struct PluginLock {
    _file: File,
}

/// Takes the plugin's lock, or `None` when another call holds it (BUSY).
pub fn try_lock(profile: &Path, slug: &str) -> std::io::Result<Option<PluginLock>> {
    let dir = profile.join("locks");
    std::fs::create_dir_all(&dir)?;
    let file = OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(format!("{slug}.lock")))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(PluginLock { _file: file })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(e),
    }
}
