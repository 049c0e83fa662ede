//! The profile is the player's alone: on Unix its folders are 0700 and its
//! files 0600 (the database and its WAL, shared-memory and journal files,
//! lock files, quarantined packages, plugin copies), set when each is
//! created and repaired when a profile is opened. It holds sealed secrets,
//! the journal of calls and the player's settings, which other accounts of
//! the machine have no reason to read. On Windows nothing changes: the
//! profile lives under the user's AppData, private by its ACL.

use std::fs::{DirBuilder, OpenOptions};
use std::io;
use std::path::Path;

#[cfg(unix)]
const DIR_MODE: u32 = 0o700;
#[cfg(unix)]
const FILE_MODE: u32 = 0o600;

/// Creates `dir` and its missing parents, for the user only.
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)
}

/// Options that create a file for the user only (the mode applies when the
/// file is created; [`repair`] fixes one that already exists).
pub fn file_options() -> OpenOptions {
    #[allow(unused_mut)] // Only Unix sets a mode.
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options
}

/// Gives every folder and file under `path` (itself included) the private
/// mode, leaving symbolic links alone (never followed). A mode is written
/// only where it differs: a change of mode is a change of the file's status
/// time, which the call context reads as a possible edit (`stamp.rs`).
/// Entries removed meanwhile by another process are skipped.
#[cfg(unix)]
pub fn repair(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let gone = |e: io::Error| if e.kind() == io::ErrorKind::NotFound { Ok(()) } else { Err(e) };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) => return gone(e),
    };
    let want = match meta.file_type() {
        t if t.is_dir() => DIR_MODE,
        t if t.is_file() => FILE_MODE,
        _ => return Ok(()),
    };
    if meta.permissions().mode() & 0o7777 != want {
        if let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(want)) {
            return gone(e);
        }
    }
    if meta.is_dir() {
        let entries = match std::fs::read_dir(path) {
            Ok(entries) => entries,
            Err(e) => return gone(e),
        };
        for entry in entries.flatten() {
            repair(&entry.path())?;
        }
    }
    Ok(())
}

/// Nothing to repair on Windows (see the module doc).
#[cfg(not(unix))]
pub fn repair(_path: &Path) -> io::Result<()> {
    Ok(())
}
