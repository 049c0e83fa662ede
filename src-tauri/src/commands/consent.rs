//! Catalog, Import a plugin and Load a folder, up to the consent screen
//! and its Install or Cancel (§18, §19). The pickers are native dialogs
//! opened from Rust: the webview has no file access of its own.

use dcp_host::{ApiError, CatalogEntry, ErrorCode, Host, HostCode, ImportCheck, InstallOptions, Installed, Review};
use std::path::PathBuf;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::{DialogExt, FileDialogBuilder, FilePath};

/// The official plugins.
#[tauri::command]
pub async fn catalog(host: State<'_, Host>) -> Result<Vec<CatalogEntry>, ApiError> {
    host.catalog().await
}

/// Checks a file as an import would, without keeping it.
#[tauri::command]
pub async fn validate_plugin(host: State<'_, Host>, path: String) -> Result<ImportCheck, ApiError> {
    host.check_import(PathBuf::from(path)).await
}

/// Imports a .json or .zip file; in developer mode a folder is Load a folder.
#[tauri::command]
pub async fn import_path(host: State<'_, Host>, path: String) -> Result<Review, ApiError> {
    let path = PathBuf::from(path);
    if path.is_dir() && host.switches().await?.dev_mode {
        return host.load_folder(path).await;
    }
    host.import_path(path).await
}

/// Imports a file's bytes, named as the file was.
#[tauri::command]
pub async fn import_bytes(host: State<'_, Host>, file_name: String, bytes: Vec<u8>) -> Result<Review, ApiError> {
    host.import_bytes(file_name, bytes).await
}

/// Load a folder (developer mode).
#[tauri::command]
pub async fn load_folder(host: State<'_, Host>, path: String) -> Result<Review, ApiError> {
    host.load_folder(PathBuf::from(path)).await
}

/// Starts installing an official plugin.
#[tauri::command]
pub async fn import_official(host: State<'_, Host>, slug: String) -> Result<Review, ApiError> {
    host.import_official(&slug).await
}

/// A pending review again.
#[tauri::command]
pub async fn review(host: State<'_, Host>, id: String) -> Result<Review, ApiError> {
    host.review(&id).await
}

/// The consent screen's Install, with its settings, secrets and online-AI answer.
#[tauri::command]
pub async fn install(host: State<'_, Host>, review: String, options: InstallOptions) -> Result<Installed, ApiError> {
    host.install(&review, options).await
}

/// The consent screen's Cancel.
#[tauri::command]
pub async fn cancel_review(host: State<'_, Host>, review: String) -> Result<(), ApiError> {
    host.cancel(&review).await
}

/// Import a plugin's file picker (.json, .zip); none when cancelled.
#[tauri::command]
pub async fn pick_plugin_file(app: AppHandle) -> Result<Option<String>, ApiError> {
    let dialog = app.dialog().file().add_filter("Companion plugin", &["json", "zip"]);
    picked(dialog, FileDialogBuilder::blocking_pick_file).await
}

/// Load a folder's picker; none when cancelled.
#[tauri::command]
pub async fn pick_folder(app: AppHandle) -> Result<Option<String>, ApiError> {
    picked(app.dialog().file(), FileDialogBuilder::blocking_pick_folder).await
}

/// Runs a native dialog off the async runtime's threads and gives its path.
async fn picked(
    dialog: FileDialogBuilder<tauri::Wry>,
    pick: fn(FileDialogBuilder<tauri::Wry>) -> Option<FilePath>,
) -> Result<Option<String>, ApiError> {
    let picked = tauri::async_runtime::spawn_blocking(move || pick(dialog))
        .await
        .map_err(|e| ApiError::new(ErrorCode::Host(HostCode::Internal), format!("the picker failed: {e}")))?;
    Ok(picked.and_then(|p| p.into_path().ok()).map(|p| p.display().to_string()))
}
