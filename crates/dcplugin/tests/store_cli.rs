//! The store commands through the real `dcplugin` binary, on temp profiles
//! (real files, real SQLite, the real OS key store): output shapes, codes,
//! exit codes, crash safety and concurrent use of one profile.

mod support;

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use support::{contains, examples, json_of, spawn, text, Profile};

const SECRET: &str = "cli-secret-9f8e7d-do-not-print";

fn example(name: &str) -> String {
    examples().join(name).join("manifest.json").to_string_lossy().into_owned()
}

/// What these tests ask of a temp profile, beyond running the binary.
impl Profile {
    /// Runs a `--json` command that must succeed and returns its object.
    fn ok(&self, args: &[&str]) -> Value {
        self.ok_with(args, None)
    }

    fn ok_with(&self, args: &[&str], stdin: Option<&str>) -> Value {
        let out = self.run_with(args, stdin, &[]);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}{}", text(&out.stdout), text(&out.stderr));
        json_of(&out)
    }

    /// Runs a `--json` command that must be refused and returns its code.
    fn refused(&self, args: &[&str], stdin: Option<&str>) -> Value {
        let out = self.run_with(args, stdin, &[]);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}{}", text(&out.stdout), text(&out.stderr));
        let v = json_of(&out);
        assert_eq!(v["ok"], Value::Bool(false));
        v
    }

    fn sql(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.root().join("host.sqlite")).expect("raw db")
    }

    fn count(&self, sql: &str) -> i64 {
        self.sql().query_row(sql, [], |r| r.get(0)).expect("count")
    }

    fn db_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(self.root()).expect("profile").flatten() {
            if entry.file_name().to_string_lossy().starts_with("host.sqlite") {
                out.extend(std::fs::read(entry.path()).expect("db"));
            }
        }
        out
    }

    fn entry(&self, slug: &str) -> Option<Value> {
        let list = self.ok(&["list", "--json"]);
        list.as_array().expect("list is an array").iter().find(|e| e["slug"] == slug).cloned()
    }
}

fn write_manifest(dir: &Path, name: &str, edit: impl FnOnce(String) -> String, from: &str) -> String {
    let text = std::fs::read_to_string(examples().join(from).join("manifest.json")).expect("example");
    let path = dir.join(name);
    std::fs::write(&path, edit(text)).expect("write");
    path.to_string_lossy().into_owned()
}

#[test]
fn s3_cli_import_prints_the_review_then_install_and_list() {
    let p = Profile::new();
    let r = p.ok(&["import", &example("my-tasks"), "--json"]);
    assert_eq!(r["slug"], "mytasks");
    assert_eq!(r["badge"], "Not signed");
    assert_eq!(r["version"], "1.0.0");
    assert_eq!(r["author"], "Your name");
    assert_eq!(r["cloud"], "ask");
    assert_eq!(r["actions"][0]["full_name"], "mytasks__list_tasks");
    assert_eq!(r["actions"][0]["level"], "R1");
    assert_eq!(r["actions"][0]["label"], "reads your data");
    assert_eq!(r["actions"][0]["method"], "GET");
    assert_eq!(r["sites"], serde_json::json!(["api.tasks.example.com"]));
    let id = r["review"].as_str().expect("review id").to_owned();
    assert!(p.root().join("quarantine").join(&id).join("manifest.json").is_file());
    // The human review.
    let human = p.run(&["import", &example("my-tasks")]);
    assert_eq!(human.status.code(), Some(0));
    let out = text(&human.stdout);
    for needle in [
        "My tasks 1.0.0  [Not signed]",
        "by Your name",
        "mytasks__list_tasks  R1 reads your data: read your tasks  GET https://api.tasks.example.com/v1/tasks",
        "Connects to: api.tasks.example.com",
        "Online AI models",
        "Setting api_token (required, secret)",
    ] {
        assert!(out.contains(needle), "{needle:?} in\n{out}");
    }
    let installed = p.ok_with(
        &["install", &id, "--secrets-stdin", "--cloud", "allow", "--set", "max_tasks=15", "--json"],
        Some(&format!("api_token={SECRET}\n")),
    );
    assert_eq!(installed["slug"], "mytasks");
    assert_eq!(installed["update"], false);
    assert!(!p.root().join("quarantine").join(&id).exists());
    let e = p.entry("mytasks").expect("listed");
    assert_eq!(e["status"], "active");
    assert_eq!(e["status_label"], "Active");
    assert_eq!(e["badges"], serde_json::json!(["Not signed"]));
    let human = text(&p.run(&["list"]).stdout);
    assert!(human.contains("mytasks") && human.contains("Active") && human.contains("Not signed"), "{human}");
}

#[test]
fn s15_cli_local_server_review_shows_this_pc_port_and_events_off() {
    let p = Profile::new();
    p.ok(&["dev-mode", "on", "--json"]);
    let out = p.run(&["import", &example("local-server")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let human = text(&out.stdout);
    assert!(human.contains("This PC · port 8420: install it only if you started this program yourself"), "{human}");
    assert!(!human.contains("Connects to"), "{human}");
    let r = p.ok(&["import", &example("pomodoro"), "--json"]);
    assert_eq!(r["events"].as_array().expect("events").iter().filter(|e| e["on"] == true).count(), 0);
    let human = text(&p.run(&["import", &example("pomodoro")]).stdout);
    assert!(human.contains("Event focus_done: Focus session finished [off]"), "{human}");
}

#[test]
fn s3_cli_cancel_deletes_the_quarantined_copy() {
    let p = Profile::new();
    let r = p.ok(&["import", &example("exchange-rates"), "--json"]);
    let id = r["review"].as_str().expect("id");
    assert!(p.root().join("quarantine").join(id).is_dir());
    assert_eq!(p.ok(&["cancel", id, "--json"])["ok"], true);
    assert!(!p.root().join("quarantine").join(id).exists());
    p.refused(&["install", id, "--json"], None);
    p.refused(&["cancel", id, "--json"], None);
}

#[test]
fn s22_cli_refusals_print_the_spec_code_and_exit_1() {
    let p = Profile::new();
    let tmp = p.dir.path();
    // Validator codes, with every error listed.
    let bad = write_manifest(tmp, "bad.json", |t| t.replace("\"slug\": \"fx\"", "\"slug\": \"F X\""), "exchange-rates");
    let v = p.refused(&["import", &bad, "--json"], None);
    assert_eq!(v["code"], "bad_slug");
    assert!(v["errors"].as_array().expect("errors").iter().any(|e| e["code"] == "bad_slug" && e["path"].is_string()));
    let out = p.run(&["import", &bad]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("bad_slug"), "{}", text(&out.stderr));
    let reserved = write_manifest(
        tmp,
        "todoist.json",
        |t| t.replace("\"slug\": \"mytasks\"", "\"slug\": \"todoist\""),
        "my-tasks",
    );
    assert_eq!(p.refused(&["import", &reserved, "--json"], None)["code"], "reserved_slug");
    // Developer mode.
    assert_eq!(p.refused(&["import", &example("local-server"), "--json"], None)["code"], "dev_mode_required");
    let folder = tmp.join("fx-dev");
    std::fs::create_dir_all(&folder).expect("dir");
    std::fs::copy(example("exchange-rates"), folder.join("manifest.json")).expect("copy");
    assert_eq!(
        p.refused(&["load-folder", folder.to_str().expect("utf-8"), "--json"], None)["code"],
        "dev_mode_required"
    );
    p.ok(&["dev-mode", "on", "--json"]);
    let inside = p.root().join("plugins").join("fx-dev");
    std::fs::create_dir_all(&inside).expect("dir");
    std::fs::copy(example("exchange-rates"), inside.join("manifest.json")).expect("copy");
    assert_eq!(
        p.refused(&["load-folder", inside.to_str().expect("utf-8"), "--yes", "--json"], None)["code"],
        "bad_folder"
    );
    // Settings at install.
    let trello = example("trello-perso");
    let both = format!("api_key=key-1\ntoken={SECRET}\n");
    let v = p.refused(&["import", &trello, "--yes", "--cloud", "allow", "--json"], Some(""));
    assert_eq!(v["code"], "missing_settings");
    let v = p.refused(
        &[
            "import",
            &trello,
            "--yes",
            "--secrets-stdin",
            "--cloud",
            "allow",
            "--set",
            "board=https://trello.com/b/AbC123/x",
            "--json",
        ],
        Some(&both),
    );
    assert_eq!(v["code"], "bad_settings");
    assert!(v["message"].as_str().expect("message").contains("board: bad_format"), "{v}");
    let v = p.refused(
        &[
            "import",
            &trello,
            "--yes",
            "--secrets-stdin",
            "--cloud",
            "allow",
            "--set",
            "board=AbC123",
            "--set",
            "colour=red",
            "--json",
        ],
        Some(&both),
    );
    assert!(v["message"].as_str().expect("message").contains("colour: unknown_setting"), "{v}");
    let v = p.refused(&["import", &trello, "--yes", "--secrets-stdin", "--set", "board=AbC123", "--json"], Some(&both));
    assert_eq!(v["code"], "cloud_choice_required");
    assert!(!v.to_string().contains(SECRET));
    assert_eq!(p.count("SELECT COUNT(*) FROM plugins"), 0);
    assert_eq!(p.count("SELECT COUNT(*) FROM secrets"), 0);
    // Usage errors exit 2.
    assert_eq!(p.run(&["set", "fx", "novalue"]).status.code(), Some(2));
    assert_eq!(p.run(&["cloud", "fx", "maybe"]).status.code(), Some(2));
    // Unknown plugin: refused, no spec code.
    let v = p.refused(&["show", "nothing", "--json"], None);
    assert_eq!(v["code"], Value::Null);
}

#[test]
fn s11_cli_show_and_secret_never_print_the_value() {
    let p = Profile::new();
    p.ok_with(
        &["import", &example("my-tasks"), "--yes", "--secrets-stdin", "--cloud", "allow", "--json"],
        Some(&format!("api_token={SECRET}\n")),
    );
    for args in [
        vec!["show", "mytasks"],
        vec!["show", "mytasks", "--json"],
        vec!["list"],
        vec!["list", "--json"],
        vec!["reload", "--json"],
    ] {
        let out = p.run(&args);
        assert_eq!(out.status.code(), Some(0));
        assert!(!contains(&out.stdout, SECRET) && !contains(&out.stderr, SECRET), "{args:?}");
    }
    let d = p.ok(&["show", "mytasks", "--json"]);
    let token =
        d["settings"].as_array().expect("settings").iter().find(|s| s["key"] == "api_token").expect("token").clone();
    assert_eq!(token["set"], true);
    assert_eq!(token["value"], Value::Null);
    let out = p.run_with(&["secret", "mytasks", "api_token"], Some("another-cli-secret-42\n"), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!contains(&out.stdout, "another-cli-secret-42") && !contains(&out.stderr, "another-cli-secret-42"));
    // A secret too long is refused without repeating it.
    let long = "x".repeat(250);
    let out = p.run_with(&["secret", "mytasks", "api_token", "--json"], Some(&long), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!contains(&out.stdout, &long) && !contains(&out.stderr, &long));
    let db = p.db_bytes();
    assert!(!contains(&db, SECRET) && !contains(&db, "another-cli-secret-42"));
    assert_eq!(p.entry("mytasks").expect("listed")["status_label"], "Active", "the replaced secret opens");
    p.ok(&["secret", "mytasks", "api_token", "--clear", "--json"]);
    assert_eq!(p.entry("mytasks").expect("listed")["status_label"], "Needs setup");
}

/// The installed state must be one version whole: the row's version and
/// fingerprints match the manifest on disk.
fn assert_whole(p: &Profile, slug: &str, version: &str) {
    let d = p.ok(&["show", slug, "--json"]);
    assert_eq!(d["version"], version, "{d}");
    assert_eq!(d["status"], "active", "{d}");
    let folder = PathBuf::from(d["folder"].as_str().expect("folder"));
    let bytes = std::fs::read(folder.join("manifest.json")).expect("installed manifest");
    assert_eq!(d["manifest_fingerprint"], dcp_format::fingerprint::sha256_hex(&bytes));
    let plugin =
        dcp_format::validate_manifest(&bytes, &dcp_format::Options::default()).plugin.expect("valid manifest on disk");
    assert_eq!(plugin.version.to_string(), version);
    assert_eq!(d["permissions_fingerprint"], plugin.fingerprints.permissions);
    let sites: Vec<Value> = plugin.hosts.iter().map(|h| Value::String(h.clone())).collect();
    assert_eq!(d["sites"], Value::Array(sites));
    let ok: String = p.sql().query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("check");
    assert_eq!(ok, "ok");
}

const POINTS: [&str; 3] = ["install:files-written", "install:before-commit", "install:committed"];

#[test]
fn s18_cli_kill_during_install_leaves_nothing_or_the_whole_plugin() {
    for point in POINTS {
        let p = Profile::new();
        let r = p.ok(&["import", &example("exchange-rates"), "--json"]);
        let id = r["review"].as_str().expect("id").to_owned();
        let out = p.run_with(&["install", &id, "--json"], None, &[("DCPLUGIN_TEST_CRASH_AT", point)]);
        assert!(
            !out.status.success() && out.status.code() != Some(1),
            "{point}: the process was killed: {:?}",
            out.status
        );
        if point == "install:committed" {
            assert_whole(&p, "fx", "1.0.0");
        } else {
            assert_eq!(p.entry("fx"), None, "{point}: nothing installed");
            assert_eq!(p.refused(&["show", "fx", "--json"], None)["code"], Value::Null);
            // The review is still there and installs.
            p.ok(&["install", &id, "--json"]);
            assert_whole(&p, "fx", "1.0.0");
        }
    }
}

#[test]
fn s18_cli_kill_during_update_leaves_the_old_or_the_new_plugin_whole() {
    for point in POINTS {
        let p = Profile::new();
        p.ok_with(
            &[
                "import",
                &example("my-tasks"),
                "--yes",
                "--secrets-stdin",
                "--cloud",
                "allow",
                "--set",
                "max_tasks=15",
                "--json",
            ],
            Some(&format!("api_token={SECRET}\n")),
        );
        p.ok(&["disable", "mytasks", "--action", "add_task", "--json"]);
        let v2 = write_manifest(
            p.dir.path(),
            "v2.json",
            |t| {
                t.replace("\"version\": \"1.0.0\"", "\"version\": \"2.0.0\"")
                    .replace("[\"api.tasks.example.com\"]", "[\"api.tasks.example.com\", \"files.tasks.example.com\"]")
            },
            "my-tasks",
        );
        let r = p.ok(&["import", &v2, "--json"]);
        assert_eq!(r["update"], true);
        assert_eq!(r["permissions_changed"], true);
        let id = r["review"].as_str().expect("id").to_owned();
        let out = p.run_with(&["install", &id, "--json"], None, &[("DCPLUGIN_TEST_CRASH_AT", point)]);
        assert!(!out.status.success() && out.status.code() != Some(1), "{point}: killed: {:?}", out.status);
        let expected = if point == "install:committed" { "2.0.0" } else { "1.0.0" };
        // Whole: version, fingerprints and sites of one manifest; secret and switches intact.
        let mut d = p.ok(&["show", "mytasks", "--json"]);
        if d["status"] != "active" {
            panic!("{point}: {d}");
        }
        assert_whole(&p, "mytasks", expected);
        assert_eq!(
            d["actions"].as_array().expect("actions").iter().filter(|a| a["enabled"] == false).count(),
            1,
            "{point}"
        );
        assert_eq!(
            d["settings"].as_array().expect("s").iter().find(|s| s["key"] == "max_tasks").expect("max")["value"],
            15
        );
        if point != "install:committed" {
            p.ok(&["install", &id, "--json"]);
            assert_whole(&p, "mytasks", "2.0.0");
            d = p.ok(&["show", "mytasks", "--json"]);
            assert_eq!(d["actions"].as_array().expect("actions").iter().filter(|a| a["enabled"] == false).count(), 1);
        }
        // One generation folder is referenced; any leftover is not the installed one.
        let folder = PathBuf::from(d["folder"].as_str().expect("folder"));
        assert!(folder.join("manifest.json").is_file());
    }
}

#[test]
fn s19_cli_load_folder_yes_reload_and_uninstall_keeps_the_folder() {
    let p = Profile::new();
    p.ok(&["dev-mode", "on", "--json"]);
    let folder = p.dir.path().join("pomodoro-dev");
    std::fs::create_dir_all(&folder).expect("dir");
    for file in ["manifest.json", "icon.png", "server.py"] {
        std::fs::copy(examples().join("pomodoro").join(file), folder.join(file)).expect("copy");
    }
    let f = folder.to_str().expect("utf-8");
    let v = p.ok_with(&["load-folder", f, "--yes", "--secrets-stdin", "--json"], Some(&format!("token={SECRET}\n")));
    assert_eq!(v["badge"], "Folder (dev)");
    assert_eq!(v["installed"]["slug"], "pomodoro");
    let e = p.entry("pomodoro").expect("listed");
    assert_eq!(e["badges"], serde_json::json!(["Folder (dev)", "Talks to a program on this PC (port 8421)"]));
    // A new event saved in the folder arrives off after reload.
    let text = std::fs::read_to_string(folder.join("manifest.json")).expect("read");
    let edited = text.replace(
        "\"break_done\": {",
        "\"long_done\": { \"title\": { \"en\": \"Long break finished\" } },\n        \"break_done\": {",
    );
    assert_ne!(edited, text);
    std::fs::write(folder.join("manifest.json"), edited).expect("save");
    let statuses = p.ok(&["reload", "--json"]);
    assert_eq!(statuses[0]["status_label"], "Active");
    let d = p.ok(&["show", "pomodoro", "--json"]);
    assert!(
        d["events"].as_array().expect("events").iter().any(|e| e["name"] == "long_done" && e["on"] == false),
        "{d}"
    );
    // Invalid save.
    std::fs::write(folder.join("manifest.json"), "{").expect("save");
    assert_eq!(p.ok(&["reload", "--json"])[0]["status_label"], "Invalid");
    let d = p.ok(&["show", "pomodoro", "--json"]);
    assert_eq!(d["errors"][0]["code"], "not_json");
    p.ok(&["uninstall", "pomodoro", "--json"]);
    for file in ["manifest.json", "icon.png", "server.py"] {
        assert!(folder.join(file).is_file(), "{file} is never deleted");
    }
    assert_eq!(p.entry("pomodoro"), None);
    p.ok(&["dev-mode", "off", "--json"]);
}

#[test]
fn s18_cli_catalog_and_official_install() {
    let p = Profile::new();
    let c = p.ok(&["catalog", "--json"]);
    let slugs: Vec<&str> = c.as_array().expect("catalog").iter().filter_map(|e| e["slug"].as_str()).collect();
    assert!(slugs.contains(&"todoist") && slugs.contains(&"trello"), "{slugs:?}");
    let v = p.ok_with(
        &["catalog", "--import", "todoist", "--yes", "--secrets-stdin", "--cloud", "local", "--json"],
        Some(&format!("api_token={SECRET}\n")),
    );
    assert_eq!(v["badge"], "Official");
    let e = p.entry("todoist").expect("listed");
    assert_eq!(e["badges"], serde_json::json!(["Official", "Kept on this PC"]));
    assert_eq!(e["status_label"], "Active");
}

#[test]
fn s18_cli_modified_and_missing_statuses() {
    let p = Profile::new();
    p.ok(&["import", &example("exchange-rates"), "--yes", "--json"]);
    let d = p.ok(&["show", "fx", "--json"]);
    let manifest = PathBuf::from(d["folder"].as_str().expect("folder")).join("manifest.json");
    let mut bytes = std::fs::read(&manifest).expect("read");
    bytes.extend_from_slice(b" ");
    std::fs::write(&manifest, &bytes).expect("edit");
    assert_eq!(p.entry("fx").expect("listed")["status_label"], "Modified");
    p.ok(&["import", &example("exchange-rates"), "--yes", "--json"]);
    assert_eq!(p.entry("fx").expect("listed")["status_label"], "Active");
    let d = p.ok(&["show", "fx", "--json"]);
    std::fs::remove_file(PathBuf::from(d["folder"].as_str().expect("folder")).join("manifest.json")).expect("delete");
    assert_eq!(p.entry("fx").expect("listed")["status_label"], "Missing");
    p.ok(&["prefs", "tools_enabled=false", "--json"]);
    p.ok(&["uninstall", "fx", "--json"]);
    assert!(!p.root().join("plugins").join("fx").exists());
}

#[test]
fn s18_cli_concurrent_commands_never_corrupt_the_profile() {
    let p = Profile::new();
    p.ok_with(
        &["import", &example("my-tasks"), "--yes", "--secrets-stdin", "--cloud", "allow", "--json"],
        Some(&format!("api_token={SECRET}\n")),
    );
    let mut children = Vec::new();
    let start = |args: Vec<String>, stdin: Option<String>| {
        let mut cmd = p.command(&args.iter().map(String::as_str).collect::<Vec<_>>());
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = spawn(&mut cmd);
        let mut input = child.stdin.take().expect("stdin");
        if let Some(s) = stdin {
            input.write_all(s.as_bytes()).expect("stdin");
        }
        drop(input);
        (args, child)
    };
    let trello = example("trello-perso");
    children.push(start(
        ["import", &trello, "--yes", "--secrets-stdin", "--cloud", "allow", "--set", "board=AbC123", "--json"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        Some(format!("api_key=k-1\ntoken={SECRET}\n")),
    ));
    children.push(start(
        ["import", &example("exchange-rates"), "--yes", "--json"].iter().map(|s| s.to_string()).collect(),
        None,
    ));
    for i in 0..20 {
        let args: Vec<String> = match i % 4 {
            0 => vec!["set".into(), "mytasks".into(), format!("max_tasks={}", i + 1), "--json".into()],
            1 => vec!["enable".into(), "mytasks".into(), "--json".into()],
            2 => vec!["disable".into(), "mytasks".into(), "--action".into(), "add_task".into(), "--json".into()],
            _ => vec!["list".into(), "--json".into()],
        };
        children.push(start(args, None));
    }
    for (args, child) in children {
        let out = child.wait_with_output().expect("ends");
        let code = out.status.code();
        assert!(code == Some(0) || code == Some(1), "{args:?}: {:?} {}", out.status, text(&out.stderr));
        let v = json_of(&out);
        if code == Some(1) {
            assert_eq!(v["ok"], false, "{args:?}: a clean error: {v}");
        }
        assert!(code == Some(0), "{args:?} failed under concurrency: {v}");
    }
    let check: String = p.sql().query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("check");
    assert_eq!(check, "ok");
    let fk: i64 = p.sql().query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |r| r.get(0)).expect("fk");
    assert_eq!(fk, 0);
    for slug in ["mytasks", "trelloperso", "fx"] {
        assert_eq!(p.entry(slug).expect(slug)["status_label"], "Active", "{slug}");
    }
    assert_eq!(p.count("SELECT COUNT(*) FROM tools_off WHERE slug='mytasks' AND tool='add_task'"), 1);
    assert_eq!(p.count("SELECT COUNT(*) FROM reviews"), 0);
}

#[test]
fn s18_cli_processes_opening_a_new_profile_at_once_all_succeed() {
    for _ in 0..8 {
        let p = Profile::new();
        let children: Vec<_> = (0..16)
            .map(|_| spawn(p.command(&["prefs", "--json"]).stdout(Stdio::piped()).stderr(Stdio::piped())))
            .collect();
        for child in children {
            let out = child.wait_with_output().expect("ends");
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            assert_eq!(json_of(&out)["plugins_enabled"], true);
        }
        let ids = p.count("SELECT COUNT(*) FROM prefs WHERE key='profile_id'");
        assert_eq!(ids, 1, "one profile id");
        let check: String = p.sql().query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("check");
        assert_eq!(check, "ok");
    }
}

#[test]
fn s18_cli_leftovers_of_a_crash_are_cleaned_at_the_next_start_without_touching_the_installed_files() {
    // Crash after the commit: the old generation and the quarantined copy are left.
    let p = Profile::new();
    p.ok(&["import", &example("exchange-rates"), "--yes", "--json"]);
    let v2 = write_manifest(
        p.dir.path(),
        "v2.json",
        |t| t.replace("\"version\": \"1.0.0\"", "\"version\": \"1.0.1\""),
        "exchange-rates",
    );
    let id = p.ok(&["import", &v2, "--json"])["review"].as_str().expect("id").to_owned();
    let out = p.run_with(&["install", &id, "--json"], None, &[("DCPLUGIN_TEST_CRASH_AT", "install:committed")]);
    assert!(!out.status.success());
    let generations = || std::fs::read_dir(p.root().join("plugins/fx")).expect("slug dir").count();
    assert_eq!(generations(), 2, "old generation left by the crash");
    assert!(p.root().join("quarantine").join(&id).is_dir());
    // The killed process holds no copy lock any more: the next start
    // removes its leftovers at once, however recent.
    p.ok(&["list", "--json"]);
    assert_eq!(generations(), 1);
    assert!(!p.root().join("quarantine").join(&id).exists());
    assert_whole(&p, "fx", "1.0.1");

    // Crash before the commit: the new generation is an orphan, the review stays.
    let p = Profile::new();
    let id = p.ok(&["import", &example("exchange-rates"), "--json"])["review"].as_str().expect("id").to_owned();
    let out = p.run_with(&["install", &id, "--json"], None, &[("DCPLUGIN_TEST_CRASH_AT", "install:before-commit")]);
    assert!(!out.status.success());
    p.ok(&["list", "--json"]);
    // The orphan generation is removed (its emptied slug folder goes at a later start).
    let slug_dir = p.root().join("plugins/fx");
    assert!(
        !slug_dir.exists() || std::fs::read_dir(&slug_dir).expect("slug dir").next().is_none(),
        "orphan generation removed"
    );
    assert!(p.root().join("quarantine").join(&id).join("manifest.json").is_file(), "a pending review is kept");
    p.ok(&["install", &id, "--json"]);
    assert_whole(&p, "fx", "1.0.0");
}

#[test]
fn s18_cli_update_review_says_update_this_plugin_and_lists_the_changes() {
    let p = Profile::new();
    p.ok(&["import", &example("exchange-rates"), "--yes", "--json"]);
    let same = write_manifest(
        p.dir.path(),
        "text.json",
        |t| {
            t.replace("\"version\": \"1.0.0\"", "\"version\": \"1.0.1\"")
                .replace("No account needed.", "No account is needed.")
        },
        "exchange-rates",
    );
    let out = text(&p.run(&["import", &same]).stdout);
    assert!(out.contains("Update this plugin? Exchange rates 1.0.0 → 1.0.1"), "{out}");
    assert!(out.contains("Permissions do not change."), "{out}");
    let v = p.ok(&["import", &same, "--json"]);
    assert_eq!(
        (v["update"].clone(), v["old_version"].clone(), v["permissions_changed"].clone()),
        (Value::Bool(true), Value::from("1.0.0"), Value::Bool(false))
    );
    let changed = write_manifest(
        p.dir.path(),
        "post.json",
        |t| {
            t.replace("\"version\": \"1.0.0\"", "\"version\": \"1.1.0\"")
                .replace("\"method\": \"GET\"", "\"method\": \"POST\"")
        },
        "exchange-rates",
    );
    let out = text(&p.run(&["import", &changed]).stdout);
    assert!(
        out.contains("Permissions change:\n  action convert: level R0 → R2\n  action convert: method GET → POST"),
        "{out}"
    );
    // --json keeps `changes` as the English lines, with the structured list beside them.
    let v = p.ok(&["import", &changed, "--json"]);
    assert_eq!(v["changes"], serde_json::json!(["action convert: level R0 → R2", "action convert: method GET → POST"]));
    assert_eq!(
        v["permission_changes"][1],
        serde_json::json!({ "kind": "method_changed", "action": "convert", "old": "GET", "new": "POST" })
    );
}

/// §18 "whether the permissions change (…, or where secrets are sent)": an
/// update that only names another author, changes what an action sends in
/// its query, and adds a host while the kept token goes with every request
/// says so, in the English lines and in `--json` (`changes` the same
/// lines, `permission_changes` the structured kinds).
#[test]
fn s18_cli_update_review_shows_author_request_and_new_site_of_kept_secrets() {
    let p = Profile::new();
    p.ok_with(
        &["import", &example("my-tasks"), "--yes", "--secrets-stdin", "--cloud", "allow", "--json"],
        Some(&format!("api_token={SECRET}\n")),
    );
    let update = write_manifest(
        p.dir.path(),
        "update.json",
        |t| {
            t.replace("\"version\": \"1.0.0\"", "\"version\": \"1.1.0\"")
                .replace("\"author\": { \"name\": \"Your name\" }", "\"author\": { \"name\": \"Someone else\" }")
                .replace(
                    "\"limit\": \"{{config.max_tasks}}\"",
                    "\"limit\": \"{{config.max_tasks}}\", \"fields\": \"all\"",
                )
                .replace(
                    "\"hosts\": [\"api.tasks.example.com\"]",
                    "\"hosts\": [\"api.tasks.example.com\", \"files.tasks.example.com\"]",
                )
        },
        "my-tasks",
    );
    let lines = [
        "author: Your name → Someone else",
        "new site: files.tasks.example.com",
        "action list_tasks: query filter={{filter}}&limit={{config.max_tasks}} → filter={{filter}}&limit={{config.max_tasks}}&fields=all",
        "secrets now sent to a new site: files.tasks.example.com (api_token)",
    ];
    let out = text(&p.run(&["import", &update]).stdout);
    assert!(out.contains(&format!("Permissions change:\n  {}", lines.join("\n  "))), "{out}");
    let v = p.ok(&["import", &update, "--json"]);
    assert_eq!(v["permissions_changed"], Value::Bool(true));
    assert_eq!(v["changes"], serde_json::json!(lines));
    let kinds: Vec<&str> =
        v["permission_changes"].as_array().expect("list").iter().filter_map(|c| c["kind"].as_str()).collect();
    assert_eq!(kinds, ["author_changed", "site_added", "request_changed", "secrets_to_site"]);
    assert_eq!(
        v["permission_changes"][0],
        serde_json::json!({ "kind": "author_changed", "old": "Your name", "new": "Someone else" })
    );
    assert_eq!(
        v["permission_changes"][3],
        serde_json::json!({ "kind": "secrets_to_site", "site": "files.tasks.example.com", "secrets": ["api_token"] })
    );
}

/// §11: where no keyring keeps the vault key past a restart (no Secret
/// Service answers), `list` says that secrets will be asked again; the
/// JSON list keeps its shape.
#[cfg_attr(
    windows,
    ignore = "without a Secret Service (D-Bus) the vault falls back to the kernel keyring, a Linux case: Windows always has the Credential Manager"
)]
#[test]
fn s11_cli_list_says_when_secrets_last_only_until_a_restart() {
    let p = Profile::new();
    p.ok(&["import", &example("exchange-rates"), "--yes", "--json"]);
    let no_bus = [("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/dcp-test-bus")];
    let out = p.run_with(&["list"], None, &no_bus);
    assert_eq!(out.status.code(), Some(0));
    assert!(contains(&out.stdout, "note: Secrets are kept only until this PC restarts"), "{}", text(&out.stdout));
    let json = json_of(&p.run_with(&["list", "--json"], None, &no_bus));
    assert!(json.is_array(), "{json}");
}

/// A failed `import --yes` keeps its review pending; `--json` names it so a
/// script can install it once the settings are fixed, or cancel it.
#[test]
fn s3_cli_failed_import_yes_names_its_pending_review() {
    let p = Profile::new();
    let out = p.run(&["import", &example("my-tasks"), "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let failed = json_of(&out);
    assert_eq!(failed["code"], "missing_settings");
    let review = failed["review"].as_str().expect("the pending review's id").to_owned();
    let installed =
        p.ok_with(&["install", &review, "--secrets-stdin", "--cloud", "local", "--json"], Some("api_token=tok-123\n"));
    assert_eq!(installed["slug"], "mytasks");
}
