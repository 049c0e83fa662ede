//! A plugin's Events section (§16). The event token goes from the host
//! straight to the clipboard: it never reaches the webview.

use dcp_host::{ApiError, Card, ErrorCode, EventsPage, Host, HostCode, Sensitive};
use tauri::{AppHandle, State};
use tauri_plugin_clipboard_manager::ClipboardExt;

/// The Events section.
#[tauri::command]
pub async fn events_page(host: State<'_, Host>, slug: String) -> Result<EventsPage, ApiError> {
    host.events_page(&slug).await
}

/// An event's switch.
#[tauri::command]
pub async fn set_event_enabled(host: State<'_, Host>, slug: String, event: String, on: bool) -> Result<Card, ApiError> {
    host.set_event_enabled(&slug, &event, on).await
}

/// Copy: the token (made when first asked) to the clipboard.
#[tauri::command]
pub async fn copy_event_token(app: AppHandle, host: State<'_, Host>, slug: String) -> Result<(), ApiError> {
    to_clipboard(&app, host.event_token(&slug).await?)
}

/// New token: the old one stops working at once; the new one is copied.
#[tauri::command]
pub async fn new_event_token(app: AppHandle, host: State<'_, Host>, slug: String) -> Result<(), ApiError> {
    to_clipboard(&app, host.new_event_token(&slug).await?)
}

fn to_clipboard(app: &AppHandle, token: Sensitive) -> Result<(), ApiError> {
    app.clipboard().write_text(token.expose()).map_err(|e| {
        ApiError::new(ErrorCode::Host(HostCode::Internal), format!("the clipboard could not be written: {e}"))
    })
}
