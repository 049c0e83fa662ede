//! The commands, by screen. Each awaits one [`dcp_host::Host`] method, or
//! does the one desktop thing the engine cannot (a picker, the clipboard,
//! the file manager), and rejects with the engine's `ApiError`. Each takes
//! the app handle and the arguments `surface.rs` declares for it.

pub mod ai;
pub mod app;
pub mod companion;
pub mod consent;
pub mod developer;
pub mod events;
pub mod options;
pub mod plugins;

use dcp_host::{ApiError, ErrorCode, Host, HostCode};
use std::path::Path;
use tauri::{AppHandle, Manager, State};

/// The host the app opened at start.
fn host(app: &AppHandle) -> State<'_, Host> {
    app.state()
}

/// Opens a folder in the OS file manager.
fn open_in_file_manager(folder: &Path) -> Result<(), ApiError> {
    open::that_detached(folder).map_err(|e| {
        ApiError::new(ErrorCode::Host(HostCode::Internal), format!("{} could not be opened: {e}", folder.display()))
    })
}
