//! Developer mode (§19) and the Actions tab: Try an action, the journal,
//! Open the plugins folder.

use super::open_in_file_manager;
use dcp_host::{ApiError, ErrorCode, Host, HostCode, JournalLine, JournalQuery, Model, Source, TriedAction, Turn};
use serde_json::Value;
use tauri::State;

/// Try an action: the call as the AI would make it, and the request sent.
#[tauri::command]
pub async fn try_action(
    host: State<'_, Host>,
    tool: String,
    args: Value,
    source: Source,
    model: Model,
) -> Result<TriedAction, ApiError> {
    let turn = Turn { source, model, live: false, builtin: 0, id: None, step: None };
    host.try_action(turn, &tool, args).await
}

/// Journal lines, newest first.
#[tauri::command]
pub async fn journal(host: State<'_, Host>, query: JournalQuery) -> Result<Vec<JournalLine>, ApiError> {
    host.journal(query).await
}

/// Open the plugins folder: opens it in the file manager and returns its
/// path (the panel shows it too, for a PC without a file manager).
#[tauri::command]
pub async fn open_plugins_folder(host: State<'_, Host>) -> Result<String, ApiError> {
    let folder = host.plugins_folder();
    std::fs::create_dir_all(&folder).map_err(|e| {
        ApiError::new(ErrorCode::Host(HostCode::Storage), format!("{} cannot be made: {e}", folder.display()))
    })?;
    open_in_file_manager(&folder)?;
    Ok(folder.display().to_string())
}
