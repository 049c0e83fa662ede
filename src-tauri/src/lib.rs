//! The Tauri shell of the Desktop Companion plugin host.
//!
//! *Architecture invariant:* this crate implements no rule. Each command is
//! a `#[tauri::command] async fn` that awaits one method of the engine's
//! [`Host`] (managed state, opened once at start) and returns its DTO or
//! its `{code, message}` error unchanged.
//!
//! *API boundary:* the commands registered in [`run`] are the whole surface
//! the webview sees; the capability file (`capabilities/main.json`) grants
//! the window exactly those commands.

use dcp_host::{ApiError, Card, Host, HostOptions, ImportCheck};
use std::path::PathBuf;
use tauri::State;

/// Checks the file at `path` as an import would (the validator and the
/// host's checks: a folder, developer mode), without keeping it.
#[tauri::command]
async fn validate_plugin(host: State<'_, Host>, path: String) -> Result<ImportCheck, ApiError> {
    host.check_import(PathBuf::from(path)).await
}

/// The cards of My plugins.
#[tauri::command]
async fn plugin_cards(host: State<'_, Host>) -> Result<Vec<Card>, ApiError> {
    host.cards().await
}

/// The sentence to show where saved secrets last only until this PC
/// restarts (no keyring keeps them, §11); none where they are kept.
#[tauri::command]
async fn secrets_warning(host: State<'_, Host>) -> Result<Option<String>, ApiError> {
    Ok(secrets_warning_of(&host).await)
}

/// What `secrets_warning` answers, without Tauri.
pub async fn secrets_warning_of(host: &Host) -> Option<String> {
    host.secrets_persistence().await.warning().map(str::to_owned)
}

/// Open the plugins folder (§19): opens the profile's plugins folder in the
/// OS file manager and returns its path (the panel shows it too, for a PC
/// without a file manager).
#[tauri::command]
async fn open_plugins_folder(host: State<'_, Host>) -> Result<String, String> {
    let folder = host.plugins_folder();
    std::fs::create_dir_all(&folder).map_err(|e| format!("{} cannot be made: {e}", folder.display()))?;
    open::that_detached(&folder).map_err(|e| format!("{} could not be opened: {e}", folder.display()))?;
    Ok(folder.display().to_string())
}

/// Opens the host on the app's profile (`DCPLUGIN_PROFILE`, else the app's data folder).
pub fn open_host() -> Result<Host, ApiError> {
    Host::open(HostOptions::default())
}

/// Builds and runs the app until its last window closes.
pub fn run() {
    let host = match open_host() {
        Ok(host) => host,
        Err(error) => {
            eprintln!("Desktop Companion Plugins could not open its profile: {error}");
            std::process::exit(1);
        }
    };
    let app = tauri::Builder::default()
        .manage(host)
        .invoke_handler(tauri::generate_handler![validate_plugin, plugin_cards, secrets_warning, open_plugins_folder])
        .build(tauri::generate_context!());
    match app {
        Ok(app) => app.run(|_, _| {}),
        Err(error) => {
            eprintln!("Desktop Companion Plugins could not start: {error}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use dcp_host::{Host, HostOptions, ImportCheck};
    use dcp_vault::testing::MemoryKeyStore;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    fn host(profile: &Path) -> Host {
        let options = HostOptions {
            profile: Some(profile.to_path_buf()),
            key_store: Some(Arc::new(MemoryKeyStore::new())),
            ..HostOptions::default()
        };
        Host::open(options).expect("host")
    }

    fn example(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins-examples").join(name)
    }

    fn check(path: PathBuf) -> ImportCheck {
        let dir = tempfile::tempdir().expect("profile");
        let host = host(dir.path());
        host.block_on(host.check_import(path)).expect("checked")
    }

    fn codes(check: &ImportCheck) -> Vec<&str> {
        check.errors.iter().map(|p| p.code.as_str()).collect()
    }

    #[test]
    fn an_example_manifest_can_be_imported() {
        let check = check(example("exchange-rates/manifest.json"));
        assert!(check.ok, "{check:?}");
        assert_eq!(check.slug.as_deref(), Some("fx"));
    }

    /// §19: a folder is loaded, not imported; the check says so as import would.
    #[test]
    fn s19_a_folder_is_not_said_importable() {
        let check = check(example("exchange-rates"));
        assert!(!check.ok);
        assert_eq!(codes(&check), ["unsupported_package"]);
    }

    /// §15: a plugin that talks to the PC needs developer mode, which is off in a new profile.
    #[test]
    fn s15_a_pc_plugin_is_refused_while_developer_mode_is_off() {
        let check = check(example("local-server/manifest.json"));
        assert!(!check.ok);
        assert_eq!(codes(&check), ["dev_mode_required"]);
        assert_eq!(check.errors[0].path, "permissions.network.local.ports");
    }

    #[test]
    fn a_file_that_is_not_json_is_refused_with_the_engines_code() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("broken.json");
        std::fs::write(&file, b"{ not json").expect("write");
        let check = check(file);
        assert_eq!(codes(&check), ["not_json"]);
    }

    #[test]
    fn a_missing_path_is_a_refusal_not_a_panic() {
        let check = check(PathBuf::from("/nonexistent/dcp-app-test/plugin.json"));
        assert!(!check.ok);
        assert_eq!(check.errors.len(), 1);
    }

    /// §11: where no keyring keeps secrets past a restart, the panel gets the
    /// engine's sentence; where one does, nothing.
    #[test]
    fn s11_the_panel_is_told_when_secrets_last_only_until_a_restart() {
        use dcp_vault::Persistence;
        for (persistence, shown) in [(Persistence::UntilRestart, true), (Persistence::Persistent, false)] {
            let dir = tempfile::tempdir().expect("profile");
            let keys = MemoryKeyStore::new().with_persistence(persistence);
            let options = HostOptions {
                profile: Some(dir.path().to_path_buf()),
                key_store: Some(Arc::new(keys)),
                ..HostOptions::default()
            };
            let host = Host::open(options).expect("host");
            let warning = host.block_on(super::secrets_warning_of(&host));
            assert_eq!(warning.is_some(), shown, "{persistence:?}: {warning:?}");
            if let Some(text) = warning {
                assert!(text.contains("restart"), "{text}");
            }
        }
    }

    /// The panel's contract (ui/main.js): `{ok, slug, errors: [{code, path, message}], warnings}`.
    #[test]
    fn a_check_serializes_to_the_panels_shape() {
        let value = serde_json::to_value(check(example("exchange-rates/manifest.json"))).expect("JSON");
        assert_eq!(value, serde_json::json!({"ok": true, "slug": "fx", "errors": [], "warnings": []}));
    }
}
