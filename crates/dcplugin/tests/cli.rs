//! `dcplugin validate` and `dcplugin pack` through the real binary: the
//! public contract of the plugin-format issue (output shapes, exit codes).

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use support::{binary, examples, json_of, run};

fn dcplugin(args: &[&str]) -> Output {
    let mut command = binary();
    command.args(args);
    run(command, None)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn validate_json_shape_for_every_example_folder() {
    for example in ["exchange-rates", "my-tasks", "trello-perso", "recipe-search", "local-server", "pomodoro"] {
        let dir = examples().join(example);
        let out = dcplugin(&["validate", dir.to_str().expect("utf-8"), "--json"]);
        assert_eq!(out.status.code(), Some(0), "{example}: {}", String::from_utf8_lossy(&out.stdout));
        let v = json_of(&out);
        assert_eq!(v["ok"], Value::Bool(true));
        assert!(v["slug"].is_string());
        assert_eq!(v["errors"], serde_json::json!([]));
        assert!(v["warnings"].is_array());
    }
}

/// A manifest saved by a Windows editor, with CRLF line ends, is the same
/// manifest: same answer, same problems (issue 35; run under Wine too).
#[test]
fn validate_a_manifest_with_crlf_line_ends_as_the_same_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    for example in ["exchange-rates", "my-tasks", "trello-perso", "recipe-search", "local-server", "pomodoro"] {
        let original = examples().join(example).join("manifest.json");
        let text = std::fs::read_to_string(&original).expect("example");
        let lf = text.replace("\r\n", "\n");
        let crlf = write(dir.path(), &format!("{example}.json"), &lf.replace('\n', "\r\n"));
        assert!(std::fs::read(&crlf).expect("read").windows(2).any(|w| w == b"\r\n"), "{example}: CRLF written");
        let answer = |path: &Path| {
            let out = dcplugin(&["validate", path.to_str().expect("utf-8"), "--json"]);
            (out.status.code(), json_of(&out))
        };
        let lf = write(dir.path(), &format!("{example}-lf.json"), &lf);
        let (code, v) = answer(&crlf);
        assert_eq!(code, Some(0), "{example}: {v}");
        assert_eq!((code, v), answer(&lf), "{example}");
    }
}

#[test]
fn validate_refused_lists_every_problem_with_code_path_message_and_exits_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = std::fs::read_to_string(examples().join("my-tasks/manifest.json")).expect("example");
    let broken = manifest
        .replace("\"slug\": \"mytasks\"", "\"slug\": \"todoist\"")
        .replace("https://api.tasks.example.com/v1/tasks\",", "https://api.example.org/v1/tasks\",");
    let path = write(dir.path(), "broken.json", &broken);
    let out = dcplugin(&["validate", path.to_str().expect("utf-8"), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["ok"], Value::Bool(false));
    assert_eq!(v["slug"], "todoist");
    let errors = v["errors"].as_array().expect("errors");
    let has = |code: &str, path: &str| {
        errors.iter().any(|e| e["code"] == code && e["path"] == path && e["message"].is_string())
    };
    assert!(has("reserved_slug", "slug"), "{errors:?}");
    assert!(has("host_not_declared", "tools.list_tasks.request.url"), "{errors:?}");

    let human = dcplugin(&["validate", path.to_str().expect("utf-8")]);
    assert_eq!(human.status.code(), Some(1));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains(
            "host_not_declared  tools.list_tasks.request.url  host api.example.org is not in permissions.network.hosts"
        ),
        "{text}"
    );
}

#[test]
fn validate_package_errors_use_the_same_shape() {
    let dir = tempfile::tempdir().expect("temp dir");
    let txt = write(dir.path(), "plugin.txt", "{}");
    let out = dcplugin(&["validate", txt.to_str().expect("utf-8"), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["errors"][0]["code"], "unsupported_package");
    assert_eq!(v["slug"], Value::Null);
    let zip = write(dir.path(), "plugin.zip", "not a zip");
    assert_eq!(
        json_of(&dcplugin(&["validate", zip.to_str().expect("utf-8"), "--json"]))["errors"][0]["code"],
        "bad_zip"
    );
}

#[test]
fn validate_app_version_decides_app_too_old() {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = std::fs::read_to_string(examples().join("exchange-rates/manifest.json")).expect("example");
    let needs_2 = manifest.replacen("\"slug\": \"fx\",", "\"slug\": \"fx\", \"minAppVersion\": \"2.0.0\",", 1);
    let path = write(dir.path(), "fx.json", &needs_2);
    let path = path.to_str().expect("utf-8");
    let old = dcplugin(&["validate", path, "--json", "--app-version", "1.9.9"]);
    assert_eq!(old.status.code(), Some(1));
    assert_eq!(json_of(&old)["errors"][0]["code"], "app_too_old");
    assert_eq!(dcplugin(&["validate", path, "--json", "--app-version", "2.0.0"]).status.code(), Some(0));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(dcplugin(&["validate"]).status.code(), Some(2));
    assert_eq!(dcplugin(&["validate", "x.json", "--app-version", "1.2"]).status.code(), Some(2));
    assert_eq!(dcplugin(&["nonsense"]).status.code(), Some(2));
    assert_eq!(dcplugin(&["pack", "/definitely/not/here"]).status.code(), Some(2));
}

#[test]
fn pack_writes_a_package_that_validates_with_only_allowed_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_zip = dir.path().join("pomodoro.zip");
    let out = dcplugin(&[
        "pack",
        examples().join("pomodoro").to_str().expect("utf-8"),
        "-o",
        out_zip.to_str().expect("utf-8"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let v = json_of(&out);
    assert_eq!(v["ok"], Value::Bool(true));
    assert_eq!(v["files"], serde_json::json!(["manifest.json", "icon.png", "readme.md"]), "server.py stays out");
    let check = dcplugin(&["validate", out_zip.to_str().expect("utf-8"), "--json"]);
    assert_eq!(check.status.code(), Some(0));
    assert_eq!(json_of(&check)["slug"], "pomodoro");
}

#[test]
fn pack_refuses_an_invalid_folder_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plugin = dir.path().join("plugin");
    std::fs::create_dir(&plugin).expect("mkdir");
    let manifest = std::fs::read_to_string(examples().join("exchange-rates/manifest.json")).expect("example");
    write(&plugin, "manifest.json", &manifest.replace("\"R0\"", "\"R9\""));
    let out_zip = dir.path().join("out.zip");
    let out = dcplugin(&["pack", plugin.to_str().expect("utf-8"), "-o", out_zip.to_str().expect("utf-8"), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["ok"], Value::Bool(false));
    assert_eq!(v["errors"][0]["code"], "bad_risk");
    assert!(!out_zip.exists());
}
