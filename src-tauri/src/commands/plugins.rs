//! My plugins (§18): cards, icons, details, the switches, Keep, Uninstall.

use super::{host, open_with_os};
use crate::handed::Handed;
use crate::icon;
use dcp_host::{ApiError, Card, PluginDetails};
use tauri::{AppHandle, Manager};

/// The cards of My plugins.
pub async fn cards(app: &AppHandle) -> Result<Vec<Card>, ApiError> {
    host(app).cards().await
}

/// One card.
pub async fn card(app: &AppHandle, slug: String) -> Result<Card, ApiError> {
    host(app).card(&slug).await
}

/// The plugin's icon as a `data:` URL; none means the letter tile (§4).
pub async fn icon(app: &AppHandle, slug: String) -> Result<Option<String>, ApiError> {
    Ok(host(app).icon(&slug).await?.map(|png| icon::data_url(&png)))
}

/// Details, Options and the Developer section.
pub async fn details(app: &AppHandle, slug: String) -> Result<PluginDetails, ApiError> {
    Ok(app.state::<Handed>().details(host(app).details(&slug).await?))
}

/// Reload plugins (developer mode): re-reads every installed file.
pub async fn reload(app: &AppHandle) -> Result<Vec<Card>, ApiError> {
    host(app).reload().await
}

/// The card's on/off switch.
pub async fn set_enabled(app: &AppHandle, slug: String, on: bool) -> Result<Card, ApiError> {
    host(app).set_enabled(&slug, on).await
}

/// One action's switch.
pub async fn set_action_enabled(app: &AppHandle, slug: String, tool: String, on: bool) -> Result<Card, ApiError> {
    host(app).set_action_enabled(&slug, &tool, on).await
}

/// Uninstall: the plugin, its settings and its secrets.
pub async fn uninstall(app: &AppHandle, slug: String) -> Result<(), ApiError> {
    host(app).uninstall(&slug).await
}

/// The review banner's Keep.
pub async fn keep(app: &AppHandle, slug: String) -> Result<Card, ApiError> {
    host(app).keep(&slug).await
}

/// The Developer section's folder Open (§19).
pub async fn open_plugin_folder(app: &AppHandle, slug: String) -> Result<(), ApiError> {
    open_with_os(&host(app).details(&slug).await?.folder)
}
