//! Every example plugin of `plugins-examples/` validates against
//! `schema/manifest.schema.json`, and the schema refuses what it should.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

fn workspace_root() -> PathBuf {
    // crates/dcp-format -> the workspace root.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/dcp-format sits two levels below the workspace root")
        .to_path_buf()
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn validator() -> jsonschema::Validator {
    let schema = read_json(&workspace_root().join("schema/manifest.schema.json"));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("the schema itself is invalid: {e}"))
}

/// The schema's complaints about one manifest, one line each.
fn errors(validator: &jsonschema::Validator, manifest: &Value) -> Vec<String> {
    validator.iter_errors(manifest).map(|e| format!("at {}: {e}", e.instance_path)).collect()
}

fn example_manifests() -> Vec<PathBuf> {
    let dir = workspace_root().join("plugins-examples");
    let mut found: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path().join("manifest.json")))
        .filter(|path| path.is_file())
        .collect();
    found.sort();
    found
}

#[test]
fn every_example_validates_against_the_schema() {
    let validator = validator();
    let manifests = example_manifests();
    let mut failures = Vec::new();
    for path in &manifests {
        let problems = errors(&validator, &read_json(path));
        if !problems.is_empty() {
            failures.push(format!("{}:\n  {}", path.display(), problems.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "examples that fail the schema:\n{}", failures.join("\n"));
    let names: Vec<_> = manifests.iter().filter_map(|p| p.parent()?.file_name()?.to_str().map(str::to_owned)).collect();
    assert_eq!(
        names,
        ["exchange-rates", "local-server", "my-tasks", "pomodoro", "recipe-search", "trello-perso"],
        "expected the 6 examples"
    );
}

/// A copy of the my-tasks example to break in one place.
fn base() -> Value {
    read_json(&workspace_root().join("plugins-examples/my-tasks/manifest.json"))
}

fn block(manifest: &mut Value) -> &mut Value {
    &mut manifest["_meta"]["com.desktopaicompanion"]
}

fn assert_refused(name: &str, manifest: &Value) {
    assert!(!validator().is_valid(manifest), "the schema accepts a manifest with {name}");
}

#[test]
fn an_unknown_tool_key_fails() {
    let mut manifest = base();
    block(&mut manifest)["tools"]["add_task"]["timeout"] = json!(5);
    assert_refused("an unknown tool key", &manifest);
}

#[test]
fn a_bad_or_reserved_slug_fails() {
    for slug in ["My-Tasks", "x", "abcdefghijklmnopqrstu", "my_tasks", "trello", "companion"] {
        let mut manifest = base();
        block(&mut manifest)["slug"] = json!(slug);
        assert_refused(&format!("the slug {slug:?}"), &manifest);
    }
}

/// Breaks a manifest in one place.
type Breaker = fn(&mut Value);

#[test]
fn other_refusals() {
    let cases: Vec<(&str, Breaker)> = vec![
        ("a secret-named setting not sensitive", |m| {
            if let Some(setting) = m["user_config"]["api_token"].as_object_mut() {
                setting.remove("sensitive");
            }
        }),
        ("a default on a secret", |m| m["user_config"]["api_token"]["default"] = json!("x")),
        ("risk R4", |m| block(m)["tools"]["list_tasks"]["risk"] = json!("R4")),
        ("a GET with a body", |m| block(m)["tools"]["list_tasks"]["request"]["body"] = json!({"a": 1})),
        ("an argument in a header", |m| {
            block(m)["tools"]["add_task"]["request"]["headers"] = json!({"X-Title": "{{content}}"})
        }),
        ("a forbidden header", |m| block(m)["tools"]["add_task"]["request"]["headers"] = json!({"User-Agent": "me"})),
        ("a pattern in an argument", |m| {
            block(m)["tools"]["add_task"]["inputSchema"]["properties"]["content"]["pattern"] = json!(".*")
        }),
        ("a description on two lines", |m| block(m)["tools"]["add_task"]["description"] = json!("Add\na task")),
        ("a URL in a description", |m| {
            block(m)["tools"]["add_task"]["description"] = json!("Add a task, see https://example.com")
        }),
        ("a hint over 60 characters", |m| block(m)["tools"]["add_task"]["hint"]["en"] = json!("x".repeat(61))),
        ("an unknown hint language", |m| block(m)["tools"]["add_task"]["hint"]["nl"] = json!("taak toevoegen")),
        ("permissions.network.lan", |m| block(m)["permissions"]["network"]["lan"] = json!(true)),
        ("a wildcard host", |m| block(m)["permissions"]["network"]["hosts"] = json!(["*.example.com"])),
        ("a reserved local port", |m| block(m)["permissions"]["network"]["local"] = json!({"ports": [8440]})),
        ("an http:// URL to a website", |m| {
            block(m)["tools"]["add_task"]["request"]["url"] = json!("http://api.tasks.example.com/v1/tasks")
        }),
        ("maxChars below 200", |m| block(m)["tools"]["add_task"]["response"]["maxChars"] = json!(100)),
        ("a pick path with two []", |m| block(m)["tools"]["add_task"]["response"]["pick"] = json!(["a[].b[].c"])),
        ("auth with a setting instead of a secret", |m| {
            block(m)["auth"]["value"] = json!("Bearer {{config.max_tasks}}")
        }),
        ("a version that is not x.y.z", |m| m["version"] = json!("1.0")),
        ("an unknown top-level key", |m| m["homepage"] = json!("x")),
        ("an event name with capitals", |m| block(m)["events"] = json!({"Done": {"title": {"en": "Done"}}})),
    ];
    let validator = validator();
    let accepted: Vec<&str> = cases
        .into_iter()
        .filter_map(|(name, break_it)| {
            let mut manifest = base();
            break_it(&mut manifest);
            validator.is_valid(&manifest).then_some(name)
        })
        .collect();
    assert!(accepted.is_empty(), "the schema accepts a manifest with: {}", accepted.join("; "));
}

#[test]
fn a_schema_key_is_allowed() {
    let mut manifest = base();
    manifest["$schema"] = json!("../../schema/manifest.schema.json");
    let problems = errors(&validator(), &manifest);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
