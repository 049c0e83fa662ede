//! Writing and removing plugin files so that a crash never leaves a
//! half-written file under a name the store trusts: each file is written and
//! synced, then its folder is synced.

use crate::private;
use dcp_format::package::{Package, ICON_FILE, MANIFEST_FILE};
use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

/// Writes a package's files into `dir` (created), synced to disk.
pub(crate) fn write_package(dir: &Path, package: &Package) -> std::io::Result<()> {
    private::create_dir_all(dir)?;
    write_synced(&dir.join(MANIFEST_FILE), &package.manifest)?;
    if let Some(icon) = &package.icon {
        write_synced(&dir.join(ICON_FILE), icon)?;
    }
    for (name, bytes) in &package.extras {
        write_synced(&dir.join(name), bytes)?;
    }
    sync_dir(dir)?;
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

/// Removes a folder and everything in it; a folder already gone is fine.
pub(crate) fn remove_dir(dir: &Path) -> std::io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
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
    // fall back to the clock so ids stay distinct.
    if getrandom::fill(&mut bytes).is_err() {
        bytes = (crate::db::now() as u64 ^ u64::from(std::process::id())).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// In tests, `DCPLUGIN_TEST_CRASH_AT=<point>` kills the process at that
/// point, as a power cut would; the crash tests drive every point of an
/// install or update this way. Unset, it does nothing.
pub(crate) fn crash_point(point: &str) {
    if std::env::var("DCPLUGIN_TEST_CRASH_AT").is_ok_and(|p| p == point) {
        std::process::abort();
    }
}
