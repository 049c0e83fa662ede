//! The webview's surface is listed once ([`crate::COMMANDS`], from the
//! handler's own list) and repeated in three places that must agree with
//! it: the build script's ACL, the capability, and the UI's typed wrappers.

use crate::COMMANDS;
use std::collections::BTreeSet;
use std::path::Path;

fn registered() -> BTreeSet<String> {
    COMMANDS.iter().map(|c| (*c).to_owned()).collect()
}

/// The names of `invoke("name"` and `invoke<T>("name"` calls in TypeScript,
/// outside comment lines (which may show the pattern itself).
fn invoked(source: &str) -> BTreeSet<String> {
    let code: String = source
        .lines()
        .filter(|line| !["//", "/*", "*"].iter().any(|c| line.trim_start().starts_with(c)))
        .collect::<Vec<_>>()
        .join("\n");
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("invoke") {
        let mut rest = &code[at + "invoke".len()..];
        // Skip the result type, which may nest (`invoke<Record<string, unknown>>`).
        if rest.starts_with('<') {
            let mut depth = 0;
            let Some(end) = rest.char_indices().find_map(|(i, c)| {
                depth += match c {
                    '<' => 1,
                    '>' => -1,
                    _ => 0,
                };
                (depth == 0).then_some(i)
            }) else {
                continue;
            };
            rest = &rest[end + 1..];
        }
        let Some(quoted) = rest.trim_start().strip_prefix('(').map(str::trim_start) else { continue };
        let Some(quote) = quoted.chars().next().filter(|c| matches!(c, '"' | '\'')) else { continue };
        if let Some(name) = quoted[1..].split(quote).next() {
            names.insert(name.to_owned());
        }
    }
    names
}

#[test]
fn the_ui_invokes_exactly_the_registered_commands() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/api.ts");
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "ui/src/api.ts cannot be read ({e}): the UI's typed wrappers must invoke every command of the app contract"
        )
    });
    let ui = invoked(&source);
    let rust = registered();
    let missing: Vec<_> = rust.difference(&ui).collect();
    let unknown: Vec<_> = ui.difference(&rust).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "ui/src/api.ts and the registered commands differ: not invoked by the UI {missing:?}; not registered in Rust {unknown:?}"
    );
}

#[test]
fn invoked_names_are_read_with_or_without_a_result_type() {
    let source = "// calls invoke(\"name\", …\n/** invoke(\"doc\") */\n invoke(\"a\"); invoke<Card[]>(\"b\", { slug });\n invoke<Record<string, unknown>>( 'c'); invokeLater(x)";
    assert_eq!(invoked(source), ["a", "b", "c"].map(String::from).into());
}

#[test]
fn the_build_script_lists_every_command() {
    let build = include_str!("../build.rs");
    let list = &build[build.find("const COMMANDS").expect("COMMANDS in build.rs")..];
    let list = &list[..list.find("];").expect("end of COMMANDS")];
    let listed: BTreeSet<String> = list.split('"').skip(1).step_by(2).map(str::to_owned).collect();
    assert_eq!(listed, registered());
}

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
