//! Developer mode (§19) and the Actions tab: Try an action, the journal,
//! Open the plugins folder.

use super::{host, open_with_os};
use dcp_host::{ApiError, Ask, ErrorCode, Host, HostCode, JournalLine, JournalQuery, Place, Source, TriedAction, Turn};
use serde_json::Value;
use std::sync::Arc;
use tauri::AppHandle;

/// Try an action: the call as the AI would make it, and the request sent.
/// An R3 action asks the player through the same dialog as the
/// companion's turns (§12): only a yes sends it.
pub async fn try_action(
    app: &AppHandle,
    tool: String,
    args: Value,
    source: Source,
    model: Place,
) -> Result<TriedAction, ApiError> {
    try_action_of(&host(app), super::companion::window_asker(app), &tool, args, source, model).await
}

/// What `try_action` does, asking `ask`.
pub async fn try_action_of(
    host: &Host,
    ask: Arc<dyn Ask>,
    tool: &str,
    args: Value,
    source: Source,
    model: Place,
) -> Result<TriedAction, ApiError> {
    let turn = Turn { can_confirm: true, ..Turn::new(source, model) };
    host.try_action(turn, tool, args, Some(ask)).await
}

/// Journal lines, newest first.
pub async fn journal(app: &AppHandle, query: JournalQuery) -> Result<Vec<JournalLine>, ApiError> {
    host(app).journal(query).await
}

/// Open the plugins folder: opens it in the file manager and returns its
/// path (the panel shows it too, for a PC without a file manager).
pub async fn open_plugins_folder(app: &AppHandle) -> Result<String, ApiError> {
    let folder = host(app).plugins_folder();
    std::fs::create_dir_all(&folder).map_err(|e| {
        ApiError::new(ErrorCode::Host(HostCode::Storage), format!("{} cannot be made: {e}", folder.display()))
    })?;
    open_with_os(&folder)?;
    Ok(folder.display().to_string())
}
