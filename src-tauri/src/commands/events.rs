//! A plugin's Events section (§16). The event token goes from the host
//! straight to the clipboard: it never reaches the webview.

use super::host;
use dcp_host::{ApiError, Card, ErrorCode, EventsPage, HostCode, Sensitive};
use tauri::AppHandle;
use tauri_plugin_clipboard_manager::ClipboardExt;

/// The Events section.
pub async fn events_page(app: &AppHandle, slug: String) -> Result<EventsPage, ApiError> {
    host(app).events_page(&slug).await
}

/// An event's switch.
pub async fn set_event_enabled(app: &AppHandle, slug: String, event: String, on: bool) -> Result<Card, ApiError> {
    host(app).set_event_enabled(&slug, &event, on).await
}

/// Copy: the token (made when first asked) to the clipboard.
pub async fn copy_event_token(app: &AppHandle, slug: String) -> Result<(), ApiError> {
    to_clipboard(app, host(app).event_token(&slug).await?)
}

/// New token: the old one stops working at once; the new one is copied.
pub async fn new_event_token(app: &AppHandle, slug: String) -> Result<(), ApiError> {
    to_clipboard(app, host(app).new_event_token(&slug).await?)
}

fn to_clipboard(app: &AppHandle, token: Sensitive) -> Result<(), ApiError> {
    app.clipboard().write_text(token.expose()).map_err(|e| {
        ApiError::new(ErrorCode::Host(HostCode::Internal), format!("the clipboard could not be written: {e}"))
    })
}
