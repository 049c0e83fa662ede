//! `dcplugin mcp` driven by a real MCP client (issue 24): the official
//! Python SDK (`mcp`, installed by scripts/lib/mcp-client.sh into the build
//! folder) runs `tests/mcp_client.py`, which starts the server as an AI app
//! does and prints one JSON line per step. The plugins' web service is a TLS
//! server on 127.0.0.1 reached through the network filter's `test-net`
//! hooks, as in https_cli.rs. Checked: the tool list is the host's offer
//! with its schemas and annotations, a call runs the whole pipeline and its
//! refusals are error results, a plugin kept on this PC follows `--ai`, a
//! change made by another process is announced, R3 is asked through
//! elicitation, and bad input leaves the server serving.
//!
//! Built only with `--features dcplugin/test-net` (see Cargo.toml).

#![allow(clippy::unwrap_used)]

#[path = "../../dcp-net/tests/common/mod.rs"]
mod common;
mod support;

use common::{https_server, pki, Reply, Seen, Server};
use dcp_format::codes::Refusal;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use support::{contains, json_of, text, Profile, Running};

const SECRET: &str = "sk-live-93be0c11d4";

/// The AI app as tests/mcp_client.py names itself (clientInfo: name and
/// version), as the journal keeps it.
const CLIENT: &str = "dcplugin-test-client 1.0.0";

/// Public-looking answers for the declared names, every one connected to
/// the local TLS server.
const ZONE: &str = "api.example.com=93.184.216.34,cdn.example.com=93.184.216.37";

/// The Python of the tests' MCP client, made by scripts/lib/mcp-client.sh.
fn python() -> PathBuf {
    let python = match std::env::var_os("DCP_MCP_PYTHON") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../mcp-client/bin/python"),
    };
    let imports = Command::new(&python).args(["-c", "import mcp"]).output().is_ok_and(|o| o.status.success());
    assert!(
        imports,
        "the MCP client (the Python SDK `mcp`) is missing at {}: run scripts/lib/mcp-client.sh first \
         (scripts/test does), or set DCP_MCP_PYTHON to a python that imports mcp",
        python.display()
    );
    python
}

/// A profile with `shop` (a web service, its secret saved, allowed with
/// online AIs) and `pcclock` (a program on this PC, developer mode on)
/// installed, the test CA on disk, and the shop's TLS server.
struct World {
    p: Profile,
    _runtime: tokio::runtime::Runtime,
    server: Server,
}

impl World {
    fn new() -> World {
        let p = Profile::new();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let server = runtime.block_on(https_server(shop));
        std::fs::write(p.dir.path().join("ca.pem"), &pki().ca_pem).unwrap();
        let w = World { p, _runtime: runtime, server };
        assert!(w.run(&["dev-mode", "on"], None).status.success());
        w.import(&shop_manifest(), "allow", Some(&format!("api_token={SECRET}\n")));
        w.import(&pcclock_manifest(), "allow", None);
        w
    }

    /// Imports and installs `manifest` with the online-AI answer `cloud`.
    fn import(&self, manifest: &Value, cloud: &str, secrets: Option<&str>) {
        let slug = manifest["_meta"]["com.desktopaicompanion"]["slug"].as_str().unwrap();
        let path = self.p.dir.path().join(format!("{slug}.json"));
        std::fs::write(&path, manifest.to_string()).unwrap();
        let mut args = vec!["import", path.to_str().unwrap(), "--yes", "--cloud", cloud, "--json"];
        if secrets.is_some() {
            args.push("--secrets-stdin");
        }
        let out = self.run(&args, secrets);
        assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    }

    /// The test hooks: the fake DNS, every answer connected to the TLS server, the test CA.
    fn env(&self) -> Vec<(&'static str, String)> {
        let connect: Vec<String> = ZONE
            .split(',')
            .filter_map(|entry| entry.split_once('='))
            .map(|(_, ip)| format!("{ip}:443={}", self.server.addr))
            .collect();
        vec![
            ("DCPLUGIN_TEST_DNS", ZONE.to_owned()),
            ("DCPLUGIN_TEST_CONNECT", connect.join(",")),
            ("DCPLUGIN_TEST_CA", self.p.dir.path().join("ca.pem").to_str().unwrap().to_owned()),
        ]
    }

    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.p.run_with(args, stdin, &env)
    }

    /// The MCP client started on `dcplugin mcp --ai AI`, running `steps`,
    /// answering every elicitation with `elicit` (none: no elicitation).
    fn client(&self, ai: &str, elicit: Option<&str>, steps: &[Value]) -> Client {
        self.client_named(None, ai, elicit, steps)
    }

    /// [`World::client`], the client naming itself `name` in `initialize`
    /// (none: the script's own name, [`CLIENT`]).
    fn client_named(&self, name: Option<&str>, ai: &str, elicit: Option<&str>, steps: &[Value]) -> Client {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
        let mut command = Command::new(python());
        command.arg(script).arg(Value::from(steps.to_vec()).to_string());
        if let Some(answer) = elicit {
            command.args(["--elicit", answer]);
        }
        if let Some(name) = name {
            command.args(["--name", name]);
        }
        command
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_dcplugin"))
            .arg("--profile")
            .arg(self.p.root())
            .args(["mcp", "--ai", ai])
            .envs(self.env())
            .env_remove("DCPLUGIN_TEST_CRASH_AT")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("python runs");
        let lines = BufReader::new(child.stdout.take().unwrap());
        // Read as it comes, so a chatty client never blocks on a full pipe.
        let mut stderr = child.stderr.take().unwrap();
        let errors = std::thread::spawn(move || {
            let mut errors = String::new();
            let _ = stderr.read_to_string(&mut errors);
            errors
        });
        Client { child: Running(child), lines, errors }
    }

    /// Runs `steps` to the end: the session line, then one line per step.
    fn session(&self, ai: &str, elicit: Option<&str>, steps: &[Value]) -> Vec<Value> {
        self.session_named(None, ai, elicit, steps)
    }

    /// [`World::session`] of a client naming itself `name`.
    fn session_named(&self, name: Option<&str>, ai: &str, elicit: Option<&str>, steps: &[Value]) -> Vec<Value> {
        let mut client = self.client_named(name, ai, elicit, steps);
        let mut lines = Vec::new();
        while let Some(line) = client.next() {
            lines.push(line);
        }
        client.finish();
        assert_eq!(lines.len(), steps.len() + 1, "a line per step: {lines:?}");
        lines
    }

    fn journal(&self) -> Value {
        json_of(&self.run(&["journal", "--json"], None))
    }
}

/// A running MCP client: its output read line by line as it comes.
struct Client {
    child: Running,
    lines: BufReader<ChildStdout>,
    errors: std::thread::JoinHandle<String>,
}

impl Client {
    /// The next JSON line; none once the client ended.
    fn next(&mut self) -> Option<Value> {
        let mut line = String::new();
        if self.lines.read_line(&mut line).unwrap() == 0 {
            return None;
        }
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
    }

    /// Waits for the client's end: it must succeed. The server's standard
    /// error is the client's (the SDK passes it through): it says nothing
    /// of the secret.
    fn finish(mut self) {
        let status = self.child.0.wait().unwrap();
        let errors = self.errors.join().unwrap();
        assert!(status.success(), "the MCP client failed: {errors}");
        assert!(!errors.contains(SECRET), "the secret reached standard error: {errors}");
    }
}

fn child_of(running: &mut Running) -> &mut Child {
    &mut running.0
}

fn shop_manifest() -> Value {
    let id =
        json!({ "type": "object", "properties": { "id": { "type": "string", "maxLength": 100 } }, "required": ["id"] });
    json!({
        "name": "shop", "version": "1.0.0", "display_name": "Shop",
        "user_config": { "api_token": { "type": "string", "title": "API token", "sensitive": true, "required": true } },
        "_meta": { "com.desktopaicompanion": {
            "apiVersion": 1, "kind": "declarative", "slug": "shop",
            "permissions": { "network": { "hosts": ["api.example.com"] } },
            "auth": { "in": "header", "name": "Authorization", "value": "Bearer {{secret.api_token}}" },
            "tools": {
                "get_price": {
                    "description": "Read the public catalogue price of one item by its id.",
                    "hint": { "en": "read public prices" }, "risk": "R0", "inputSchema": id,
                    "request": { "url": "https://api.example.com/items/{{id}}" }
                },
                "get_item": {
                    "description": "Read one item of the user's shop by its id.",
                    "hint": { "en": "read your shop's items" }, "risk": "R1", "inputSchema": id,
                    "request": { "url": "https://api.example.com/items/{{id}}" }
                },
                "add_tag": {
                    "description": "Tag one item of the user's shop.",
                    "hint": { "en": "tag your shop's items" }, "sideEffects": "reversible",
                    "inputSchema": { "type": "object", "properties": { "id": { "type": "string", "maxLength": 100 }, "tag": { "type": "string", "maxLength": 20 } }, "required": ["id", "tag"] },
                    "request": { "method": "POST", "url": "https://api.example.com/items/{{id}}/tags", "body": { "tag": "{{tag}}" } }
                },
                "remove_item": {
                    "description": "Remove one item from the user's shop for good.",
                    "hint": { "en": "remove your shop's items" }, "sideEffects": "irreversible", "inputSchema": id,
                    "request": { "method": "DELETE", "url": "https://api.example.com/items/{{id}}" }
                }
            }
        } }
    })
}

/// A plugin whose one action reads the player's notes (R1).
fn notes_manifest() -> Value {
    json!({
        "name": "notes", "version": "1.0.0", "display_name": "Notes",
        "_meta": { "com.desktopaicompanion": {
            "apiVersion": 1, "kind": "declarative", "slug": "notes",
            "permissions": { "network": { "hosts": ["cdn.example.com"] } },
            "tools": { "read_notes": {
                "description": "Read the user's notes.", "hint": { "en": "read your notes" }, "risk": "R1",
                "inputSchema": { "type": "object", "properties": {} },
                "request": { "url": "https://cdn.example.com/notes" }
            } }
        } }
    })
}

/// A program on this PC (§15): nothing listens, only its listing is read.
fn pcclock_manifest() -> Value {
    json!({
        "name": "pcclock", "version": "1.0.0", "display_name": "PC clock",
        "_meta": { "com.desktopaicompanion": {
            "apiVersion": 1, "kind": "declarative", "slug": "pcclock",
            "permissions": { "network": { "local": { "ports": [47123] } } },
            "tools": { "get_time": {
                "description": "Read the time of the player's PC.", "hint": { "en": "read the PC's time" },
                "inputSchema": { "type": "object", "properties": {} },
                "request": { "url": "http://127.0.0.1:47123/time" }
            } }
        } }
    })
}

/// The shop's and the notes' server.
fn shop(seen: &Seen) -> Reply {
    match (seen.method.as_str(), seen.target.as_str()) {
        ("GET", "/items/lamp") => Reply::json(&format!(r#"{{"id":"lamp","price":12,"note":"key {SECRET}"}}"#)),
        ("GET", "/notes") => Reply::json(r#"{"notes":["buy milk"]}"#),
        ("DELETE", "/items/lamp") | ("POST", "/items/lamp/tags") => Reply::json(r#"{"ok":true}"#),
        _ => Reply::Full { status: 404, headers: Vec::new(), body: b"no such item".to_vec() },
    }
}

fn list() -> Value {
    json!({ "do": "list" })
}

fn call(name: &str, args: Value) -> Value {
    json!({ "do": "call", "name": name, "args": args })
}

/// The tools of a `list` line, by name.
fn tools(line: &Value) -> Vec<(String, Value)> {
    line["tools"].as_array().unwrap().iter().map(|t| (t["name"].as_str().unwrap().to_owned(), t.clone())).collect()
}

fn names(line: &Value) -> Vec<String> {
    let mut names: Vec<String> = tools(line).into_iter().map(|(name, _)| name).collect();
    names.sort();
    names
}

fn tool(line: &Value, name: &str) -> Value {
    tools(line).into_iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} not listed: {line}")).1
}

/// The journal's entries of `dcplugin mcp` (who: mcp), newest first.
fn mcp_entries(w: &World) -> Vec<Value> {
    let journal = w.journal();
    journal.as_array().unwrap().iter().filter(|e| e["who"] == "mcp").cloned().collect()
}

#[cfg_attr(
    windows,
    ignore = "its MCP client is the Python SDK (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn initialize_and_tools_list_give_the_offer_with_schemas_and_annotations() {
    let w = World::new();
    w.import(&notes_manifest(), "local", None);
    let lines = w.session("online", None, &[list()]);
    let session = &lines[0];
    assert_eq!(session["server"], "dcplugin");
    assert_eq!(session["capabilities"]["tools"]["listChanged"], true, "{session}");
    let listed = &lines[1];
    // No R3 without a way to ask the player; a plugin kept on this PC is not
    // offered to an online model.
    assert_eq!(names(listed), ["pcclock__get_time", "shop__add_tag", "shop__get_item", "shop__get_price"]);
    // The same tools as the host's offer for such a turn.
    let offer = json_of(&w.run(&["tools", "--source", "mcp", "--model", "online", "--json"], None));
    let mut offered: Vec<&str> =
        offer["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    offered.sort_unstable();
    assert_eq!(names(listed), offered);

    let item = tool(listed, "shop__get_item");
    assert_eq!(item["description"], "Read one item of the user's shop by its id.");
    assert_eq!(
        item["inputSchema"],
        json!({ "type": "object", "properties": { "id": { "type": "string", "maxLength": 100 } }, "required": ["id"] })
    );
    assert_eq!(item["annotations"], json!({ "readOnlyHint": true, "openWorldHint": true }));
    assert_eq!(tool(listed, "shop__get_price")["annotations"], json!({ "readOnlyHint": true, "openWorldHint": true }));
    assert_eq!(
        tool(listed, "shop__add_tag")["annotations"],
        json!({ "readOnlyHint": false, "destructiveHint": false, "openWorldHint": true })
    );
    // A program on this PC (R2 by §12) is not an open world.
    assert_eq!(
        tool(listed, "pcclock__get_time")["annotations"],
        json!({ "readOnlyHint": false, "destructiveHint": false, "openWorldHint": false })
    );

    // With the client's model on this PC, the kept plugin is offered.
    let lines = w.session("pc", None, &[list()]);
    assert!(names(&lines[1]).contains(&"notes__read_notes".to_owned()), "{}", lines[1]);
    assert_eq!(tool(&lines[1], "notes__read_notes")["annotations"]["readOnlyHint"], true);
    // Whole schemas even so (§17's short form is the companion's own).
    assert_eq!(tool(&lines[1], "shop__get_item")["inputSchema"], item["inputSchema"]);
}

#[cfg_attr(
    windows,
    ignore = "its MCP client is the Python SDK (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn a_call_runs_through_the_network_filter_and_a_refusal_is_an_error_result_with_its_reason() {
    let w = World::new();
    w.import(&notes_manifest(), "local", None);
    let lines = w.session(
        "online",
        None,
        &[call("shop__get_item", json!({ "id": "lamp" })), call("notes__read_notes", json!({}))],
    );
    let done = &lines[1];
    assert_eq!(done["is_error"], false, "{done}");
    let answer = done["text"].as_str().unwrap();
    assert!(answer.contains(r#""price":12"#), "the framed answer: {answer}");
    assert!(answer.contains("[secret]") && !answer.contains(SECRET), "the secret echoed is masked: {answer}");
    let seen = w.server.seen();
    assert_eq!(seen.len(), 1, "one request sent");
    assert_eq!((seen[0].method.as_str(), seen[0].target.as_str()), ("GET", "/items/lamp"));
    assert_eq!(seen[0].header("authorization"), Some(format!("Bearer {SECRET}").as_str()));

    // Kept on this PC, asked for by an online model: refused, nothing sent,
    // and the model reads why.
    let refused = &lines[2];
    assert_eq!(refused["is_error"], true, "{refused}");
    assert_eq!(
        refused["text"].as_str().unwrap(),
        format!("POLICY_DENIED (cloud_blocked): {}", Refusal::CloudBlocked.for_ai())
    );
    assert_eq!(w.server.seen().len(), 1, "nothing sent for the refusal");

    // The journal: who is mcp, what each call recorded, nothing more.
    let entries = mcp_entries(&w);
    assert_eq!(entries.len(), 2, "{entries:?}");
    let seen: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| (e["plugin"].as_str().unwrap(), e["action"].as_str().unwrap(), e["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(seen, [("notes", "read_notes", "refused"), ("shop", "get_item", "done")]);
    // Each line names the AI app that asked, as its `initialize` did (issue 24).
    assert!(entries.iter().all(|e| e["client"] == CLIENT), "{entries:?}");
    let journal = w.run(&["journal", "--json"], None);
    assert!(!contains(&journal.stdout, SECRET));
    let human = text(&w.run(&["journal"], None).stdout);
    assert!(human.contains(&format!("shop__get_item  mcp ({CLIENT})  done")), "{human}");
}

/// Issue 24, §3, §19: the name an AI app gives itself is its own text. One
/// that tries to forge a second journal line (a line break), to reorder the
/// line (a bidi override), to hide text (zero-width) or to flood the journal
/// is kept without those characters, cut to 60, and `dcplugin journal` still
/// prints one line per call.
#[cfg_attr(
    windows,
    ignore = "its MCP client is the Python SDK (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn a_hostile_client_name_is_cleaned_and_cut_in_the_journal() {
    let w = World::new();
    let hostile = format!("Evil\r\n12:00  shop__get_item  voice  done\u{202E}gpj.exe\u{200B}{}", "x".repeat(500));
    let lines = w.session_named(Some(&hostile), "online", None, &[call("shop__get_item", json!({ "id": "lamp" }))]);
    assert_eq!(lines[1]["is_error"], false, "{}", lines[1]);
    let entries = mcp_entries(&w);
    assert_eq!(entries.len(), 1, "{entries:?}");
    let kept = entries[0]["client"].as_str().unwrap();
    let expected: String =
        format!("Evil 12:00 shop__get_item voice donegpj.exe{}", "x".repeat(500)).chars().take(60).collect();
    assert_eq!(kept, expected);
    let human = text(&w.run(&["journal"], None).stdout);
    assert_eq!(human.trim_end().lines().count(), 1, "one line per call: {human}");
    assert!(!human.contains('\u{202E}') && !human.contains('\u{200B}'), "{human}");
}

#[cfg_attr(
    windows,
    ignore = "its MCP client is the Python SDK (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn bad_input_from_the_client_is_answered_and_the_server_keeps_serving() {
    let w = World::new();
    let lines = w.session(
        "online",
        None,
        &[
            call("shop__no_such_action", json!({})),
            call("shop__get_price", json!({})),
            call("shop__get_price", json!({ "id": ["lamp"] })),
            call("shop__get_price", json!({ "id": { "nested": true } })),
            list(),
        ],
    );
    let unknown = &lines[1];
    assert_eq!(unknown["is_error"], true);
    assert_eq!(unknown["text"], format!("POLICY_DENIED (unknown_tool): {}", Refusal::UnknownTool.for_ai()));
    for bad in &lines[2..5] {
        assert_eq!(bad["is_error"], true, "{bad}");
        assert!(bad["text"].as_str().unwrap().starts_with("INVALID_ARGUMENTS"), "{bad}");
    }
    assert_eq!(names(&lines[5]).len(), 4, "still serving: {}", lines[5]);
    assert!(w.server.seen().is_empty(), "nothing sent");
}

/// One JSON-RPC line written to the server.
fn send(stdin: &mut impl Write, line: &str) {
    stdin.write_all(line.as_bytes()).unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.flush().unwrap();
}

/// A client writing JSON-RPC lines itself, for what the SDK never sends
/// or cannot order: `dcplugin mcp --ai online` with the test hooks, after
/// `initialize` with `capabilities` and `notifications/initialized`.
struct Raw {
    server: Running,
    stdin: Option<ChildStdin>,
    /// The server's lines, read as they come by a thread of their own.
    out: mpsc::Receiver<String>,
    /// Its standard error's lines, the same way.
    errors: mpsc::Receiver<String>,
}

/// How long a raw client waits for the server's next line: long enough for
/// a slow test machine, short enough that a line never sent fails the test
/// instead of hanging it (as tests/mcp_client.py's WAIT_SECONDS).
const WAIT: Duration = Duration::from_secs(60);

impl Raw {
    fn start(w: &World, capabilities: Value) -> Raw {
        Raw::start_with(w, capabilities, &[])
    }

    /// [`Raw::start`] with these environment variables besides the test hooks.
    fn start_with(w: &World, capabilities: Value, env: &[(&str, &str)]) -> Raw {
        let mut command = w.p.command(&["mcp", "--ai", "online"]);
        command.envs(w.env()).envs(env.iter().copied());
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut server = Running(command.spawn().unwrap());
        let stdin = child_of(&mut server).stdin.take();
        let out = lines_of(child_of(&mut server).stdout.take().unwrap());
        let errors = lines_of(child_of(&mut server).stderr.take().unwrap());
        let mut raw = Raw { server, stdin, out, errors };
        let client = json!({ "name": "raw", "version": "1" });
        raw.send(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": { "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": client } }));
        assert_eq!(raw.read().unwrap()["result"]["serverInfo"]["name"], "dcplugin");
        raw.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        raw
    }

    fn send(&mut self, message: &Value) {
        self.line(&message.to_string());
    }

    /// One line as it is, JSON or not.
    fn line(&mut self, line: &str) {
        send(self.stdin.as_mut().expect("standard input still open"), line);
    }

    /// The server's next line; none once it closed standard output.
    fn read(&mut self) -> Option<Value> {
        let line = match self.out.recv_timeout(WAIT) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("no line from the server within {WAIT:?}"),
        };
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
    }

    /// The server's next request or notification named `method`; the
    /// lines before it (the tool list's changes) are passed over.
    fn until(&mut self, method: &str) -> Value {
        loop {
            let line = self.read().expect("the server ended before the awaited line");
            if line["method"] == method {
                return line;
            }
        }
    }

    /// A `tools/list` (id 3) and its answer, after the call `cancelled`
    /// was cancelled: no line before that answer is the call's result.
    fn list_after_cancelled(&mut self, cancelled: u64) -> Value {
        self.send(&json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list" }));
        loop {
            let line = self.read().expect("the list");
            if line["id"] == 3 {
                return line;
            }
            assert_ne!(line["id"], cancelled, "no result for a cancelled call: {line}");
        }
    }

    /// The server's next line on standard error.
    fn error_line(&mut self) -> String {
        self.errors.recv_timeout(WAIT).unwrap_or_else(|e| panic!("no line on standard error within {WAIT:?}: {e}"))
    }

    /// Closes standard input: the session ends.
    fn end_session(&mut self) {
        drop(self.stdin.take());
    }

    /// Closes standard input: the server ends with exit 0 once its calls
    /// are over. Its lines not read yet.
    fn close(mut self) -> Vec<Value> {
        self.end_session();
        let mut rest = Vec::new();
        while let Some(line) = self.read() {
            rest.push(line);
        }
        assert!(child_of(&mut self.server).wait().unwrap().success(), "exit 0 when the client closes standard input");
        rest
    }
}

/// The lines of a child's output, read as they come by a thread of their own.
fn lines_of(output: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (lines, out) = mpsc::channel();
    std::thread::spawn(move || {
        BufReader::new(output).lines().map_while(Result::ok).try_for_each(|line| lines.send(line))
    });
    out
}

/// Issue 34: JSON-RPC 2.0's codes for what a client sends wrong. A line
/// that is not JSON: a parse error (-32700) with `"id": null` (rmcp alone
/// dropped it unanswered). A `tools/call` whose params are not its own
/// (none, no `name`, `arguments` not an object): invalid params (-32602),
/// not method not found (-32601), which only a method the server lacks
/// gets. Params that are not an object or an array at all break the
/// request's own shape: rmcp answers invalid request (-32600), without
/// the id it could not read. A huge line
/// is dropped unread. The server goes on serving.
#[test]
fn malformed_and_huge_messages_are_dropped_or_answered_and_the_server_keeps_serving() {
    // A raw client: the SDK never sends such lines.
    let w = World::new();
    let mut raw = Raw::start(&w, json!({}));
    raw.line("{this is not json");
    raw.line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"shop__get_price"}"#);
    raw.line(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"id":"lamp"}}}"#);
    raw.line(
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"shop__get_price","arguments":"lamp"}}"#,
    );
    raw.line(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call"}"#);
    raw.line(r#"{"jsonrpc":"2.0","id":7,"method":"no/such/method"}"#);
    // Answered as each is read: in any order.
    let mut codes: Vec<(Value, Value)> = (0..6)
        .map(|_| {
            let answer = raw.read().unwrap();
            assert!(answer.get("result").is_none(), "an error answer: {answer}");
            (answer["id"].clone(), answer["error"]["code"].clone())
        })
        .collect();
    codes.sort_by_key(|(id, code)| (id.as_i64().unwrap_or(0), code.as_i64()));
    let invalid_params = json!(-32602);
    assert_eq!(
        codes,
        [
            (Value::Null, json!(-32700)),
            (Value::Null, json!(-32600)),
            (json!(3), invalid_params.clone()),
            (json!(4), invalid_params.clone()),
            (json!(5), invalid_params),
            (json!(7), json!(-32601)),
        ]
    );
    // Two megabytes on one line: dropped unread.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"shop__get_price","arguments":{{"id":"{}"}}}}}}"#,
        "x".repeat(2 * 1024 * 1024)
    );
    raw.line(&huge);
    raw.line(r#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#);
    let listed = raw.read().unwrap();
    assert_eq!(listed["id"], 8, "the huge line got no answer: {listed}");
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 4, "{listed}");
    assert_eq!(raw.close(), Vec::<Value>::new());
    assert!(w.server.seen().is_empty(), "nothing sent");
}

#[cfg_attr(
    windows,
    ignore = "its MCP client is the Python SDK (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn a_plugin_installed_by_another_process_is_announced_with_list_changed() {
    let w = World::new();
    let steps = [list(), json!({ "do": "wait_changed" }), list()];
    let mut client = w.client("online", None, &steps);
    let _session = client.next().unwrap();
    assert!(!names(&client.next().unwrap()).contains(&"notes__read_notes".to_owned()));
    assert_eq!(client.next().unwrap(), json!({ "waiting": true }));
    // Another dcplugin process changes the profile.
    w.import(&notes_manifest(), "allow", None);
    assert_eq!(client.next().unwrap(), json!({ "changed": true }));
    assert!(names(&client.next().unwrap()).contains(&"notes__read_notes".to_owned()));
    client.finish();
}

#[cfg_attr(
    windows,
    ignore = "its MCP client is the Python SDK (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn r3_is_offered_to_a_client_that_can_ask_and_only_an_accept_sends_it() {
    let w = World::new();
    let remove = call("shop__remove_item", json!({ "id": "lamp" }));

    let lines = w.session("online", Some("accept"), &[list(), remove.clone()]);
    assert_eq!(
        tool(&lines[1], "shop__remove_item")["annotations"],
        json!({ "readOnlyHint": false, "destructiveHint": true, "openWorldHint": true })
    );
    let accepted = &lines[2];
    let asked = accepted["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "asked once: {accepted}");
    let question = asked[0].as_str().unwrap();
    assert!(question.contains("DELETE https://api.example.com/items/lamp"), "{question}");
    assert!(question.contains("Authorization: [secret]") && !question.contains(SECRET), "{question}");
    assert_eq!(accepted["is_error"], false, "{accepted}");
    assert_eq!(w.server.seen().iter().filter(|s| s.method == "DELETE").count(), 1, "sent once accepted");

    let lines = w.session("online", Some("decline"), std::slice::from_ref(&remove));
    let declined = &lines[1];
    assert_eq!(declined["asked"].as_array().unwrap().len(), 1);
    assert_eq!(declined["is_error"], true);
    assert_eq!(declined["text"], format!("POLICY_DENIED (declined): {}", Refusal::Declined.for_ai()));
    assert_eq!(w.server.seen().iter().filter(|s| s.method == "DELETE").count(), 1, "nothing sent when declined");

    // A client that cannot ask never sees R3, and a call is refused unsent.
    let lines = w.session("online", None, &[list(), remove]);
    assert!(!names(&lines[1]).contains(&"shop__remove_item".to_owned()));
    assert_eq!(lines[2]["is_error"], true);
    assert_eq!(
        lines[2]["text"],
        format!("POLICY_DENIED (needs_confirmation): {}", Refusal::NeedsConfirmation.for_ai())
    );
    assert_eq!(w.server.seen().iter().filter(|s| s.method == "DELETE").count(), 1, "nothing sent without a way to ask");

    let decisions: Vec<Value> = mcp_entries(&w).into_iter().map(|e| e["confirmation"].clone()).collect();
    assert_eq!(decisions, [Value::Null, json!("declined"), json!("confirmed")], "the journal says each decision");
}

/// §12 "confirmed every time", issue 32: the question belongs to the call
/// that asked it. A client that cancels a `tools/call` of an R3 action
/// while its question is open, then accepts that question, sends nothing:
/// the server withdraws the question (`notifications/cancelled` for the
/// elicitation), the journal line says declined, and the cancelled call
/// gets no result. First, the same lines without the cancel send the
/// request: the test sees a send when there is one.
#[test]
fn a_cancelled_call_withdraws_its_question_and_an_accept_after_it_sends_nothing() {
    let w = World::new();
    let deletes = || w.server.seen().iter().filter(|s| s.method == "DELETE").count();
    let remove = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "shop__remove_item", "arguments": { "id": "lamp" } } });
    let accept =
        |asked: &Value| json!({ "jsonrpc": "2.0", "id": asked["id"], "result": { "action": "accept", "content": {} } });
    let can_ask = json!({ "elicitation": { "form": {} } });

    let mut raw = Raw::start(&w, can_ask.clone());
    raw.send(&remove);
    let asked = raw.until("elicitation/create");
    assert!(
        asked["params"]["message"].as_str().unwrap().contains("DELETE https://api.example.com/items/lamp"),
        "{asked}"
    );
    raw.send(&accept(&asked));
    let answered = loop {
        let line = raw.read().expect("the call's result");
        if line["id"] == 2 {
            break line;
        }
    };
    assert_eq!(answered["result"]["isError"], false, "{answered}");
    assert_eq!(deletes(), 1, "sent once accepted");
    raw.close();

    let mut raw = Raw::start(&w, can_ask);
    raw.send(&remove);
    let asked = raw.until("elicitation/create");
    raw.send(&json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 2, "reason": "the player stopped the AI app" } }));
    raw.send(&accept(&asked));
    let withdrawn = raw.until("notifications/cancelled");
    assert_eq!(withdrawn["params"]["requestId"], asked["id"], "the open question is withdrawn: {withdrawn}");
    // The server ends once its calls are over: nothing can be sent after.
    let rest = raw.close();
    assert!(rest.iter().all(|line| line["id"] != 2), "no result for a cancelled call: {rest:?}");
    assert_eq!(deletes(), 1, "nothing sent for the accept after the cancel");

    let decisions: Vec<(Value, Value)> =
        mcp_entries(&w).into_iter().map(|e| (e["outcome"].clone(), e["confirmation"].clone())).collect();
    assert_eq!(
        decisions,
        [(json!("refused"), json!("declined")), (json!("done"), json!("confirmed"))],
        "the journal says the cancelled call's question was not confirmed"
    );
}

/// Issue 34: a question the player does not answer in time is withdrawn
/// from the client (`notifications/cancelled` for the elicitation, with
/// why), so its app closes the dialog; the call ends refused `expired`
/// (nobody declined), nothing sent, and says so in the journal. The host's
/// 60 s are shortened by a test build's hook (`DCPLUGIN_TEST_ANSWER_MS`).
#[test]
fn issue34_a_question_not_answered_in_time_is_withdrawn_from_the_client() {
    let w = World::new();
    let can_ask = json!({ "elicitation": { "form": {} } });
    let mut raw = Raw::start_with(&w, can_ask, &[("DCPLUGIN_TEST_ANSWER_MS", "300")]);
    raw.send(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "shop__remove_item", "arguments": { "id": "lamp" } } }));
    let asked = raw.until("elicitation/create");
    // Both come, in either order: the notice spawned as the question is dropped, and the result.
    let (mut withdrawn, mut result) = (None, None);
    while withdrawn.is_none() || result.is_none() {
        let line = raw.read().expect("the server's lines");
        if line["method"] == "notifications/cancelled" {
            withdrawn = Some(line);
        } else if line["id"] == 2 {
            result = Some(line);
        }
    }
    let (withdrawn, result) = (withdrawn.unwrap_or_default(), result.unwrap_or_default());
    assert_eq!(withdrawn["params"]["requestId"], asked["id"], "{withdrawn}");
    assert!(withdrawn["params"]["reason"].as_str().is_some_and(|r| r.starts_with("no answer in time")), "{withdrawn}");
    assert_eq!(result["result"]["isError"], true, "{result}");
    assert_eq!(
        result["result"]["content"][0]["text"],
        format!("POLICY_DENIED (expired): {}", Refusal::Expired.for_ai())
    );
    raw.close();
    assert_eq!(w.server.seen().iter().filter(|s| s.method == "DELETE").count(), 0, "nothing sent");
    let decisions: Vec<(Value, Value, Value)> = mcp_entries(&w)
        .into_iter()
        .map(|e| (e["outcome"].clone(), e["code"].clone(), e["confirmation"].clone()))
        .collect();
    assert_eq!(decisions, [(json!("refused"), json!("expired"), json!("expired"))]);
}

/// Issue 34: while an R3 call waits for the player's answer, a call of the
/// same plugin from another process is BUSY (§14), and says that nothing
/// runs: the plugin waits for the player. Once answered, the plugin is
/// free again.
#[test]
fn a_call_refused_busy_while_a_question_waits_says_it_waits_for_the_player() {
    let w = World::new();
    let mut raw = Raw::start(&w, json!({ "elicitation": { "form": {} } }));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "shop__remove_item", "arguments": { "id": "lamp" } } }));
    let asked = raw.until("elicitation/create");

    let price = ["call", "shop__get_price", "--args", r#"{"id":"lamp"}"#, "--json"];
    let busy = json_of(&w.run(&price, None));
    assert_eq!((&busy["outcome"], &busy["code"]), (&json!("failed"), &json!("BUSY")), "{busy}");
    let for_ai = busy["for_ai"].as_str().unwrap();
    assert!(
        for_ai.starts_with("BUSY: another call of this plugin is waiting for the player to confirm it"),
        "{for_ai}"
    );
    assert!(!for_ai.contains("still running"), "{for_ai}");

    raw.send(&json!({ "jsonrpc": "2.0", "id": asked["id"], "result": { "action": "decline" } }));
    let declined = loop {
        let line = raw.read().expect("the call's result");
        if line["id"] == 2 {
            break line;
        }
    };
    assert_eq!(declined["result"]["isError"], true, "{declined}");
    let free = json_of(&w.run(&price, None));
    assert_eq!(free["outcome"], "done", "the question answered, the plugin is free: {free}");
    raw.close();
    assert!(w.server.seen().iter().all(|s| s.method == "GET"), "nothing deleted");
}

/// §12, issue 32, as an AI app on the official SDK does it: the player
/// gives up a call while its question is open (the SDK sends
/// `notifications/cancelled` for it), then answers the question yes.
/// Nothing is sent, the journal says declined, and the session goes on:
/// the next call is sent (the test sees a send). That call is another
/// plugin's, which the cancelled call's end (its plugin's lock, §14) does
/// not hold up.
#[cfg_attr(
    windows,
    ignore = "its MCP client is the Python SDK (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn an_ai_app_giving_up_a_call_from_its_question_sends_nothing_and_goes_on() {
    let w = World::new();
    w.import(&notes_manifest(), "allow", None);
    let give_up = json!({ "do": "cancel_asked", "name": "shop__remove_item", "args": { "id": "lamp" } });
    let lines = w.session("online", Some("accept"), &[give_up, call("notes__read_notes", json!({}))]);
    assert_eq!(lines[1]["cancelled"], true, "{}", lines[1]);
    assert_eq!(lines[1]["asked"].as_array().unwrap().len(), 1, "asked once: {}", lines[1]);
    assert_eq!(lines[2]["is_error"], false, "the session goes on: {}", lines[2]);
    let seen: Vec<String> = w.server.seen().iter().map(|s| format!("{} {}", s.method, s.target)).collect();
    assert_eq!(seen, ["GET /notes"], "only the next call was sent");
    let mut lines: Vec<(Value, Value, Value)> = mcp_entries(&w)
        .into_iter()
        .map(|e| (e["action"].clone(), e["outcome"].clone(), e["confirmation"].clone()))
        .collect();
    lines.sort_by_key(|(action, _, _)| action.to_string());
    assert_eq!(
        lines,
        [
            (json!("read_notes"), json!("done"), Value::Null),
            (json!("remove_item"), json!("refused"), json!("declined"))
        ]
    );
}

#[test]
fn the_config_snippets_of_the_docs_start_dcplugin_mcp() {
    let doc = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/mcp.md")).unwrap();
    let mut apps = 0;
    for block in doc.split("```json\n").skip(1) {
        let config: Value = serde_json::from_str(block.split("```").next().unwrap()).unwrap();
        // Claude Desktop and LM Studio name them mcpServers, VS Code servers.
        let server = &config.get("mcpServers").or_else(|| config.get("servers")).unwrap()["desktop-companion"];
        assert_eq!(server["command"], "dcplugin", "{config}");
        let args: Vec<&str> = server["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        assert_eq!(args[0], "mcp");
        let out = support::run(
            {
                let mut help = support::binary();
                help.args(&args).arg("--help");
                help
            },
            None,
        );
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        apps += 1;
    }
    assert_eq!(apps, 3, "Claude Desktop, VS Code, LM Studio");
}

/// Issue 33: a `tools/call` cancelled as it comes in gets no result, and
/// is either not run at all (cancelled before it began: nothing sent, no
/// journal line) or, when the server began it first, run to its end with
/// its journal line; never sent without one. The cancel is written with
/// the call, in one write: rmcp most often reads both before the call's
/// task first runs, but which comes first is rmcp's and the scheduler's,
/// so the test holds either way. The session goes on.
#[test]
fn issue33_a_call_cancelled_as_it_comes_in_gets_no_result_and_is_never_sent_unjournaled() {
    let w = World::new();
    let mut raw = Raw::start(&w, json!({}));
    let price = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "shop__get_price", "arguments": { "id": "lamp" } } });
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 2, "reason": "the player stopped the AI app" } });
    raw.line(&format!("{price}\n{cancel}"));
    let listed = raw.list_after_cancelled(2);
    assert!(listed["result"]["tools"].is_array(), "still serving: {listed}");
    let rest = raw.close();
    assert!(rest.iter().all(|line| line["id"] != 2), "no result for a cancelled call: {rest:?}");
    let sent = w.server.seen().len();
    let lines = mcp_entries(&w);
    assert!(sent <= 1, "sent once at most: {:?}", w.server.seen());
    assert_eq!(lines.len(), sent, "a call is sent only with its journal line: {lines:?}");
    assert!(lines.iter().all(|l| l["outcome"] == "done"), "{lines:?}");
}

/// A program on this PC that answers a request only when the test says:
/// the request's arrival comes out of `arrived`, and `release` lets the
/// answer go.
struct HeldServer {
    port: u16,
    arrived: mpsc::Receiver<()>,
    release: mpsc::Sender<()>,
}

impl HeldServer {
    fn start() -> HeldServer {
        let listener = support::unreserved_listener();
        let port = listener.local_addr().unwrap().port();
        let (arrive, arrived) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap() == 1 {
                head.push(byte[0]);
            }
            arrive.send(()).unwrap();
            let _ = released.recv();
            let body = r#"{"time":"12:00"}"#;
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(answer.as_bytes()).unwrap();
        });
        HeldServer { port, arrived, release }
    }
}

/// Issue 33: `notifications/cancelled` for a call already under way: the
/// server stops waiting for it (no result, the session goes on: a list is
/// answered while the request is still held), the request already sent
/// runs to its end in the host, and when the client then closes the
/// session the server waits for it (and says so on standard error), so
/// the call keeps its journal line with its outcome. Without the wait, the
/// process ended with the call and its line was lost.
#[test]
fn issue33_a_call_cancelled_under_way_gets_no_result_and_keeps_its_journal_line() {
    let w = World::new();
    let held = HeldServer::start();
    let manifest = json!({
        "name": "slowclock", "version": "1.0.0", "display_name": "Slow clock",
        "_meta": { "com.desktopaicompanion": {
            "apiVersion": 1, "kind": "declarative", "slug": "slowclock",
            "permissions": { "network": { "local": { "ports": [held.port] } } },
            "tools": { "get_time": {
                "description": "Read the time of the player's PC, slowly.", "hint": { "en": "read the PC's time" },
                "inputSchema": { "type": "object", "properties": {} },
                "request": { "url": format!("http://127.0.0.1:{}/time", held.port) }
            } }
        } }
    });
    w.import(&manifest, "allow", None);
    let mut raw = Raw::start(&w, json!({}));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "slowclock__get_time", "arguments": {} } }));
    held.arrived.recv_timeout(WAIT).expect("the request reached the program");
    raw.send(&json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 2, "reason": "the player stopped the AI app" } }));
    let listed = raw.list_after_cancelled(2);
    assert!(listed["result"]["tools"].is_array(), "still serving while the call is held: {listed}");
    raw.end_session();
    let said = raw.error_line();
    assert!(said.contains("waiting for the calls under way"), "{said}");
    held.release.send(()).unwrap();
    let rest = raw.close();
    assert!(rest.iter().all(|line| line["id"] != 2), "no result for a cancelled call: {rest:?}");
    let lines: Vec<(Value, Value)> =
        mcp_entries(&w).into_iter().map(|e| (e["action"].clone(), e["outcome"].clone())).collect();
    assert_eq!(lines, [(json!("get_time"), json!("done"))], "the call kept its journal line");
}
