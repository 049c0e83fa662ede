//! A file's stamp: what the file system changes whenever a file's content
//! may have changed (size, modification and change times, and on Unix the
//! device and inode, so a file replaced by a rename has another stamp).
//!
//! A stamp only vouches for the content once the file has been left alone
//! for [`SETTLE`]: a write in the same tick of the file system's clock as
//! the previous one can leave the times as they were (the "racy" case
//! known from git's index). On Unix the change time cannot be set back by
//! a user program, so a write after a settled stamp always shows.
//!
//! Windows has no such time within reach: std gives no change time there
//! (only behind an unstable feature), the NTFS one needs a system call this
//! workspace's `forbid(unsafe_code)` rules out, and any program may set it
//! anyway (`SetFileInformationByHandle`). An edit whose modification time
//! is set back, with the same size, would then go unseen (issue 35). So on
//! Windows the stamp also holds the SHA-256 of the bytes: a check reads the
//! file (a manifest, a few kilobytes) instead of only asking its metadata.

use std::path::Path;
use std::time::{Duration, SystemTime};

/// Longer than the coarsest timestamp of a file system a profile may live
/// on (FAT's 2 s).
const SETTLE: Duration = Duration::from_secs(3);

/// See the module doc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileStamp {
    len: u64,
    modified: SystemTime,
    #[cfg(unix)]
    device: u64,
    #[cfg(unix)]
    inode: u64,
    #[cfg(unix)]
    changed: (i64, i64),
    /// The content's hash, where no change time vouches for it.
    #[cfg(not(unix))]
    content: String,
}

impl FileStamp {
    /// The stamp of `path` now; `None` when it cannot be read.
    pub(crate) fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Some(FileStamp {
            len: meta.len(),
            modified: meta.modified().ok()?,
            #[cfg(unix)]
            device: meta.dev(),
            #[cfg(unix)]
            inode: meta.ino(),
            #[cfg(unix)]
            changed: (meta.ctime(), meta.ctime_nsec()),
            #[cfg(not(unix))]
            content: dcp_format::fingerprint::sha256_hex(&std::fs::read(path).ok()?),
        })
    }

    /// The stamp of `path` when it can vouch for the content read next:
    /// `None` when the file changed within [`SETTLE`] of `now` (the store's
    /// clock), or claims a time after it.
    pub(crate) fn settled(path: &Path, now: SystemTime) -> Option<FileStamp> {
        let stamp = FileStamp::of(path)?;
        let age = now.duration_since(stamp.last_change()?).ok()?;
        (age >= SETTLE).then_some(stamp)
    }

    /// The later of the modification and change times; `None` (never
    /// settled) when the change time is out of range.
    fn last_change(&self) -> Option<SystemTime> {
        #[cfg(unix)]
        {
            let (secs, nanos) = self.changed;
            let nanos = u32::try_from(nanos).ok().filter(|n| *n < 1_000_000_000)?;
            let changed = SystemTime::UNIX_EPOCH.checked_add(Duration::new(u64::try_from(secs).ok()?, nanos))?;
            Some(changed.max(self.modified))
        }
        #[cfg(not(unix))]
        {
            Some(self.modified)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Returns once the file system's clock has moved past `stamp`'s last
    /// change: a file written then shows a later time. In use, [`SETTLE`]
    /// covers this tick; a test waits for the tick itself.
    fn after_the_file_clock_ticks(dir: &Path, stamp: &FileStamp) {
        let probe = dir.join("probe");
        let deadline = std::time::Instant::now() + SETTLE;
        while std::time::Instant::now() < deadline {
            std::fs::write(&probe, "").expect("probe");
            if FileStamp::of(&probe).and_then(|p| p.last_change()) > stamp.last_change() {
                return;
            }
        }
        panic!("the file system's clock did not move within {SETTLE:?}");
    }

    #[test]
    fn a_file_just_written_does_not_settle_and_its_stamp_changes_with_it() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("manifest.json");
        std::fs::write(&path, "{}").expect("write");
        assert!(FileStamp::settled(&path, SystemTime::now()).is_none(), "written just now");
        let ahead = SystemTime::now() + SETTLE;
        assert!(FileStamp::settled(&path, ahead).is_some(), "settled once SETTLE has passed");
        let before = FileStamp::of(&path).expect("stamp");
        std::fs::write(&path, "{ }").expect("write");
        assert_ne!(FileStamp::of(&path), Some(before), "another size");
        assert!(FileStamp::of(&dir.path().join("absent")).is_none());
    }

    #[test]
    fn a_file_settles_after_a_while_and_a_rewrite_with_its_old_times_still_shows() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("manifest.json");
        std::fs::write(&path, "{\"a\":1}").expect("write");
        let old = SystemTime::now() - Duration::from_secs(3600);
        let file = std::fs::File::options().write(true).open(&path).expect("open");
        file.set_modified(old).expect("set mtime");
        drop(file);
        #[cfg(unix)]
        assert!(
            FileStamp::settled(&path, SystemTime::now()).is_none(),
            "the change time is now, whatever the modification time says"
        );
        let later = SystemTime::now() + SETTLE;
        let stamp = FileStamp::settled(&path, later).expect("settled once SETTLE has passed");
        // Same size, modification time set back: the change time differs
        // once the file system's clock has ticked.
        after_the_file_clock_ticks(dir.path(), &stamp);
        std::fs::write(&path, "{\"a\":2}").expect("write");
        let file = std::fs::File::options().write(true).open(&path).expect("open");
        file.set_modified(old).expect("set mtime");
        drop(file);
        assert_ne!(FileStamp::of(&path), Some(stamp));
    }
}
