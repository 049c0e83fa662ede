//! What the webview is allowed: the capability grants exactly the commands
//! `surface.rs` declares, and listening to events; the config loads no
//! global API and no script from elsewhere.

use crate::COMMANDS;
use std::collections::BTreeSet;

#[test]
fn the_window_is_granted_its_commands_and_listening_to_events_only() {
    let capability: serde_json::Value =
        serde_json::from_str(include_str!("../capabilities/main.json")).expect("capabilities/main.json");
    let granted: BTreeSet<String> = capability["permissions"]
        .as_array()
        .expect("permissions")
        .iter()
        .map(|p| p.as_str().expect("a permission name").to_owned())
        .collect();
    let mut want: BTreeSet<String> = COMMANDS.iter().map(|c| format!("allow-{}", c.replace('_', "-"))).collect();
    want.extend(["core:event:allow-listen".to_owned(), "core:event:allow-unlisten".to_owned()]);
    assert_eq!(granted, want);
}

#[test]
fn the_config_loads_no_global_api_and_no_remote_script() {
    let config: serde_json::Value = serde_json::from_str(include_str!("../tauri.conf.json")).expect("tauri.conf.json");
    assert_eq!(config["app"]["withGlobalTauri"], false);
    assert_eq!(config["build"]["frontendDist"], "../ui/dist");
    assert_eq!(config["app"]["security"]["csp"]["script-src"], "'self'");
    assert_eq!(config["app"]["security"]["csp"]["default-src"], "'self'");
}
