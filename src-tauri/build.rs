//! Embeds tauri.conf.json, the capabilities and the ACL of the app's one
//! commands, so that the webview may call them and nothing else.

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(&[
        "validate_plugin",
        "plugin_cards",
        "secrets_warning",
        "open_plugins_folder",
    ]);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest)).expect("tauri-build failed");
}
