//! The words a player reads after an install and for a failed call in the
//! terminal's chat (issue 21): with an AI set, the next step after an
//! install is `dcplugin chat`; a failed call says what happened before its
//! code. Through the real binary, the scripted AI standing in for a model.

mod support;

use scripted_ai::{openai, Options, Script, ScriptedAi, MODEL};
use serde_json::Value;
use support::{examples, free_port, text, Profile};

/// A profile in developer mode whose AI is the scripted server answering `turns`.
fn profile_with_ai(turns: Vec<scripted_ai::Step>) -> (Profile, ScriptedAi) {
    let ai = ScriptedAi::launch(Script::with_turns(turns), Options::default()).expect("scripted-ai starts");
    let p = Profile::new();
    assert!(p.run(&["dev-mode", "on"]).status.success());
    let set = p.run(&["ai", "--url", &ai.url(), "--model", MODEL]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    (p, ai)
}

/// The line of `out` that starts with `start`.
fn line<'a>(out: &'a str, start: &str) -> &'a str {
    out.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no line {start:?} in:\n{out}"))
}

#[test]
fn with_an_ai_set_the_next_step_after_an_install_is_the_chat() {
    let p = Profile::new();
    let fx = examples().join("exchange-rates/manifest.json");
    let without = text(&p.run(&["import", fx.to_str().expect("utf-8"), "--yes"]).stdout);
    assert!(line(&without, "next: try it: ").contains(" call fx__convert --args "), "{without}");
    assert!(!without.contains(" chat"), "no AI set: the chat is not suggested: {without}");

    let (p, _ai) = profile_with_ai(Vec::new());
    let with = text(&p.run(&["import", fx.to_str().expect("utf-8"), "--yes"]).stdout);
    let next = line(&with, "next: ");
    assert!(next.starts_with("next: ask your companion: dcplugin --profile "), "{next}");
    assert!(next.contains(" chat   (one action alone: dcplugin --profile "), "{next}");
    assert!(next.ends_with(r#" call fx__convert --args '{"amount": …, "from": …, "to": …}')"#), "{next}");
}

#[test]
fn a_failed_call_in_the_terminal_chat_says_what_happened_then_its_code() {
    // The local-server example on a port where nothing listens: the call fails NETWORK.
    let port = free_port();
    let (p, _ai) = profile_with_ai(vec![
        openai::tool_calls(&[("c1", "mypc__get_time", "{}")], 0),
        openai::text(["Your PC's program is not running."]),
        openai::tool_calls(&[("c2", "mypc__get_time", "{}")], 0),
        openai::text(["Still not running."]),
    ]);
    let dir = p.dir.path().join("local-server");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let manifest = std::fs::read_to_string(examples().join("local-server/manifest.json")).expect("manifest");
    let manifest: Value = serde_json::from_str(&manifest.replace("8420", &port.to_string())).expect("JSON");
    std::fs::write(dir.join("manifest.json"), manifest.to_string()).expect("write");
    let args = ["load-folder", dir.to_str().expect("utf-8"), "--yes", "--secrets-stdin"];
    let loaded = p.run_with(&args, Some("token=t0k3n-of-the-test\n"), &[]);
    assert!(loaded.status.success(), "{}{}", text(&loaded.stdout), text(&loaded.stderr));

    let out = p.run_with(&["chat", "--door-port", &free_port().to_string()], Some("what time is it\n"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "  [My PC (local server) (tell the time on your PC)] failed: the service could not be reached (NETWORK)\n\
         Your PC's program is not running.\n"
    );
    // --json's tool line keeps its fields, the code and no words; issue 23 added what was sent and
    // what the AI read after them, issue 33 the code's family, the plugin's name and the action's hint
    // (a contract is extended, never changed).
    let json = p.run_with(&["chat", "--json", "--door-port", &free_port().to_string()], Some("again\n"), &[]);
    let tool = text(&json.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["type"] == "tool")
        .unwrap_or_else(|| panic!("a tool line: {}", text(&json.stdout)));
    let keys: Vec<&str> = tool.as_object().expect("an object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["type", "step", "tool", "args", "outcome", "code", "reason", "sent", "for_ai", "family", "plugin", "hint"],
        "{tool}"
    );
    assert_eq!(
        (tool["family"].as_str(), tool["plugin"].as_str(), tool["hint"].as_str()),
        (Some("network"), Some("My PC (local server)"), Some("tell the time on your PC")),
        "{tool}"
    );
    assert_eq!(tool["sent"]["headers"][0][1], "[secret]", "the token never shown: {tool}");
    assert_eq!((tool["outcome"].as_str(), tool["code"].as_str()), (Some("failed"), Some("NETWORK")), "{tool}");
}
