//! The guide for plugin authors (`docs/`) is checked, so it cannot drift:
//! its manifest reference against `schema/manifest.schema.json`, its error
//! guide against every code the engine gives, every `dcplugin` command of
//! its shell blocks against the real parser, every complete manifest
//! against the validator; and its tutorial, the local-server example and
//! the two event clients are run as written, on a temp profile.

#![cfg(unix)]

mod support;

use dcp_format::{CallCode, Code, Refusal, SettingsCode};
use dcp_host::PcServer;
use dcp_vault::{KeyStore, OsKeyStore};
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::{binary, examples, free_port, json_of, run, text, Running};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn doc(name: &str) -> String {
    std::fs::read_to_string(repo().join("docs").join(name)).unwrap_or_else(|e| panic!("docs/{name}: {e}"))
}

fn doc_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    names
}

/// The fenced code blocks of a markdown text: (language, content).
fn blocks(markdown: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        match (&mut open, trimmed.strip_prefix("```")) {
            (None, Some(lang)) => open = Some((lang.trim().to_owned(), String::new())),
            (Some(_), Some(_)) => out.extend(open.take()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

// ------------------------------------------------------------ the reference

/// Placeholders for the names a plugin chooses, by the field that holds them.
fn placeholder(parent: &str) -> &'static str {
    match parent {
        "user_config" => "<setting>",
        "tools" => "<tool>",
        "properties" => "<argument>",
        "events" => "<event>",
        "labels" | "descriptions" => "<language>",
        _ => "<name>",
    }
}

/// Every property path of the schema, written as docs/reference.md writes
/// them: fields of the Desktop Companion block from the block.
fn schema_paths(schema: &Value, node: &Value, path: &str, seen: &mut Vec<String>, out: &mut Vec<String>) {
    let Some(node) = node.as_object() else { return };
    if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or_default().to_owned();
        if !seen.contains(&name) {
            seen.push(name.clone());
            schema_paths(schema, &schema["$defs"][&name], path, seen, out);
            seen.pop();
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for sub in node.get(key).and_then(Value::as_array).into_iter().flatten() {
            schema_paths(schema, sub, path, seen, out);
        }
    }
    if let Some(items) = node.get("items") {
        schema_paths(schema, items, path, seen, out);
    }
    for (key, sub) in node.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let full = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
        let full = full.strip_prefix("_meta.com.desktopaicompanion.").map_or(full.clone(), str::to_owned);
        out.push(full.clone());
        schema_paths(schema, sub, &full, seen, out);
    }
    let inner = format!("{path}.{}", placeholder(path.rsplit('.').next().unwrap_or_default()));
    for sub in node.get("patternProperties").and_then(Value::as_object).into_iter().flatten().map(|(_, v)| v) {
        schema_paths(schema, sub, &inner, seen, out);
    }
    if let Some(sub) = node.get("additionalProperties").filter(|v| v.is_object()) {
        schema_paths(schema, sub, &inner, seen, out);
    }
}

/// The first cell of each row of the tables whose first column is `field`.
fn reference_rows(markdown: &str) -> Vec<String> {
    let mut rows = Vec::new();
    let mut in_field_table = false;
    for line in markdown.lines() {
        if !line.starts_with('|') {
            in_field_table = false;
            continue;
        }
        let first = line.trim_start_matches('|').split('|').next().unwrap_or_default().trim();
        if first == "field" {
            in_field_table = true;
        } else if in_field_table && first.starts_with('`') {
            rows.push(first.trim_matches('`').to_owned());
        }
    }
    rows
}

#[test]
fn every_schema_property_is_in_the_reference_and_every_row_is_in_the_schema() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("schema/manifest.schema.json")).expect("schema"))
            .expect("schema is JSON");
    let mut paths = Vec::new();
    schema_paths(&schema, &schema, "", &mut Vec::new(), &mut paths);
    let schema_set: BTreeSet<String> = paths.into_iter().collect();
    assert!(schema_set.len() > 60, "the walk found the schema's properties: {schema_set:?}");
    let rows = reference_rows(&doc("reference.md"));
    let doc_set: BTreeSet<String> = rows.iter().cloned().collect();
    assert_eq!(rows.len(), doc_set.len(), "a field documented twice: {rows:?}");
    let missing: Vec<_> = schema_set.difference(&doc_set).collect();
    let unknown: Vec<_> = doc_set.difference(&schema_set).collect();
    assert!(missing.is_empty(), "in the schema, not in docs/reference.md: {missing:?}");
    assert!(unknown.is_empty(), "in docs/reference.md, not in the schema: {unknown:?}");
}

// ------------------------------------------------------------ error codes

/// The event door's reasons docs/errors.md gives a row (the other
/// values of `EventReason` have none there yet: a hand list until they do).
const EVENT_REASONS: &[&str] =
    &["unknown_event", "event_off", "plugin_off", "dev_mode_off", "rate_limited", "event_expired", "cloud_blocked"];

#[test]
fn every_error_code_has_a_row_with_its_usual_fix() {
    let errors = doc("errors.md");
    let rows: BTreeSet<String> = errors
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('`').nth(1).map(str::to_owned))
        .collect();
    // §22's codes from their spelled lists, so a new one is checked too:
    // at import, installing and saving settings, tool results (each HTTP
    // status in one row; POLICY_DENIED is said with the reasons' table,
    // each reason its own row), the courtier's and the engine's reasons.
    let spelled = Code::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(SettingsCode::ALL.iter().map(|c| c.as_str()))
        .chain(CallCode::ALL.iter().filter(|c| **c != CallCode::PolicyDenied).map(|c| c.as_str()))
        .chain(["HTTP_<status>"])
        .chain(Refusal::ALL.iter().map(|c| c.as_str()))
        .chain(EVENT_REASONS.iter().copied());
    let expected: Vec<String> = spelled.map(str::to_owned).collect();
    let missing: Vec<_> = expected.iter().filter(|c| !rows.contains(*c)).collect();
    assert!(missing.is_empty(), "codes without a row in docs/errors.md: {missing:?}");
    // Each row has its fix: four cells, none empty.
    for line in errors.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
        assert_eq!(cells.len(), 3, "code | meaning | fix: {line}");
        assert!(cells.iter().all(|c| !c.trim().is_empty()), "{line}");
    }
}

// ------------------------------------------------------------ commands

/// The `dcplugin` commands of a shell line: from each `dcplugin` word to
/// the first shell operator outside quotes, as words.
fn commands(line: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = line[line.char_indices().nth(i).map_or(line.len(), |(b, _)| b)..].starts_with("dcplugin");
        let before_ok = i == 0 || matches!(chars[i - 1], ' ' | '|' | '(' | '\t');
        let after_ok = chars.get(i + 8).is_none_or(|c| *c == ' ');
        if !(starts && before_ok && after_ok) {
            i += 1;
            continue;
        }
        let mut words = Vec::new();
        let mut word = String::new();
        let mut in_word = false;
        let mut quote: Option<char> = None;
        while i < chars.len() {
            let c = chars[i];
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => word.push(c),
                None if c == '\'' || c == '"' => {
                    quote = Some(c);
                    in_word = true;
                }
                None if c == ' ' || c == '\t' => {
                    if in_word {
                        words.push(std::mem::take(&mut word));
                        in_word = false;
                    }
                }
                None if "|;&)<>".contains(c) || (c == '#' && !in_word) => break,
                None => {
                    word.push(c);
                    in_word = true;
                }
            }
            i += 1;
        }
        if in_word {
            words.push(word);
        }
        out.push(words);
    }
    out
}

/// Every `dcplugin` command of the shell blocks of `markdown`.
fn shell_commands(markdown: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (lang, body) in blocks(markdown) {
        if !matches!(lang.as_str(), "sh" | "bash" | "shell") {
            continue;
        }
        let joined = body.replace("\\\n", " ");
        for line in joined.lines() {
            out.extend(commands(line));
        }
    }
    out
}

/// A command line parses: the same words and `--help` exit 0.
fn parses(words: &[String]) -> Output {
    let mut command = binary();
    command.args(&words[1..]).arg("--help").env("DCPLUGIN_PROFILE", "/nonexistent/dcplugin-docs-test");
    run(command, None)
}

#[test]
fn every_command_in_the_guide_parses() {
    // The check has teeth: a bad flag, value or command fails it.
    for bad in [
        "dcplugin install R --cloud maybe",
        "dcplugin import x.json --bogus",
        "dcplugin nonsense",
        "dcplugin init --kind mainframe",
    ] {
        let words = commands(bad).remove(0);
        assert_eq!(parses(&words).status.code(), Some(2), "{bad} must not parse");
    }
    let mut checked = 0;
    let mut subcommands = BTreeSet::new();
    let readmes =
        ["../README.md", "../plugins-examples/local-server/readme.md", "../plugins-examples/pomodoro/readme.md"];
    for name in doc_names().iter().map(String::as_str).chain(readmes) {
        let text = doc(name);
        for words in shell_commands(&text) {
            let out = parses(&words);
            assert_eq!(out.status.code(), Some(0), "docs/{name}: {words:?} does not parse: {}", text_of(&out));
            subcommands.extend(words.iter().skip(1).find(|w| !w.starts_with('-')).cloned());
            checked += 1;
        }
    }
    assert!(checked >= 25, "only {checked} commands found");
    for needed in ["init", "validate", "dev-mode", "load-folder", "serve", "call", "show", "journal", "pack", "events"]
    {
        assert!(subcommands.contains(needed), "the guide never runs {needed}: {subcommands:?}");
    }
}

fn text_of(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

#[test]
fn every_complete_manifest_in_the_guide_validates() {
    let dir = tempfile::tempdir().expect("dir");
    let mut checked = 0;
    for name in doc_names() {
        for (lang, body) in blocks(&doc(&name)) {
            if lang != "json" {
                continue;
            }
            let Ok(value) = serde_json::from_str::<Value>(&body) else { continue };
            if value.get("_meta").is_none() {
                continue;
            }
            let path = dir.path().join(format!("manifest-{checked}.json"));
            std::fs::write(&path, &body).expect("write");
            let mut command = binary();
            command.args(["validate", path.to_str().expect("utf-8"), "--json"]);
            let out = run(command, None);
            let v = json_of(&out);
            assert_eq!(out.status.code(), Some(0), "docs/{name}: a manifest does not validate: {v}");
            assert_eq!(v["warnings"], serde_json::json!([]), "docs/{name}: {v}");
            checked += 1;
        }
    }
    assert!(checked >= 2, "only {checked} complete manifests found");
}

/// The scripted AI's script in testing-sentences.md is one the server
/// reads: exactly its `Script` type, its turns those the page describes.
#[test]
fn the_scripted_ai_script_of_the_testing_page_is_one_it_reads() {
    let scripts: Vec<Value> = blocks(&doc("testing-sentences.md"))
        .into_iter()
        .filter(|(lang, _)| lang == "json")
        .filter_map(|(_, body)| serde_json::from_str::<Value>(&body).ok())
        .filter(|v| v.get("turns").is_some())
        .collect();
    assert_eq!(scripts.len(), 1, "one script on the page");
    let script: scripted_ai::Script = serde_json::from_value(scripts[0].clone())
        .unwrap_or_else(|e| panic!("docs/testing-sentences.md: the script does not parse as scripted-ai's: {e}"));
    assert_eq!(script.turns.len(), 2, "a tool call, then the answer");
    let first = serde_json::to_string(&script.turns[0]).expect("json");
    assert!(first.contains("fx__convert"), "the first step calls the tool the page tests: {first}");
}

#[test]
fn the_readme_links_the_guide_and_starts_its_cli_section_with_a_normal_build() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README");
    for page in ["docs/guide.md", "docs/reference.md", "docs/errors.md", "docs/events.md", "docs/players.md"] {
        assert!(readme.contains(&format!("({page})")), "README links {page}");
    }
    let cli = &readme[readme.find("## `dcplugin`").expect("CLI section")..];
    let first_block = blocks(cli).into_iter().next().expect("a code block").1;
    assert!(first_block.contains("cargo install --path crates/dcplugin --locked"), "{first_block}");
    assert!(!first_block.contains("test-net"), "{first_block}");
}

// ------------------------------------------------------------ running the tutorial

/// A shell in a folder, with this `dcplugin` first on PATH and the test's profile.
struct Shell {
    _bin: tempfile::TempDir,
    path: String,
    profile: PathBuf,
}

impl Shell {
    fn new(profile: &Path) -> Shell {
        let bin = tempfile::tempdir().expect("bin");
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_dcplugin"), bin.path().join("dcplugin")).expect("symlink");
        let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
        Shell { _bin: bin, path, profile: profile.to_owned() }
    }

    fn command(&self, line: &str, cwd: &Path) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", line]).current_dir(cwd).env("PATH", &self.path).env("DCPLUGIN_PROFILE", &self.profile);
        command
    }

    /// Runs a line of the guide; it must succeed.
    fn ok(&self, line: &str, cwd: &Path) -> String {
        let out = run(self.command(line, cwd), None);
        assert_eq!(out.status.code(), Some(0), "{line}: {}", text_of(&out));
        text(&out.stdout)
    }

    /// Starts a line that runs until stopped, its standard output on a channel.
    fn spawn(&self, line: &str, cwd: &Path) -> (Running, mpsc::Receiver<String>) {
        // exec: the shell becomes the program, so killing it stops the program.
        let mut child: Child = self
            .command(&format!("exec {line}"), cwd)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        (Running(child), rx)
    }
}

/// Waits for a line containing `needle`.
fn wait_for(lines: &mpsc::Receiver<String>, needle: &str) -> String {
    let limit = Duration::from_secs(15);
    let start = Instant::now();
    let mut seen = Vec::new();
    while let Some(left) = limit.checked_sub(start.elapsed()) {
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(needle) => return line,
            Ok(line) => seen.push(line),
            Err(_) => break,
        }
    }
    panic!("no line with {needle:?}: {seen:#?}");
}

/// Waits until a server started by [`Shell::spawn`] listens on `port`: both
/// servers of the guide print their address once they listen, their token
/// file written before.
fn wait_for_server(printed: &mpsc::Receiver<String>, port: u16) {
    wait_for(printed, &format!("istening on http://127.0.0.1:{port}"));
}

/// The lines of the guide this test runs, each checked to be in it as written.
fn guide_line<'a>(guide: &str, line: &'a str) -> &'a str {
    let in_a_block = blocks(guide).iter().any(|(lang, body)| lang == "sh" && body.lines().any(|l| l.trim() == line));
    assert!(in_a_block, "docs/guide.md has no shell line {line:?}");
    line
}

fn edit_tool(manifest: &Path, edit: impl FnOnce(&mut Value)) {
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(manifest).expect("read")).expect("json");
    edit(&mut m["_meta"]["com.desktopaicompanion"]["tools"]["get_status"]);
    let temp = manifest.with_extension("json.tmp");
    std::fs::write(&temp, serde_json::to_string_pretty(&m).expect("json") + "\n").expect("write");
    std::fs::rename(&temp, manifest).expect("save");
}

/// The tutorial of docs/guide.md, then its local-server section, as written
/// (only the ports are others, so that tests running at once do not meet).
#[test]
fn the_tutorial_and_the_local_server_example_run_as_written() {
    let guide = doc("guide.md");
    let tmp = tempfile::tempdir().expect("dir");
    let profile = tmp.path().join("profile");
    let _key = ProfileKey(profile.clone());
    let shell = Shell::new(&profile);
    let folder = tmp.path().join("my-first-plugin");
    std::fs::create_dir(&folder).expect("mkdir");
    guide_line(&guide, "mkdir my-first-plugin");
    guide_line(&guide, "cd my-first-plugin");
    let (port, door) = (free_port(), free_port());

    // 1-2. init, validate.
    let init = guide_line(&guide, r#"dcplugin init --kind pc --name "My first plugin" --yes"#);
    let out = shell.ok(&format!("{init} --port {port}"), &folder);
    assert!(out.contains("valid: myfirstplugin (My first plugin 0.1.0)"), "{out}");
    assert!(shell.ok(guide_line(&guide, "dcplugin validate ."), &folder).contains("valid: myfirstplugin"));
    // 3. The server.
    let (_server, printed) = shell.spawn(guide_line(&guide, "python3 server.py"), &folder);
    wait_for_server(&printed, port);
    // 4. Developer mode, load the folder with the token.
    shell.ok(guide_line(&guide, "dcplugin dev-mode on"), &folder);
    let load =
        guide_line(&guide, r#"printf 'token=%s\n' "$(cat token.txt)" | dcplugin load-folder . --yes --secrets-stdin"#);
    assert!(shell.ok(load, &folder).contains("installed myfirstplugin 0.1.0"));
    // 5. serve says what it watches.
    let (serve, lines) = shell.spawn(&format!("{} --door-port {door}", guide_line(&guide, "dcplugin serve")), &folder);
    wait_for(&lines, "watching: myfirstplugin");
    // 6. A call by hand.
    let call = guide_line(&guide, "dcplugin call myfirstplugin__get_status");
    let out = shell.ok(call, &folder);
    assert!(out.contains(r#"{"status":"ok","time":""#), "{out}");
    // 7. The edit, reloaded on save; then a broken save and its errors.
    let manifest = folder.join("manifest.json");
    assert!(guide.contains(r#""response": { "pick": ["status"] }"#));
    edit_tool(&manifest, |tool| tool["response"] = serde_json::json!({ "pick": ["status"] }));
    wait_for(&lines, "reloaded myfirstplugin  Active");
    let out = shell.ok(call, &folder);
    assert!(out.contains(r#"{"status":"ok"}"#), "{out}");
    edit_tool(&manifest, |tool| tool["risk"] = Value::from("R9"));
    wait_for(&lines, "reloaded myfirstplugin  Invalid");
    let error = wait_for(&lines, "bad_risk");
    assert!(guide.contains(error.trim()), "the guide shows the error as printed: {error}");
    edit_tool(&manifest, |tool| {
        tool.as_object_mut().expect("tool").remove("risk");
    });
    wait_for(&lines, "reloaded myfirstplugin  Active");
    drop(serve);
    // The guide's final manifest is the one on disk (but for the port).
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read").replace(&port.to_string(), "8420"))
            .expect("json");
    let shown = blocks(&guide)
        .into_iter()
        .filter(|(lang, _)| lang == "json")
        .filter_map(|(_, body)| serde_json::from_str::<Value>(&body).ok())
        .find(|v| v["_meta"]["com.desktopaicompanion"]["slug"] == "myfirstplugin")
        .expect("the final manifest in the guide");
    assert_eq!(shown, on_disk);
    // 8-9. Look, then pack.
    assert!(shell.ok(guide_line(&guide, "dcplugin show myfirstplugin"), &folder).contains("Status:    Active"));
    assert!(shell.ok(guide_line(&guide, "dcplugin journal --limit 5"), &folder).contains("myfirstplugin__get_status"));
    assert!(shell.ok(guide_line(&guide, "dcplugin tools"), &folder).contains("myfirstplugin__get_status"));
    let out = shell.ok(guide_line(&guide, "dcplugin pack . -o ../myfirstplugin-0.1.0.zip"), &folder);
    assert!(out.contains("left out: server.py") && out.contains("left out: token.txt"), "{out}");
    assert!(tmp.path().join("myfirstplugin-0.1.0.zip").is_file());
    drop(_server);

    // The local-server example, copied as the guide says (its port changed in the copy).
    guide_line(&guide, "cp -r plugins-examples/local-server ~/local-server");
    guide_line(&guide, "cd ~/local-server");
    let copy = tmp.path().join("local-server");
    std::fs::create_dir(&copy).expect("mkdir");
    let port = free_port();
    for file in ["manifest.json", "server.py", "readme.md", "icon.png"] {
        let bytes = std::fs::read(examples().join("local-server").join(file)).expect("example");
        let bytes = if file == "manifest.json" {
            String::from_utf8(bytes).expect("utf-8").replace("8420", &port.to_string()).into_bytes()
        } else {
            bytes
        };
        std::fs::write(copy.join(file), bytes).expect("copy");
    }
    let (_server, printed) = shell.spawn(&format!("{} --port {port}", guide_line(&guide, "python3 server.py")), &copy);
    wait_for_server(&printed, port);
    let token = std::fs::read_to_string(copy.join("token.txt")).expect("token");
    wait_for(&printed, token.trim());
    assert!(shell.ok(load, &copy).contains("installed mypc 1.0.0"));
    let out = shell.ok(guide_line(&guide, "dcplugin call mypc__get_time"), &copy);
    assert!(out.contains(r#""time":"#), "{out}");
    let note = guide_line(&guide, r#"dcplugin call mypc__add_note --args '{"text": "buy batteries"}'"#);
    assert!(shell.ok(note, &copy).contains(r#""saved":true"#));
    assert!(shell.ok(guide_line(&guide, "cat notes.txt"), &copy).contains("buy batteries"));
    let twitch = run(shell.command("dcplugin call mypc__get_time --source twitch --json", &copy), None);
    assert_eq!(json_of(&twitch)["reason"], "twitch_level");
    assert!(guide.contains("`dcplugin call mypc__get_time --source twitch` is refused\nwith `twitch_level`"));
}

/// Removes a profile's vault key from the OS store when the test ends.
struct ProfileKey(PathBuf);

impl Drop for ProfileKey {
    fn drop(&mut self) {
        if let Ok(conn) = rusqlite::Connection::open(self.0.join("host.sqlite")) {
            if let Ok(id) =
                conn.query_row("SELECT value FROM prefs WHERE key='profile_id'", [], |r| r.get::<_, String>(0))
            {
                let _ = OsKeyStore::new().delete(&id);
            }
        }
    }
}

/// The curl and Python clients of docs/events.md reach the door as written
/// (the door on another port); one event each, each to a door of its own:
/// the door accepts one event of a plugin every 10 s, and that count lives
/// in the running door, so the second client needs no wait.
#[test]
fn the_event_clients_of_the_guide_reach_the_door() {
    let events = doc("events.md");
    let tmp = tempfile::tempdir().expect("dir");
    let profile = tmp.path().join("profile");
    let _key = ProfileKey(profile.clone());
    let shell = Shell::new(&profile);
    let dir = tmp.path();
    shell.ok("dcplugin dev-mode on", dir);
    let pomodoro = examples().join("pomodoro/manifest.json");
    shell.ok(&format!("printf 'token=t\\n' | dcplugin import {} --yes --secrets-stdin", pomodoro.display()), dir);
    shell.ok("dcplugin events pomodoro on focus_done", dir);
    let door = free_port();
    let open_door = |door: u16| {
        let (serve, lines) = shell.spawn(&format!("dcplugin serve --listening --door-port {door}"), dir);
        wait_for(&lines, &format!("door: listening on 127.0.0.1:{door}"));
        (serve, lines)
    };
    let (serve, lines) = open_door(door);

    // curl, the whole block as written.
    let curl = blocks(&events)
        .into_iter()
        .find(|(lang, body)| lang == "sh" && body.contains("curl "))
        .expect("the curl block")
        .1
        .replace("8440", &door.to_string());
    let out = run(shell.command(&curl, dir), None);
    assert!(text(&out.stdout).starts_with("HTTP/1.1 202"), "{}", text_of(&out));
    wait_for(&lines, "received pomodoro/focus_done  \"Session 1 of 4 done.\"");

    drop(serve);

    // Python, saved as the guide says, with the token beside it.
    let door = free_port();
    let (_serve, lines) = open_door(door);
    let python = blocks(&events)
        .into_iter()
        .find(|(lang, _)| lang == "python")
        .expect("the Python block")
        .1
        .replace("8440", &door.to_string());
    std::fs::write(dir.join("send_event.py"), &python).expect("write");
    shell.ok(guide_line_in(&events, "dcplugin events pomodoro token > event-token.txt"), dir);
    let out = shell.ok(guide_line_in(&events, "python3 send_event.py focus_done"), dir);
    assert_eq!(out.trim(), "202");
    wait_for(&lines, "received pomodoro/focus_done  \"Session 2 of 4 done. Break: 5 minutes.\"");
    // A refusal comes back as its status, as the guide says.
    std::fs::write(dir.join("event-token.txt"), "0".repeat(64)).expect("wrong token");
    assert_eq!(shell.ok("python3 send_event.py focus_done", dir).trim(), "401");
    // A closed door (nothing listens on the port) is said in words, not a
    // traceback, and the script fails.
    let closed = free_port();
    std::fs::write(dir.join("send_event.py"), python.replace(&door.to_string(), &closed.to_string())).expect("write");
    let out = run(shell.command("python3 send_event.py focus_done", dir), None);
    assert_eq!(out.status.code(), Some(1), "{}", text_of(&out));
    assert!(text(&out.stderr).contains("The door is closed"), "{}", text_of(&out));
    assert!(!text_of(&out).contains("Traceback"), "{}", text_of(&out));
}

fn guide_line_in<'a>(markdown: &str, line: &'a str) -> &'a str {
    let found = blocks(markdown).iter().any(|(lang, body)| lang == "sh" && body.lines().any(|l| l.trim() == line));
    assert!(found, "no shell line {line:?}");
    line
}

/// The screens docs/players.md shows are what `dcplugin import` prints:
/// every line of its text blocks comes from a real review.
#[test]
fn the_screens_shown_to_players_are_printed_as_shown() {
    let players = doc("players.md");
    let texts: Vec<String> =
        blocks(&players).into_iter().filter(|(lang, _)| lang == "text").map(|(_, body)| body).collect();
    assert_eq!(texts.len(), 2, "the consent screen and an update");
    let tmp = tempfile::tempdir().expect("dir");
    let profile = tmp.path().join("profile");
    let _key = ProfileKey(profile.clone());
    let shell = Shell::new(&profile);
    let dir = tmp.path();
    let consent = shell.ok(&format!("dcplugin import {}", examples().join("my-tasks/manifest.json").display()), dir);
    for line in texts[0].lines() {
        assert!(consent.lines().any(|l| l == line), "{line:?} is not printed:\n{consent}");
    }
    let fx = examples().join("exchange-rates/manifest.json");
    shell.ok(&format!("dcplugin import {} --yes", fx.display()), dir);
    let v2 = std::fs::read_to_string(&fx)
        .expect("example")
        .replace("\"version\": \"1.0.0\"", "\"version\": \"1.1.0\"")
        .replace("\"method\": \"GET\"", "\"method\": \"POST\"");
    std::fs::write(dir.join("fx-1.1.0.json"), v2).expect("write");
    let update = shell.ok("dcplugin import fx-1.1.0.json", dir);
    for line in texts[1].lines() {
        assert!(update.lines().any(|l| l == line), "{line:?} is not printed:\n{update}");
    }
}

/// The servers of this PC that docs/companion.md tells players to start are
/// the ones the app knows (dcp-ai's table): each has its row, with its
/// usual base URL, and the page names no other.
#[test]
fn the_ai_servers_of_the_companion_page_are_the_ones_the_app_knows() {
    let page = doc("companion.md");
    let rows: Vec<&str> = page
        .lines()
        .skip_while(|l| !l.starts_with("| server | what to start | base URL |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(rows.len(), PcServer::ALL.len(), "one row per known server: {rows:#?}");
    for (server, row) in PcServer::ALL.iter().zip(&rows) {
        assert!(row.starts_with(&format!("| {} |", server.name())), "{server}: {row}");
        assert!(row.ends_with(&format!("| `{}` |", server.base_url())), "{server}: {row}");
    }
}
