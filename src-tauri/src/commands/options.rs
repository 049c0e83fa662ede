//! Options (§10, §11, §13, §12 Twitch): settings, secrets, the online-AI
//! choice, the Test button, and the settings' help links.

use crate::handed::Handed;
use crate::help;
use dcp_host::{ApiError, Card, CloudChoice, ErrorCode, Host, HostCode, PluginTest, Sensitive};
use serde_json::Value;
use tauri::State;

/// Options > Save: every value is checked first.
#[tauri::command]
pub async fn save_settings(
    host: State<'_, Host>,
    slug: String,
    values: Vec<(String, Value)>,
) -> Result<Card, ApiError> {
    host.save_settings(&slug, values).await
}

/// Sets a secret; it never comes back out.
#[tauri::command]
pub async fn set_secret(host: State<'_, Host>, slug: String, key: String, value: Sensitive) -> Result<Card, ApiError> {
    host.set_secret(&slug, &key, value).await
}

/// Clears a secret.
#[tauri::command]
pub async fn clear_secret(host: State<'_, Host>, slug: String, key: String) -> Result<Card, ApiError> {
    host.clear_secret(&slug, &key).await
}

/// Allow with online AI models, or keep on this PC.
#[tauri::command]
pub async fn set_cloud(host: State<'_, Host>, slug: String, choice: CloudChoice) -> Result<Card, ApiError> {
    host.set_cloud(&slug, choice).await
}

/// Use while live on Twitch.
#[tauri::command]
pub async fn set_twitch(host: State<'_, Host>, slug: String, allowed: bool) -> Result<Card, ApiError> {
    host.set_twitch(&slug, allowed).await
}

/// Options' Test button.
#[tauri::command]
pub async fn test_plugin(host: State<'_, Host>, slug: String) -> Result<PluginTest, ApiError> {
    host.test_plugin(&slug).await
}

/// Opens in the browser a help link of a setting the window shows (§10).
#[tauri::command]
pub fn open_help(handed: State<'_, Handed>, url: String) -> Result<(), ApiError> {
    let url = help::link_to_open(&handed, &url)?;
    open::that_detached(url.as_str())
        .map_err(|e| ApiError::new(ErrorCode::Host(HostCode::Internal), format!("{url} could not be opened: {e}")))
}
