//! The settings panel around the tabs: the app switches (§18, §19), the
//! secrets warning (§11), files opened with the app, start-up time.

use crate::handed::Handed;
use crate::opened::OpenedFiles;
use crate::Started;
use dcp_host::{ApiError, AppSwitches, Host, SwitchesPatch};
use tauri::State;

/// The app switches.
#[tauri::command]
pub async fn switches(host: State<'_, Host>) -> Result<AppSwitches, ApiError> {
    host.switches().await
}

/// Changes some app switches.
#[tauri::command]
pub async fn set_switches(host: State<'_, Host>, patch: SwitchesPatch) -> Result<AppSwitches, ApiError> {
    host.set_switches(patch).await
}

/// The sentence to show where saved secrets last only until this PC
/// restarts (no keyring keeps them, §11); none where they are kept.
#[tauri::command]
pub async fn secrets_warning(host: State<'_, Host>) -> Result<Option<String>, ApiError> {
    Ok(secrets_warning_of(&host).await)
}

/// What `secrets_warning` answers, without Tauri.
pub async fn secrets_warning_of(host: &Host) -> Option<String> {
    host.secrets_persistence().await.warning().map(str::to_owned)
}

/// The paths opened with the app and not yet taken; the queue is empty after.
#[tauri::command]
pub fn take_opened_files(opened: State<'_, OpenedFiles>, handed: State<'_, Handed>) -> Vec<String> {
    let paths = opened.take();
    handed.paths(&paths);
    paths
}

/// Milliseconds since the process started: the UI calls it once My plugins is drawn.
#[tauri::command]
pub fn ui_ready(started: State<'_, Started>) -> u64 {
    u64::try_from(started.0.elapsed().as_millis()).unwrap_or(u64::MAX)
}
