//! Watching folder plugins (§19): every save of a loaded folder's
//! manifest.json or icon.png reloads the plugin by itself, within a second.
//!
//! A background thread keeps one `notify` watch per folder plugin (each
//! folder non-recursively, so an editor's save-by-rename is seen too). A
//! change to a package file starts a reload once the folder has been quiet
//! for 200 ms (a save is a burst of events), through the thread's own
//! [`Store`] connection, and the new statuses go to the caller. Reads are
//! not saves: the reload itself opens the files, and taking that for a
//! change would reload for ever. A reload that fails (the profile locked
//! past its busy timeout, a full disk) is reported and tried again every
//! half second until it succeeds, so a save is never lost. Every half
//! second the thread also re-reads which folders are loaded, so a folder
//! loaded or removed by another process sharing the profile is picked up.

use crate::error::StoreError;
use crate::registry::Card;
use crate::review::Origin;
use crate::{Profile, Store};
use dcp_format::package::{ICON_FILE, MANIFEST_FILE};
use dcp_vault::KeyStore;
use notify::{Event, EventKind, RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

type Events = Receiver<notify::Result<Event>>;

const DEBOUNCE: Duration = Duration::from_millis(200);
/// A folder that never goes quiet still reloads within §19's second.
const SETTLE_AT_MOST: Duration = Duration::from_millis(600);
const RESCAN: Duration = Duration::from_millis(500);

/// A running watcher; dropping it stops the thread.
pub struct FolderWatcher {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FolderWatcher {
    /// Starts watching the folder plugins of `profile`; saves are seen from
    /// the moment it returns. `on_reload` gets the statuses after each
    /// reload caused by a save, or why it failed (it is then tried again).
    pub fn start(
        profile: Profile,
        key_store: Arc<dyn KeyStore>,
        on_reload: impl Fn(Result<Vec<Card>, StoreError>) + Send + 'static,
    ) -> Result<FolderWatcher, StoreError> {
        let store = Store::open(profile, key_store)?;
        let (tx, rx) = mpsc::channel();
        let mut watcher =
            notify::recommended_watcher(tx).map_err(|e| StoreError::Internal(format!("cannot watch folders: {e}")))?;
        // Watching before returning: a save right after `start` is seen.
        let mut watched = BTreeSet::new();
        follow_folders(&store, &mut watcher, &mut watched);
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut pending = false;
            while !stopping.load(Ordering::Relaxed) {
                match rx.recv_timeout(RESCAN) {
                    Ok(event) if is_save(&event) => {
                        settle(&rx);
                        pending = true;
                    }
                    Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                if pending {
                    let reloaded = store.reload();
                    pending = reloaded.is_err();
                    on_reload(reloaded);
                }
                follow_folders(&store, &mut watcher, &mut watched);
            }
        });
        Ok(FolderWatcher { stop, thread: Some(thread) })
    }
}

impl Drop for FolderWatcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Watches the folders loaded now, and only those.
fn follow_folders(store: &Store, watcher: &mut impl Watcher, watched: &mut BTreeSet<PathBuf>) {
    let folders: BTreeSet<PathBuf> = store
        .rows()
        .map(|rows| rows.into_iter().filter(|r| r.origin == Origin::Folder).map(|r| r.dir).collect())
        .unwrap_or_default();
    for gone in watched.difference(&folders).cloned().collect::<Vec<_>>() {
        let _ = watcher.unwatch(&gone);
        watched.remove(&gone);
    }
    for new in folders.difference(watched).cloned().collect::<Vec<_>>() {
        if watcher.watch(&new, RecursiveMode::NonRecursive).is_ok() {
            watched.insert(new);
        }
    }
}

/// A change to a package file, or events lost (the OS queue overflowed), so
/// anything may have changed. Opening and closing a file is no change.
fn is_save(event: &notify::Result<Event>) -> bool {
    let Ok(event) = event else { return false };
    if event.need_rescan() {
        return true;
    }
    !matches!(event.kind, EventKind::Access(_)) && event.paths.iter().any(|p| is_package_file(p))
}

/// Waits until no save came for [`DEBOUNCE`], or [`SETTLE_AT_MOST`] passed.
fn settle(events: &Events) {
    let started = Instant::now();
    let mut quiet_at = started + DEBOUNCE;
    loop {
        let now = Instant::now();
        let Some(wait) = quiet_at.min(started + SETTLE_AT_MOST).checked_duration_since(now) else { return };
        match events.recv_timeout(wait) {
            Ok(event) if is_save(&event) => quiet_at = Instant::now() + DEBOUNCE,
            Ok(_) => {}
            Err(_) => return,
        }
    }
}

fn is_package_file(path: &std::path::Path) -> bool {
    path.file_name().is_some_and(|n| n == MANIFEST_FILE || n == ICON_FILE)
}
