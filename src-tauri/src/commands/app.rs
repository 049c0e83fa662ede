//! The settings panel around the tabs: the app switches (§18, §19), the
//! secrets warning (§11), files opened with the app, start-up time.

use super::host;
use crate::handed::Handed;
use crate::opened::OpenedFiles;
use crate::Started;
use dcp_host::{ApiError, AppSwitches, Host, SwitchesPatch};
use tauri::{AppHandle, Manager};

/// The app switches.
pub async fn switches(app: &AppHandle) -> Result<AppSwitches, ApiError> {
    host(app).switches().await
}

/// Changes some app switches.
pub async fn set_switches(app: &AppHandle, patch: SwitchesPatch) -> Result<AppSwitches, ApiError> {
    host(app).set_switches(patch).await
}

/// The sentence to show where saved secrets last only until this PC
/// restarts (no keyring keeps them, §11); none where they are kept.
pub async fn secrets_warning(app: &AppHandle) -> Result<Option<String>, ApiError> {
    Ok(secrets_warning_of(&host(app)).await)
}

/// What `secrets_warning` answers, without Tauri.
pub async fn secrets_warning_of(host: &Host) -> Option<String> {
    host.secrets_persistence().await.warning().map(str::to_owned)
}

/// The paths opened with the app and not yet taken; the queue is empty after.
pub async fn take_opened_files(app: &AppHandle) -> Result<Vec<String>, ApiError> {
    let paths = app.state::<OpenedFiles>().take();
    app.state::<Handed>().paths(&paths);
    Ok(paths)
}

/// Milliseconds since the process started: the UI calls it once My plugins is drawn.
pub async fn ui_ready(app: &AppHandle) -> Result<u64, ApiError> {
    Ok(u64::try_from(app.state::<Started>().0.elapsed().as_millis()).unwrap_or(u64::MAX))
}
