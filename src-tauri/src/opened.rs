//! Files and folders opened with the app: given on the command line (an OS
//! "open with" or a file association), handed over by a second launch, or
//! dropped on the window. Each lands in one queue and is announced as the
//! Tauri event [`OPEN_FILES`]; the UI imports them, then drains the queue
//! with `take_opened_files` (at start too, for the command line's). While
//! files are dragged over the window, [`DROP_HOVER`] says so, so the UI can
//! show where to drop them.

use crate::handed::Handed;
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use tauri::{AppHandle, DragDropEvent, Emitter, Manager, Window, WindowEvent};

/// The Tauri event carrying the newly opened paths (`string[]`).
pub const OPEN_FILES: &str = "open-files";

/// The Tauri event saying files are being dragged over the window (`true`)
/// or no longer are (`false`: dropped, or the drag left).
pub const DROP_HOVER: &str = "drop-hover";

/// Paths opened and not yet taken by the UI, in order, each once.
#[derive(Default)]
pub struct OpenedFiles(Mutex<Vec<String>>);

impl OpenedFiles {
    /// Queues the paths not already waiting; returns those added.
    pub fn push(&self, paths: Vec<String>) -> Vec<String> {
        let mut queue = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut added = Vec::new();
        for path in paths {
            if !queue.contains(&path) {
                queue.push(path.clone());
                added.push(path);
            }
        }
        added
    }

    /// Everything waiting, oldest first; the queue is empty after.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The paths among a launch's arguments (the program's name left out),
/// absolute: a relative one is taken from the launch's folder. Options
/// (`-…`) are not paths.
pub fn paths_from_args(args: impl IntoIterator<Item = String>, cwd: &Path) -> Vec<String> {
    args.into_iter()
        .filter(|a| !a.is_empty() && !a.starts_with('-'))
        .map(|a| cwd.join(a).display().to_string())
        .collect()
}

/// Queues paths and tells the window about the new ones, which it may
/// then import ([`Handed`]).
pub fn open_files(app: &AppHandle, paths: Vec<String>) {
    let added = app.state::<OpenedFiles>().push(paths);
    app.state::<Handed>().paths(&added);
    if !added.is_empty() {
        // A window still loading misses it, and takes the queue when ready.
        let _ = app.emit(OPEN_FILES, added);
    }
}

/// Files dropped on the window are opened like the command line's; a drag
/// entering or leaving is told to the UI.
pub fn on_drop(window: &Window, event: &WindowEvent) {
    let WindowEvent::DragDrop(drag) = event else { return };
    match drag {
        DragDropEvent::Enter { .. } => {
            let _ = window.emit(DROP_HOVER, true);
        }
        DragDropEvent::Leave => {
            let _ = window.emit(DROP_HOVER, false);
        }
        DragDropEvent::Drop { paths, .. } => {
            let _ = window.emit(DROP_HOVER, false);
            open_files(window.app_handle(), paths.iter().map(|p| p.display().to_string()).collect());
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{paths_from_args, OpenedFiles};
    use std::path::Path;

    #[test]
    fn the_queue_keeps_order_drops_repeats_and_empties_when_taken() {
        let queue = OpenedFiles::default();
        assert_eq!(queue.push(vec!["/a.json".into(), "/b.zip".into()]), ["/a.json", "/b.zip"]);
        assert_eq!(queue.push(vec!["/b.zip".into(), "/c".into()]), ["/c"]);
        assert_eq!(queue.take(), ["/a.json", "/b.zip", "/c"]);
        assert!(queue.take().is_empty());
    }

    #[test]
    fn arguments_become_absolute_paths_and_options_are_left_out() {
        let args = ["plugin.json", "--verbose", "/tmp/p.zip", "", "dir/sub"].map(String::from);
        assert_eq!(
            paths_from_args(args, Path::new("/home/me")),
            ["/home/me/plugin.json", "/tmp/p.zip", "/home/me/dir/sub"]
        );
    }
}
