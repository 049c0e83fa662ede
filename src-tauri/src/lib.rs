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
        Ok(package) => {
            Validation::from(dcp_format::check_package(&package, &dcp_format::Options::default()))
        }
        Err(error) => Validation::from(error),
    }
}

/// Builds and runs the app until its last window closes.
pub fn run() {
    let app = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![validate_plugin])
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
