//! The Tauri shell of the Desktop Companion plugin host.
//!
//! *Architecture invariant:* this crate implements no rule of the plugin
//! format or the store. Each command is a `#[tauri::command] async fn` that
//! awaits one method of the engine's [`Host`] (managed state, opened once at
//! start) and returns its DTO or its `{code, message, problems}` error
//! unchanged. What the shell owns is the desktop around it: pickers, the
//! clipboard, files opened with the app, the event stream to the window.
//!
//! *API boundary:* the commands registered in [`run`] (listed in
//! [`COMMANDS`]) are the whole surface the webview sees; the capability file
//! (`capabilities/main.json`) grants the window exactly those commands and
//! listening to events, nothing else.

mod commands;
mod forward;
mod help;
mod icon;
mod opened;

#[cfg(test)]
mod bindings;
#[cfg(test)]
mod surface;

use dcp_host::{ApiError, BackgroundOptions, Host, HostOptions};
use std::time::Instant;
use tauri::Manager;

/// When the process started (`ui_ready` answers the time since).
pub struct Started(pub Instant);

/// Lists every command once: the handler and [`COMMANDS`] cannot disagree.
macro_rules! app_commands {
    ($($module:ident :: $command:ident),* $(,)?) => {
        /// The commands the webview may invoke, by their invoke names.
        pub const COMMANDS: &[&str] = &[$(stringify!($command)),*];

        fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$(commands::$module::$command),*]
        }
    };
}

app_commands![
    app::switches,
    app::set_switches,
    app::secrets_warning,
    app::take_opened_files,
    app::ui_ready,
    plugins::plugin_cards,
    plugins::plugin_card,
    plugins::plugin_icon,
    plugins::plugin_details,
    plugins::reload_plugins,
    plugins::set_enabled,
    plugins::set_action_enabled,
    plugins::uninstall,
    plugins::keep_plugin,
    plugins::open_plugin_folder,
    consent::catalog,
    consent::validate_plugin,
    consent::import_path,
    consent::import_bytes,
    consent::load_folder,
    consent::import_official,
    consent::review,
    consent::install,
    consent::cancel_review,
    consent::pick_plugin_file,
    consent::pick_folder,
    options::save_settings,
    options::set_secret,
    options::clear_secret,
    options::set_cloud,
    options::set_twitch,
    options::test_plugin,
    options::open_help,
    events::events_page,
    events::set_event_enabled,
    events::copy_event_token,
    events::new_event_token,
    developer::try_action,
    developer::journal,
    developer::open_plugins_folder,
];

/// Opens the host on the app's profile (`DCPLUGIN_PROFILE`, else the app's data folder).
pub fn open_host() -> Result<Host, ApiError> {
    Host::open(HostOptions::default())
}

/// Builds and runs the app until its last window closes; `started` is when the process started.
pub fn run(started: Instant) {
    let host = open_host().unwrap_or_else(|error| fail("could not open its profile", &error));
    // Paths given on the command line (an OS "open with" too) wait for the UI's first take_opened_files.
    let cwd = std::env::current_dir().unwrap_or_default();
    let opened = opened::OpenedFiles::default();
    opened.push(opened::paths_from_args(std::env::args().skip(1), &cwd));
    let app = tauri::Builder::default()
        // First plugin, as its docs ask: a second launch hands over its paths and exits before anything else starts.
        .plugin(tauri_plugin_single_instance::init(|app, argv, cwd| {
            opened::open_files(app, opened::paths_from_args(argv.into_iter().skip(1), cwd.as_ref()));
            if let Some(window) = app.get_webview_window("main") {
                let _ = window.unminimize();
                let _ = window.set_focus();
            }
        }))
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_clipboard_manager::init())
        .manage(host.clone())
        .manage(opened)
        .manage(Started(started))
        .on_window_event(opened::on_drop)
        .invoke_handler(handler())
        .build(tauri::generate_context!())
        .unwrap_or_else(|error| fail("could not start", &error));
    // Subscribed before the background starts, so that none of its events is missed.
    forward::host_events(app.handle().clone(), host.subscribe());
    // No companion runs in this app to say event turns later: events are said at once.
    let background = host
        .start_background(BackgroundOptions { listening: true })
        .unwrap_or_else(|error| fail("could not start the event door and folder watchers", &error));
    // The guard lives as long as the app: dropping it stops the door and the watchers.
    app.run(move |_, _| {
        let _ = &background;
    });
}

fn fail(what: &str, error: &dyn std::fmt::Display) -> ! {
    eprintln!("Desktop Companion Plugins {what}: {error}");
    std::process::exit(1);
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
            let warning = host.block_on(crate::commands::app::secrets_warning_of(&host));
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
