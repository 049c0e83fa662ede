//! Watching folder plugins (§19): every save of a loaded folder's
//! manifest.json or icon.png reloads the plugin by itself, within a second.
//!
//! A background thread keeps one `notify` watch per folder plugin (each
//! folder non-recursively, so an editor's save-by-rename is seen too),
//! debounces bursts of events for 200 ms, then reloads through its own
//! [`Store`] connection and hands the new statuses to the caller. Every
//! half second it also re-reads which folders are loaded, so a folder
//! loaded or removed by another process sharing the profile is picked up.

use crate::error::StoreError;
use crate::registry::Entry;
use crate::review::Origin;
use crate::{Profile, Store};
use dcp_format::package::{ICON_FILE, MANIFEST_FILE};
use dcp_vault::KeyStore;
use notify::RecursiveMode;
use notify_debouncer_mini::{new_debouncer, DebounceEventResult};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

const DEBOUNCE: Duration = Duration::from_millis(200);
const RESCAN: Duration = Duration::from_millis(500);

/// A running watcher; dropping it stops the thread.
pub struct FolderWatcher {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FolderWatcher {
    /// Starts watching the folder plugins of `profile`. `on_reload` gets the
    /// statuses after each reload caused by a save.
    pub fn start(
        profile: Profile,
        key_store: Arc<dyn KeyStore>,
        on_reload: impl Fn(Vec<Entry>) + Send + 'static,
    ) -> Result<FolderWatcher, StoreError> {
        let store = Store::open(profile, key_store)?;
        let (tx, rx) = mpsc::channel::<DebounceEventResult>();
        let mut debouncer =
            new_debouncer(DEBOUNCE, tx).map_err(|e| StoreError::Unknown(format!("cannot watch folders: {e}")))?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut watched: BTreeSet<PathBuf> = BTreeSet::new();
            while !stopping.load(Ordering::Relaxed) {
                let folders = folder_dirs(&store);
                for gone in watched.difference(&folders).cloned().collect::<Vec<_>>() {
                    let _ = debouncer.watcher().unwatch(&gone);
                    watched.remove(&gone);
                }
                for new in folders.difference(&watched).cloned().collect::<Vec<_>>() {
                    if debouncer.watcher().watch(&new, RecursiveMode::NonRecursive).is_ok() {
                        watched.insert(new);
                    }
                }
                match rx.recv_timeout(RESCAN) {
                    Ok(Ok(events)) if events.iter().any(|e| is_package_file(&e.path)) => {
                        if let Ok(entries) = store.reload() {
                            on_reload(entries);
                        }
                    }
                    Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
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

fn folder_dirs(store: &Store) -> BTreeSet<PathBuf> {
    store
        .rows()
        .map(|rows| rows.into_iter().filter(|r| r.origin == Origin::Folder).map(|r| r.dir).collect())
        .unwrap_or_default()
}

fn is_package_file(path: &std::path::Path) -> bool {
    path.file_name().is_some_and(|n| n == MANIFEST_FILE || n == ICON_FILE)
}
