//! The Tools tab's AI settings (§13): the companion's AI URL and model, its
//! API key (taken in, never given back: the page learns only `key_set`),
//! the most tokens one answer may have (issue 34), Test, and the search for
//! an AI server on this PC.

use super::host;
use dcp_host::{AiSettings, AiTest, ApiError, FoundAi, KnownServer, Sensitive};
use tauri::AppHandle;

/// The companion's AI as the profile keeps it, without the key.
pub async fn ai(app: &AppHandle) -> Result<AiSettings, ApiError> {
    host(app).ai().await
}

/// Sets the URL and/or the model; a URL §13 refuses changes nothing.
pub async fn set_ai(app: &AppHandle, url: Option<String>, model: Option<String>) -> Result<AiSettings, ApiError> {
    host(app).set_ai(url, model).await
}

/// Sets the most tokens one answer may have, as typed (the host judges
/// it); `None` goes back to the default.
pub async fn set_ai_max_tokens(app: &AppHandle, max_tokens: Option<String>) -> Result<AiSettings, ApiError> {
    host(app).set_ai_max_tokens(max_tokens).await
}

/// Keeps the service's API key for the current URL's host.
pub async fn set_ai_key(app: &AppHandle, key: Sensitive) -> Result<AiSettings, ApiError> {
    host(app).set_ai_key(key).await
}

/// Forgets the API key.
pub async fn clear_ai_key(app: &AppHandle) -> Result<AiSettings, ApiError> {
    host(app).clear_ai_key().await
}

/// The Test button (`probe`: the player asked, and may wait for the model
/// to load), or the AI settings' own look as they open: reaches the AI and
/// lists its models.
pub async fn ai_test(app: &AppHandle, probe: bool) -> Result<AiTest, ApiError> {
    host(app).ai_test(probe).await
}

/// "AI on this PC": what answers on the known servers' usual ports.
pub async fn find_pc_ai(app: &AppHandle) -> Result<Vec<FoundAi>, ApiError> {
    Ok(host(app).find_pc_ai().await)
}

/// "AI on this PC": the servers the app looks for, by name and port.
pub async fn pc_servers(app: &AppHandle) -> Result<Vec<KnownServer>, ApiError> {
    Ok(host(app).pc_servers().await)
}
