//! Options' Test button (§18) through the host's API: which action it
//! calls, with which arguments, and what it reports for the window to word,
//! without reaching the internet (the courtier answers before any request,
//! there is nothing to call, or the plugin's server is a program on this PC
//! at 127.0.0.1).

mod common;

use common::*;
use dcp_host::{CloudChoice, InstallOptions, JournalQuery, JournalValue, PluginTest, Source, SwitchesPatch};
use serde_json::{json, Value};
use std::io::Write;
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

/// A plugin of api.example.org with these tools (name, required arguments, risk).
fn manifest(tools: &[(&str, &[&str], &str)]) -> Value {
    manifest_as("boards", tools)
}

/// [`manifest`] with this slug.
fn manifest_as(slug: &str, tools: &[(&str, &[&str], &str)]) -> Value {
    let tools: serde_json::Map<String, Value> = tools
        .iter()
        .map(|(name, required, risk)| {
            let properties: serde_json::Map<String, Value> = required
                .iter()
                .map(|a| ((*a).to_owned(), json!({"type": "string", "description": "A word.", "maxLength": 20})))
                .collect();
            let tool = json!({
                "description": "Read the list of boards of the user's account on the example service.",
                "risk": risk,
                "hint": {"en": "read your boards"},
                "inputSchema": {"type": "object", "properties": properties, "required": required},
                "request": {"method": "GET", "url": "https://api.example.org/v1/boards"},
                "response": {"pick": ["name"]}
            });
            ((*name).to_owned(), tool)
        })
        .collect();
    json!({
        "name": format!("{slug}-example"),
        "version": "1.0.0",
        "display_name": "Boards",
        "description": "Reads the boards of an example service.",
        "author": {"name": "Test"},
        "_meta": {"com.desktopaicompanion": {
            "apiVersion": 1,
            "kind": "declarative",
            "slug": slug,
            "permissions": {"network": {"hosts": ["api.example.org"]}},
            "tools": tools
        }}
    })
}

async fn tools_enabled(host: &dcp_host::Host, on: bool) {
    host.set_switches(SwitchesPatch { tools_enabled: Some(on), ..Default::default() }).await.expect("switch");
}

/// The first action that is on, reads only and needs no argument is the one
/// called; a refusal comes back with the courtier's reason in plain words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s18_test_calls_the_first_harmless_action_and_says_why_it_was_refused() {
    let f = fixture();
    let tools: &[(&str, &[&str], &str)] =
        &[("find", &["word"], "R0"), ("archive", &[], "R2"), ("list_off", &[], "R0"), ("list", &[], "R1")];
    // An R1 action asks the online-AI question (§13); the test runs with an AI on this PC either way.
    let options = InstallOptions { cloud: Some(CloudChoice::Local), ..Default::default() };
    install_manifest(&f.host, f.dir.path(), "boards", &manifest(tools), options).await;
    f.host.set_action_enabled("boards", "list_off", false).await.expect("action off");
    // Enable tools off: the courtier refuses before any request leaves the PC.
    tools_enabled(&f.host, false).await;

    let test = f.host.test_plugin("boards").await.expect("tested");
    assert_eq!(
        test,
        PluginTest {
            action: Some("boards__list".into()),
            ok: false,
            code: Some(dcp_host::SpecCode::Refusal(dcp_host::Refusal::ToolsOff)),
            family: Some(dcp_format::codes::ToolFamily::Refused),
            needs: None,
        }
    );
    let journal = f.host.journal(dcp_host::JournalQuery { limit: 5, ..Default::default() }).await.expect("journal");
    assert_eq!((journal[0].action.as_str(), journal[0].outcome.as_str()), ("list", "refused"), "journaled as a call");
    // Issue 23: a test reads as a test, never as the player's keyboard, and is read back typed.
    assert_eq!(journal[0].who, dcp_host::JournalValue::Known(dcp_host::Source::Test));
}

/// Issue 23: a read action whose required argument has no value in its
/// schema is not called with a made-up one: Test says what it needs. A
/// plugin with no action that only reads has nothing to test. Nothing is
/// called, nothing journaled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s18_test_says_what_a_read_action_needs_and_when_there_is_nothing_to_test() {
    let f = fixture();
    let tools: &[(&str, &[&str], &str)] = &[("find", &["word", "lang"], "R0"), ("archive", &[], "R2")];
    install_manifest(&f.host, f.dir.path(), "boards", &manifest(tools), Default::default()).await;
    let test = f.host.test_plugin("boards").await.expect("tested");
    let needs = Some(vec!["word".to_owned(), "lang".to_owned()]);
    assert_eq!(test, PluginTest { action: Some("boards__find".into()), ok: false, code: None, family: None, needs });

    let tools: &[(&str, &[&str], &str)] = &[("archive", &[], "R2")];
    install_manifest(&f.host, f.dir.path(), "archiver", &manifest_as("archiver", tools), Default::default()).await;
    let test = f.host.test_plugin("archiver").await.expect("tested");
    assert_eq!(
        test,
        PluginTest { action: None, ok: false, code: None, family: None, needs: None },
        "the window says so"
    );
    assert!(f.host.journal(JournalQuery { limit: 5, ..Default::default() }).await.expect("journal").is_empty());
}

/// Issue 23: the exchange-rates example (§2, §20 A) converts an amount the
/// player gives: Test names the action and the three values it needs
/// rather than refusing, and sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s18_s20_test_of_the_exchange_rates_example_says_what_convert_needs() {
    let f = fixture();
    install_manifest(&f.host, f.dir.path(), "fx", &example("exchange-rates"), Default::default()).await;
    let test = f.host.test_plugin("fx").await.expect("tested");
    let needs = Some(["amount", "from", "to"].map(str::to_owned).to_vec());
    assert_eq!(test, PluginTest { action: Some("fx__convert".into()), ok: false, code: None, family: None, needs });
    assert!(f.host.journal(JournalQuery { limit: 5, ..Default::default() }).await.expect("journal").is_empty());
}

/// A program on this PC (§15) that answers `answer` as JSON to every
/// request and sends each request line (`GET /time HTTP/1.1`).
fn recording_pc_server(port: u16, answer: &'static str) -> mpsc::Receiver<String> {
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind the PC server");
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let request = read_request(&stream);
            let _ = lines.send(request.line);
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    received
}

/// Issue 23, §15: every action of a plugin on this PC is R2 (§12), which
/// left PC plugins with nothing to test; a GET its author declared without
/// side effects only reads, so Test calls it, through the real pipeline to
/// the program on 127.0.0.1, and the journal says it was a test.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s15_s18_test_calls_the_read_action_of_a_plugin_on_this_pc_and_journals_a_test() {
    let f = fixture();
    let port = free_port();
    let requests = recording_pc_server(port, r#"{"time":"12:34","date":"2026-11-30"}"#);
    install_pc_example(&f, "mypc", port, with_token()).await;

    let test = f.host.test_plugin("mypc").await.expect("tested");
    assert_eq!(
        test,
        PluginTest { action: Some("mypc__get_time".into()), ok: true, code: None, family: None, needs: None }
    );
    assert_eq!(requests.recv_timeout(Duration::from_secs(5)).expect("a request"), "GET /time HTTP/1.1");
    assert!(requests.try_recv().is_err(), "add_note (reversible) is never called");
    let journal = f.host.journal(JournalQuery { limit: 5, ..Default::default() }).await.expect("journal");
    assert_eq!(journal.len(), 1);
    assert_eq!((journal[0].action.as_str(), journal[0].outcome.as_str()), ("get_time", "done"));
    assert_eq!(journal[0].who, JournalValue::Known(Source::Test), "a test, never the player's voice or keyboard");
}

/// Issue 23: Test fills each required argument with its schema's
/// `default`, else the first value of its `enum`, leaves optional ones out,
/// and skips a read action whose required argument has neither.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s18_test_sends_the_schemas_defaults_and_first_allowed_values() {
    let f = fixture();
    let port = free_port();
    let requests = recording_pc_server(port, r#"{"days":[]}"#);
    dev_mode(&f.host, true).await;
    let url = format!("http://127.0.0.1:{port}/forecast");
    let word = json!({ "type": "string", "description": "A word.", "maxLength": 20 });
    let manifest = json!({
        "name": "weather-pc", "version": "1.0.0", "display_name": "Weather on this PC",
        "description": "Reads a forecast from a program on this PC.", "author": { "name": "Test" },
        "_meta": { "com.desktopaicompanion": {
            "apiVersion": 1, "kind": "declarative", "slug": "wpc",
            "permissions": { "network": { "local": { "ports": [port] } } },
            "tools": {
                "find": {
                    "description": "Find a place by its name for the forecast.", "hint": { "en": "find places" },
                    "inputSchema": { "type": "object", "properties": { "word": word }, "required": ["word"] },
                    "request": { "method": "GET", "url": url.replace("forecast", "find"), "query": { "q": "{{word}}" } }
                },
                "forecast": {
                    "description": "Read the forecast of the next days.", "hint": { "en": "read the forecast" },
                    "inputSchema": { "type": "object", "properties": {
                        "days": { "type": "integer", "description": "Number of days, 1 to 7.", "minimum": 1, "maximum": 7, "default": 3 },
                        "units": { "type": "string", "description": "Units.", "enum": ["metric", "imperial"] },
                        "city": { "type": "string", "description": "A city.", "maxLength": 40 }
                    }, "required": ["days", "units"] },
                    "request": { "method": "GET", "url": url, "query": { "days": "{{days}}", "units": "{{units}}", "city": "{{city}}" } }
                }
            }
        } }
    });
    install_manifest(&f.host, f.dir.path(), "wpc", &manifest, Default::default()).await;
    let test = f.host.test_plugin("wpc").await.expect("tested");
    assert_eq!(
        test,
        PluginTest { action: Some("wpc__forecast".into()), ok: true, code: None, family: None, needs: None }
    );
    let line = requests.recv_timeout(Duration::from_secs(5)).expect("a request");
    assert_eq!(line, "GET /forecast?days=3&units=metric HTTP/1.1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn testing_an_unknown_plugin_is_unknown_plugin() {
    let f = fixture();
    let error = f.host.test_plugin("nope").await.expect_err("no such plugin");
    assert_eq!(error.code.as_str(), "unknown_plugin");
}
