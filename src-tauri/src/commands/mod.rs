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
pub mod twitch;

use dcp_host::{ApiError, ErrorCode, Host, HostCode};
use std::ffi::OsStr;
use tauri::{AppHandle, Manager, State};

/// The host the app opened at start.
fn host(app: &AppHandle) -> State<'_, Host> {
    app.state()
}

/// Hands `what` to the OS, which opens it with the player's program for
/// it: a folder in the file manager, a web address in the system browser.
fn open_with_os(what: impl AsRef<OsStr>) -> Result<(), ApiError> {
    let what = what.as_ref();
    open::that_detached(what).map_err(|e| {
        ApiError::new(
            ErrorCode::Host(HostCode::Internal),
            format!("{} could not be opened: {e}", what.to_string_lossy()),
        )
    })
}
