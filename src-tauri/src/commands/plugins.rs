//! My plugins (§18): cards, icons, details, the switches, Keep, Uninstall.

use super::open_in_file_manager;
use crate::handed::Handed;
use crate::icon;
use dcp_host::{ApiError, Card, Host, PluginDetails};
use tauri::State;

/// The cards of My plugins.
#[tauri::command]
pub async fn plugin_cards(host: State<'_, Host>) -> Result<Vec<Card>, ApiError> {
    host.cards().await
}

/// One card.
#[tauri::command]
pub async fn plugin_card(host: State<'_, Host>, slug: String) -> Result<Card, ApiError> {
    host.card(&slug).await
}

/// The plugin's icon as a `data:` URL; none means the letter tile (§4).
#[tauri::command]
pub async fn plugin_icon(host: State<'_, Host>, slug: String) -> Result<Option<String>, ApiError> {
    Ok(host.icon(&slug).await?.map(|png| icon::data_url(&png)))
}

/// Details, Options and the Developer section.
#[tauri::command]
pub async fn plugin_details(
    host: State<'_, Host>,
    handed: State<'_, Handed>,
    slug: String,
) -> Result<PluginDetails, ApiError> {
    Ok(handed.details(host.details(&slug).await?))
}

/// Reload plugins (developer mode): re-reads every installed file.
#[tauri::command]
pub async fn reload_plugins(host: State<'_, Host>) -> Result<Vec<Card>, ApiError> {
    host.reload().await
}

/// The card's on/off switch.
#[tauri::command]
pub async fn set_enabled(host: State<'_, Host>, slug: String, on: bool) -> Result<Card, ApiError> {
    host.set_enabled(&slug, on).await
}

/// One action's switch.
#[tauri::command]
pub async fn set_action_enabled(host: State<'_, Host>, slug: String, tool: String, on: bool) -> Result<Card, ApiError> {
    host.set_action_enabled(&slug, &tool, on).await
}

/// Uninstall: the plugin, its settings and its secrets.
#[tauri::command]
pub async fn uninstall(host: State<'_, Host>, slug: String) -> Result<(), ApiError> {
    host.uninstall(&slug).await
}

/// The review banner's Keep.
#[tauri::command]
pub async fn keep_plugin(host: State<'_, Host>, slug: String) -> Result<Card, ApiError> {
    host.keep(&slug).await
}

/// The Developer section's folder Open (§19).
#[tauri::command]
pub async fn open_plugin_folder(host: State<'_, Host>, slug: String) -> Result<(), ApiError> {
    open_in_file_manager(&host.details(&slug).await?.folder)
}
