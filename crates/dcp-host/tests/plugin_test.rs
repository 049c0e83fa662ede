//! Options' Test button (§18) through the host's API: which action it
//! calls and what it reports for the window to word, without reaching the internet (the
//! courtier answers before any request, or there is nothing to call).

mod common;

use common::*;
use dcp_host::{CloudChoice, InstallOptions, PluginTest, SwitchesPatch};
use serde_json::{json, Value};

/// A plugin of api.example.org with these tools (name, required arguments, risk).
fn manifest(tools: &[(&str, &[&str], &str)]) -> Value {
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
        "name": "boards-example",
        "version": "1.0.0",
        "display_name": "Boards",
        "description": "Reads the boards of an example service.",
        "author": {"name": "Test"},
        "_meta": {"com.desktopaicompanion": {
            "apiVersion": 1,
            "kind": "declarative",
            "slug": "boards",
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
        }
    );
    let journal = f.host.journal(dcp_host::JournalQuery { limit: 5, ..Default::default() }).await.expect("journal");
    assert_eq!((journal[0].action.as_str(), journal[0].outcome.as_str()), ("list", "refused"), "journaled as a call");
    // Issue 23: a test reads as a test, never as the player's keyboard, and is read back typed.
    assert_eq!(journal[0].who, dcp_host::JournalValue::Known(dcp_host::Source::Test));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s18_a_plugin_with_nothing_harmless_to_call_has_nothing_to_test() {
    let f = fixture();
    let tools: &[(&str, &[&str], &str)] = &[("find", &["word"], "R0"), ("archive", &[], "R2")];
    install_manifest(&f.host, f.dir.path(), "boards", &manifest(tools), Default::default()).await;

    let test = f.host.test_plugin("boards").await.expect("tested");
    assert_eq!(test, PluginTest { action: None, ok: false, code: None }, "nothing called: the window says so");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn testing_an_unknown_plugin_is_unknown_plugin() {
    let f = fixture();
    let error = f.host.test_plugin("nope").await.expect_err("no such plugin");
    assert_eq!(error.code.as_str(), "unknown_plugin");
}
