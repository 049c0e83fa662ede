//! Embeds tauri.conf.json, the capabilities and the ACL of the app's own
//! commands, so that the webview may call them and nothing else.
//! `COMMANDS` repeats the list of `app_commands!` in src/lib.rs (a build
//! script cannot read the crate); a test of the crate checks they agree.

/// The app's commands, by invoke name.
const COMMANDS: &[&str] = &[
    "switches",
    "set_switches",
    "secrets_warning",
    "take_opened_files",
    "ui_ready",
    "plugin_cards",
    "plugin_card",
    "plugin_icon",
    "plugin_details",
    "reload_plugins",
    "set_enabled",
    "set_action_enabled",
    "uninstall",
    "keep_plugin",
    "open_plugin_folder",
    "catalog",
    "import_path",
    "load_folder",
    "import_official",
    "install",
    "cancel_review",
    "pick_plugin_file",
    "pick_folder",
    "save_settings",
    "set_secret",
    "clear_secret",
    "set_cloud",
    "set_twitch",
    "test_plugin",
    "open_help",
    "events_page",
    "set_event_enabled",
    "copy_event_token",
    "new_event_token",
    "try_action",
    "journal",
    "open_plugins_folder",
];

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest)).expect("tauri-build failed");
}
