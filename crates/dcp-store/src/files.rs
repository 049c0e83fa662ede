//! Writing and removing plugin files so that a crash never leaves a
//! half-written file under a name the store trusts: each file is written and
//! synced, then its folder is synced. A copy being written (a quarantined
//! package, a generation folder) is held under a [`CopyLock`], which tells a
//! live writer from a dead one.
//!
//! The store deletes only folders it wrote ([`made_by_store`]): a copy
//! carries a mark file naming its own place in the profile, written before
//! any package file, and a copy whose writer died before even the mark
//! still has its writer's lock file. A folder a player or another program
//! put in `plugins/` has neither, whatever its name, and is never deleted.
//!
//! A copy is deleted so that a kill at any point leaves something the next
//! open recognises ([`delete_copy`], issue 32): it is first renamed, in one
//! atomic step, into the profile's `trash/` (the store's own folder, every
//! entry of which is a copy being deleted), then deleted there. Deleted in
//! place, a kill could leave a copy whose mark was already gone: no longer
//! the store's, never loaded, never cleaned. The sweep at open empties
//! `trash/` ([`empty_trash`]) and removes the copy lock files no process
//! holds whose copy is gone ([`remove_stale_copy_locks`]).

use crate::private;
use crate::profile::Profile;
use dcp_format::package::{Package, ICON_FILE, MANIFEST_FILE};
use std::fs::{self, File, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A plugin copy being written: an exclusive OS lock on
/// `locks/copy-<id>.lock`, taken before the copy's folder is created and
/// held until a row names the copy (or the copy is removed again). The OS
/// releases it when the process dies, so a copy that no row names and whose
/// lock is free is a killed writer's leftover, whatever its age.
pub(crate) struct CopyLock {
    path: PathBuf,
    // Closed after `drop` has removed the name: that releases the lock.
    _file: File,
}

impl CopyLock {
    /// Takes the lock of a new copy (a fresh random id: only a sweep that
    /// found the copy's folder, or its stale lock file, could hold it, and
    /// there is no folder yet). A sweep removes a lock file it held as
    /// stale: a lock taken on a file no longer under its name is taken
    /// again on a new one.
    pub(crate) fn take(profile: &Profile, id: &str) -> std::io::Result<CopyLock> {
        loop {
            let (path, file) = open_copy_lock(profile, id)?;
            file.lock()?;
            if still_named(&path, &file) {
                return Ok(CopyLock { path, _file: file });
            }
        }
    }

    /// The lock of copy `id`, or `None` while a live process holds it.
    pub(crate) fn try_take(profile: &Profile, id: &str) -> std::io::Result<Option<CopyLock>> {
        let (path, file) = open_copy_lock(profile, id)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(CopyLock { path, _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }
}

impl Drop for CopyLock {
    /// Removes the lock file while still holding it. Whoever opened the same
    /// file meanwhile takes the lock once this one closes, and then reads
    /// the rows again: a writer commits the row naming its copy before it
    /// lets go, so a copy is never taken for a leftover once named.
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

fn copy_lock_path(profile: &Profile, id: &str) -> PathBuf {
    profile.locks_dir().join(format!("copy-{id}.lock"))
}

/// Whether `path` still names the open `file` (not removed, nor replaced).
#[cfg(unix)]
fn still_named(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(path), file.metadata()) {
        (Ok(named), Ok(open)) => (named.dev(), named.ino()) == (open.dev(), open.ino()),
        _ => false,
    }
}

/// Elsewhere an open file cannot be removed (Windows): the name holds.
#[cfg(not(unix))]
fn still_named(_path: &Path, _file: &File) -> bool {
    true
}

/// Removes each `locks/copy-<id>.lock` that no process holds: what a
/// writer or a sweep killed while holding it left (issue 32). Called after
/// the sweep, which has removed the copies such a lock proved the store's
/// ([`made_by_store`]); a copy a row names needs no lock.
pub(crate) fn remove_stale_copy_locks(profile: &Profile) -> std::io::Result<()> {
    let names = fs::read_dir(profile.locks_dir()).into_iter().flatten().flatten().map(|e| e.file_name());
    let ids: Vec<String> =
        names.filter_map(|n| n.to_str()?.strip_prefix("copy-")?.strip_suffix(".lock").map(str::to_owned)).collect();
    for id in ids {
        // Held: a live writer; free: dropping the lock removes its file.
        drop(CopyLock::try_take(profile, &id)?);
    }
    Ok(())
}

fn open_copy_lock(profile: &Profile, id: &str) -> std::io::Result<(PathBuf, File)> {
    private::create_dir_all(&profile.locks_dir())?;
    let path = copy_lock_path(profile, id);
    let file = private::file_options().create(true).truncate(false).write(true).open(&path)?;
    Ok((path, file))
}

/// The mark file of a copy. The package reader only opens the files of a
/// package, so the mark is never part of one.
const COPY_MARK: &str = ".dcplugin-copy";

/// What the mark of the copy at `place` (relative to the profile) holds:
/// its place, so a copy moved or copied elsewhere by hand is not one.
fn mark_of(place: &Path) -> String {
    let parts: Vec<_> = place.components().map(|c| c.as_os_str().to_string_lossy()).collect();
    parts.join("/")
}

/// True when the folder at `place` in the profile (a `quarantine/<id>/` or
/// `plugins/<slug>/<id>/`) is a copy the store wrote: it holds the mark of
/// that place, or the lock file of its writer is still there (a writer
/// killed before the mark). Only then may a sweep delete it.
pub(crate) fn made_by_store(profile: &Profile, place: &Path) -> bool {
    let id = place.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    has_mark(&profile.root().join(place).join(COPY_MARK), &mark_of(place)) || copy_lock_path(profile, &id).is_file()
}

/// True when `path` is a regular file holding exactly `mark` (a link or an
/// endless file is not read: the folder may be anyone's).
fn has_mark(path: &Path, mark: &str) -> bool {
    if !fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut held = Vec::new();
    let read = File::open(path).and_then(|f| f.take(mark.len() as u64 + 1).read_to_end(&mut held));
    read.is_ok() && held == mark.as_bytes()
}

/// Writes a package as the copy at `place` in the profile (created): its
/// mark, then its files, each synced to disk.
pub(crate) fn write_copy(profile: &Profile, place: &Path, package: &Package) -> std::io::Result<()> {
    let dir = profile.root().join(place);
    private::create_dir_all(&dir)?;
    write_synced(&dir.join(COPY_MARK), mark_of(place).as_bytes())?;
    write_synced(&dir.join(MANIFEST_FILE), &package.manifest)?;
    if let Some(icon) = &package.icon {
        write_synced(&dir.join(ICON_FILE), icon)?;
    }
    for (name, bytes) in &package.extras {
        write_synced(&dir.join(name), bytes)?;
    }
    sync_dir(&dir)?;
    if let Some(parent) = dir.parent() {
        sync_dir(parent)?;
    }
    Ok(())
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = private::file_options().write(true).create(true).truncate(true).open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Syncs a folder's entries (a no-op where folders cannot be opened).
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    match File::open(dir) {
        Ok(handle) => handle.sync_all().or(Ok(())),
        Err(_) => Ok(()),
    }
}

/// The folder of copies being deleted, under the profile.
const TRASH_DIR: &str = "trash";

/// Deletes the copy at `dir` (see the module doc): renamed into `trash/`,
/// then deleted there. A copy already gone is fine.
pub(crate) fn delete_copy(profile: &Profile, dir: &Path) -> std::io::Result<()> {
    let trash = profile.root().join(TRASH_DIR);
    private::create_dir_all(&trash)?;
    let doomed = trash.join(random_id());
    match fs::rename(dir, &doomed) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        renamed => renamed?,
    }
    // The rename reaches the disk before any file goes (a power cut too).
    sync_dir(&trash)?;
    if let Some(parent) = dir.parent() {
        sync_dir(parent)?;
    }
    crash_point("delete:renamed");
    remove_all(&doomed)
}

/// Empties `trash/`: copies whose deletion was killed (see [`delete_copy`]),
/// and those another process is deleting right now, whose files may go
/// under this one's hands.
pub(crate) fn empty_trash(profile: &Profile) -> std::io::Result<()> {
    for entry in fs::read_dir(profile.root().join(TRASH_DIR)).into_iter().flatten().flatten() {
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => remove_all(&entry.path())?,
            Ok(_) => gone_is_fine(fs::remove_file(entry.path()))?,
            Err(e) => gone_is_fine(Err(e))?,
        }
    }
    Ok(())
}

/// Removes a folder of `trash/` and everything in it, file by file (a
/// copy holds files only). Another process may be removing the same
/// folder (its own deletion, or its sweep at open, issue 32): what is
/// already gone is fine.
///
/// On Windows, with both at it, the folder can be refused as "in use"
/// (ERROR_SHARING_VIOLATION, 32: the other is listing it) or "not empty"
/// (ERROR_DIR_NOT_EMPTY, 145: a removed file lingers while the other holds
/// it, or a listing changed under the other's hands skipped a file): its
/// files are then listed and removed again, for at most [`IN_USE_PATIENCE`]
/// (issue 35).
fn remove_all(dir: &Path) -> std::io::Result<()> {
    let started = std::time::Instant::now();
    loop {
        for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => gone_is_fine(fs::remove_dir_all(entry.path()))?,
                Ok(_) => gone_is_fine(fs::remove_file(entry.path()))?,
                Err(e) => gone_is_fine(Err(e))?,
            }
            crash_point("delete:a-file-removed");
        }
        match fs::remove_dir(dir) {
            Err(e)
                if cfg!(windows)
                    && matches!(e.raw_os_error(), Some(32 | 145))
                    && started.elapsed() < IN_USE_PATIENCE =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            removed => return gone_is_fine(removed),
        }
    }
}

/// How long [`remove_all`] keeps trying while another process removes the
/// same folder of `trash/` (Windows); a few milliseconds are seen.
const IN_USE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// A removal whose target another process removed first succeeded.
fn gone_is_fine(removed: std::io::Result<()>) -> std::io::Result<()> {
    match removed {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Seconds since `path` was last modified (0 when unknown or in the future).
pub(crate) fn age_seconds(path: &Path) -> u64 {
    fs::metadata(path).and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok()).map_or(0, |d| d.as_secs())
}

/// A random id for a review or a generation folder: 16 hex characters.
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 8];
    // The OS generator failing is not recoverable in any useful way here;
    // fall back to the system's clock (entropy, not a time the profile
    // keeps) so ids stay distinct.
    if getrandom::fill(&mut bytes).is_err() {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        bytes = (now.as_nanos() as u64 ^ u64::from(std::process::id())).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// In tests, `DCPLUGIN_TEST_CRASH_AT=<point>` kills the process at that
/// point, as a power cut would, and `<point>@<n>` the n-th time the process
/// passes it (a deletion passes `delete:a-file-removed` once a file); the
/// crash tests drive every point of an install, update or deletion this
/// way. Unset, it does nothing.
pub(crate) fn crash_point(point: &str) {
    static PASSED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let Ok(wanted) = std::env::var("DCPLUGIN_TEST_CRASH_AT") else { return };
    let (name, nth) = wanted.split_once('@').map_or((wanted.as_str(), Some(1)), |(name, n)| (name, n.parse().ok()));
    if name == point && Some(PASSED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1) == nth {
        std::process::abort();
    }
}
