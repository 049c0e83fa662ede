//! The Tauri shell of the Desktop Companion plugin host.
//!
//! *Architecture invariant:* this crate implements no rule of the plugin
//! format. It reads a package with [`dcp_format::package::read_path`], hands
//! it to [`dcp_format::check_package`] and turns the report into the JSON the
//! settings panel shows. Every decision about a plugin is the engine's.
//!
//! *API boundary:* the commands registered in [`run`] and the DTOs in
//! [`dto`] are the whole surface the webview sees; the capability file
//! (`capabilities/main.json`) grants the window exactly those commands.

pub mod dto;

use dto::Validation;
use std::path::PathBuf;

/// Validates the package at `path` (a .json, a .zip or a folder) the way an
/// import would, without installing anything.
///
/// Runs on a blocking thread: it reads files, and a failure in the engine
/// must come back to the panel as an error, not take the window down.
#[tauri::command]
async fn validate_plugin(path: String) -> Result<Validation, String> {
    tauri::async_runtime::spawn_blocking(move || validate_path(&PathBuf::from(path)))
        .await
        .map_err(|e| format!("the validator stopped unexpectedly: {e}"))
}

/// What `validate_plugin` does, without Tauri: read, then check.
pub fn validate_path(path: &std::path::Path) -> Validation {
    match dcp_format::package::read_path(path) {
        Ok(package) => Validation::from(dcp_format::check_package(&package, &dcp_format::Options::default())),
        Err(error) => Validation::from(error),
    }
}

/// Open the plugins folder (§19): opens the profile's plugins folder in the
/// OS file manager and returns its path (the panel shows it too, for a PC
/// without a file manager).
#[tauri::command]
async fn open_plugins_folder() -> Result<String, String> {
    let folder = plugins_folder().map_err(|e| format!("the plugins folder cannot be found: {e}"))?;
    open::that_detached(&folder).map_err(|e| format!("{} could not be opened: {e}", folder.display()))?;
    Ok(folder.display().to_string())
}

/// The plugins folder of the app's profile, created if needed: the same
/// folder `dcplugin plugins-folder` prints.
pub fn plugins_folder() -> std::io::Result<PathBuf> {
    Ok(dcp_store::Profile::locate(None)?.plugins_dir())
}

/// Builds and runs the app until its last window closes.
pub fn run() {
    let app = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![validate_plugin, open_plugins_folder])
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
    use super::*;
    use std::path::Path;

    #[test]
    fn s19_the_plugins_folder_is_the_profiles_and_exists() {
        let profile = tempfile::tempdir().expect("profile");
        // The app and dcplugin locate the same profile: DCPLUGIN_PROFILE here.
        std::env::set_var(dcp_store::profile::PROFILE_ENV, profile.path());
        let folder = plugins_folder().expect("folder");
        assert_eq!(folder, profile.path().join("plugins"));
        assert!(folder.is_dir());
    }

    #[test]
    fn an_example_plugin_folder_validates() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins-examples/exchange-rates");
        let validation = validate_path(&folder);
        assert!(validation.ok, "{validation:?}");
        assert_eq!(validation.slug.as_deref(), Some("fx"));
    }

    #[test]
    fn a_file_that_is_not_json_is_refused_with_the_engines_code() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("broken.json");
        std::fs::write(&file, b"{ not json").expect("write");
        let validation = validate_path(&file);
        assert!(!validation.ok);
        let codes: Vec<&str> = validation.errors.iter().map(|p| p.code.as_str()).collect();
        assert_eq!(codes, ["not_json"]);
    }

    #[test]
    fn a_missing_path_is_an_error_not_a_panic() {
        let validation = validate_path(Path::new("/nonexistent/dcp-app-test/plugin.json"));
        assert!(!validation.ok);
        assert_eq!(validation.errors.len(), 1);
    }
}
