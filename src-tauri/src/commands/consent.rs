//! Catalog, Import a plugin and Load a folder, up to the consent screen
//! and its Install or Cancel (§18, §19). The pickers are native dialogs
//! opened from Rust: the webview has no file access of its own, and acts
//! only on the paths and reviews it was handed ([`Handed`]).

use super::host;
use crate::handed::Handed;
use dcp_host::{ApiError, CatalogEntry, ErrorCode, Host, HostCode, InstallOptions, Installed, Review};
use std::path::PathBuf;
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::{DialogExt, FileDialogBuilder, FilePath};

/// The official plugins.
pub async fn catalog(app: &AppHandle) -> Result<Vec<CatalogEntry>, ApiError> {
    host(app).catalog().await
}

/// Imports a .json or .zip file; in developer mode a folder is Load a folder.
pub async fn import_path(app: &AppHandle, path: String) -> Result<Review, ApiError> {
    import_path_of(&host(app), &app.state(), path).await
}

/// What `import_path` does, without Tauri: only a path the window was given.
pub async fn import_path_of(host: &Host, handed: &Handed, path: String) -> Result<Review, ApiError> {
    handed.path(&path)?;
    let path = PathBuf::from(path);
    let review = if path.is_dir() && host.switches().await?.dev_mode {
        host.load_folder(path).await
    } else {
        host.import_path(path).await
    };
    Ok(handed.review(review?))
}

/// Load a folder (developer mode).
pub async fn load_folder(app: &AppHandle, path: String) -> Result<Review, ApiError> {
    let handed = app.state::<Handed>();
    handed.path(&path)?;
    Ok(handed.review(host(app).load_folder(PathBuf::from(path)).await?))
}

/// Starts installing an official plugin.
pub async fn import_official(app: &AppHandle, slug: String) -> Result<Review, ApiError> {
    Ok(app.state::<Handed>().review(host(app).import_official(&slug).await?))
}

/// The consent screen's Install, with its settings, secrets and online-AI answer.
pub async fn install(app: &AppHandle, review: String, options: InstallOptions) -> Result<Installed, ApiError> {
    install_of(&host(app), &app.state(), &review, options).await
}

/// What `install` does, without Tauri: only a review the window was shown.
pub async fn install_of(
    host: &Host,
    handed: &Handed,
    review: &str,
    options: InstallOptions,
) -> Result<Installed, ApiError> {
    handed.shown_review(review)?;
    let installed = host.install(review, options).await?;
    handed.forget_review(review);
    Ok(installed)
}

/// The consent screen's Cancel.
pub async fn cancel(app: &AppHandle, review: String) -> Result<(), ApiError> {
    cancel_of(&host(app), &app.state(), &review).await
}

/// What `cancel` does, without Tauri: only a review the window was shown.
pub async fn cancel_of(host: &Host, handed: &Handed, review: &str) -> Result<(), ApiError> {
    handed.shown_review(review)?;
    host.cancel(review).await?;
    handed.forget_review(review);
    Ok(())
}

/// Import a plugin's file picker (.json, .zip); none when cancelled.
/// `filter` names the file type in the picker, in the player's language:
/// the page words it, as it words everything the player reads.
pub async fn pick_plugin_file(app: &AppHandle, filter: String) -> Result<Option<String>, ApiError> {
    let dialog = app.dialog().file().add_filter(filter, &["json", "zip"]);
    picked(&app.state(), dialog, FileDialogBuilder::blocking_pick_file).await
}

/// Load a folder's picker; none when cancelled.
pub async fn pick_folder(app: &AppHandle) -> Result<Option<String>, ApiError> {
    picked(&app.state(), app.dialog().file(), FileDialogBuilder::blocking_pick_folder).await
}

/// Runs a native dialog off the async runtime's threads and gives its path
/// to the window.
async fn picked(
    handed: &Handed,
    dialog: FileDialogBuilder<tauri::Wry>,
    pick: fn(FileDialogBuilder<tauri::Wry>) -> Option<FilePath>,
) -> Result<Option<String>, ApiError> {
    let picked = tauri::async_runtime::spawn_blocking(move || pick(dialog))
        .await
        .map_err(|e| ApiError::new(ErrorCode::Host(HostCode::Internal), format!("the picker failed: {e}")))?;
    let path = picked.and_then(|p| p.into_path().ok()).map(|p| p.display().to_string());
    handed.paths(&path);
    Ok(path)
}
