//! Embeds tauri.conf.json, the capabilities and the ACL of the app's own
//! commands, so that the webview may call them and nothing else. The
//! commands are those `src/surface.rs` declares, the declaration the crate
//! itself registers: this script's `app_commands!` keeps only their names.

macro_rules! app_commands {
    ($($module:ident :: $command:ident ($($arg:tt)*) -> $answer:ty;)*) => {
        /// The app's commands, by invoke name.
        const COMMANDS: &[&str] = &[$(stringify!($command)),*];
    };
}

include!("src/surface.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/surface.rs");
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest)).expect("tauri-build failed");
}
