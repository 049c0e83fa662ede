//! Embeds tauri.conf.json, the capabilities and the ACL of the app's one
//! command, so that the webview may call `validate_plugin` and nothing else.

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(&["validate_plugin"]);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest))
        .expect("tauri-build failed");
}
