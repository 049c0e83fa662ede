//! Options (§10, §11, §13, §12 Twitch): settings, secrets, the online-AI
//! choice, the Test button, and the settings' help links.

use super::{host, open_with_os};
use crate::help;
use dcp_host::{ApiError, Card, CloudChoice, PluginTest, Sensitive};
use serde_json::Value;
use tauri::{AppHandle, Manager};

/// Options > Save: every value is checked first.
pub async fn save_settings(app: &AppHandle, slug: String, values: Vec<(String, Value)>) -> Result<Card, ApiError> {
    host(app).save_settings(&slug, values).await
}

/// Sets a secret; it never comes back out.
pub async fn set_secret(app: &AppHandle, slug: String, key: String, value: Sensitive) -> Result<Card, ApiError> {
    host(app).set_secret(&slug, &key, value).await
}

/// Clears a secret.
pub async fn clear_secret(app: &AppHandle, slug: String, key: String) -> Result<Card, ApiError> {
    host(app).clear_secret(&slug, &key).await
}

/// Allow with online AI models, or keep on this PC.
pub async fn set_cloud(app: &AppHandle, slug: String, choice: CloudChoice) -> Result<Card, ApiError> {
    host(app).set_cloud(&slug, choice).await
}

/// Use while live on Twitch.
pub async fn set_twitch(app: &AppHandle, slug: String, allowed: bool) -> Result<Card, ApiError> {
    host(app).set_twitch(&slug, allowed).await
}

/// Options' Test button.
pub async fn test_plugin(app: &AppHandle, slug: String) -> Result<PluginTest, ApiError> {
    host(app).test_plugin(&slug).await
}

/// Opens in the browser a help link of a setting the window shows (§10).
pub async fn open_help(app: &AppHandle, url: String) -> Result<(), ApiError> {
    open_with_os(help::link_to_open(&app.state(), &url)?.as_str())
}
