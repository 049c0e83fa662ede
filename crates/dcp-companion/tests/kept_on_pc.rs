//! "Kept on this PC" over a whole conversation (§13, issue 32): the
//! conversation is kept when the AI changes, and nothing of a plugin kept
//! on this PC may reach an online AI through it: not its tool calls, their
//! results, the AI's text written from them, nor its events. The AI on this
//! PC is the scripted server on loopback; the online one is the scripted
//! server over TLS under a public name (dcp-ai's test hooks: fake DNS to a
//! public address, the connection rewritten to loopback, a test CA). The
//! kept plugin, `bank`, reads the player's data (R1) on a public host: a
//! scripted server over TLS too, whose model list is the private answer,
//! reached through the network filter's `DCPLUGIN_TEST_*` hooks (set once
//! for this test binary, before any host or connection is made).
//! Each test first shows that what it looks for does reach the AI when the
//! plugin is allowed online (or the AI is on this PC).

#[path = "../../dcp-host/tests/common/mod.rs"]
mod common;

use common::{dev_mode, example_on_port, fixture, free_port, install_manifest, with_token, Fixture};
use dcp_ai::{judge_ai_url, Connection, Place};
use dcp_companion::{CancellationToken, Companion, Said, TurnEvent};
use dcp_host::{
    CloudChoice, EventReason, Host, InstallOptions, JournalKind, JournalOutcome, JournalQuery, JournalValue, SaidEvent,
    Source,
};
use scripted_ai::pki::TestPki;
use scripted_ai::{openai, ModelsReply, Options, Received, Script, ScriptedAi, Step, Tls, MODEL};
use serde_json::{json, Value};
use std::sync::OnceLock;

/// What the bank answers: the private datum.
const BALANCE: &str = "balance-1999-04-21";
/// The AI on this PC's recap of it.
const RECAP: &str = "Your bank says 1999-04-21";
/// The kept plugin's event text.
const PIN: &str = "my bank PIN is 4321";
/// The bank's public address (fake DNS), really the scripted server.
const BANK_ADDRESS: &str = "93.184.216.34";

/// The bank's server and its CA file, for the whole test binary.
struct Bank {
    _server: ScriptedAi,
    _ca: tempfile::TempDir,
}

/// Starts the bank's server and points the network filter's test hooks at
/// it, once, before anything reads them: every helper below calls it first.
fn bank_online() {
    static BANK: OnceLock<Bank> = OnceLock::new();
    BANK.get_or_init(|| {
        let pki = TestPki::new(&["bank.example.com"]).expect("pki");
        let script = Script { models: ModelsReply::List(vec![BALANCE.into()]), turns: Vec::new() };
        let tls = Tls { cert_pem: pki.cert_pem.clone(), key_pem: pki.key_pem.clone() };
        let server = ScriptedAi::launch(script, Options { tls: Some(tls), ..Options::default() }).expect("bank");
        let ca = tempfile::tempdir().expect("ca");
        std::fs::write(ca.path().join("ca.pem"), &pki.ca_pem).expect("ca.pem");
        std::env::set_var("DCPLUGIN_TEST_DNS", format!("bank.example.com={BANK_ADDRESS}"));
        std::env::set_var("DCPLUGIN_TEST_CONNECT", format!("{BANK_ADDRESS}:443={}", server.addr()));
        std::env::set_var("DCPLUGIN_TEST_CA", ca.path().join("ca.pem"));
        Bank { _server: server, _ca: ca }
    });
}

/// The bank plugin: one R1 tool reading the balance on its public host.
fn bank_manifest() -> Value {
    json!({
        "name": "bank-example",
        "version": "1.0.0",
        "display_name": "My bank",
        "description": "Reads the balance of your bank account.",
        "author": { "name": "Plugin author" },
        "_meta": { "com.desktopaicompanion": {
            "apiVersion": 1,
            "kind": "declarative",
            "slug": "bank",
            "permissions": { "network": { "hosts": ["bank.example.com"] } },
            "tools": { "balance": {
                "description": "Give the balance of the user's bank account.",
                "hint": { "en": "read your balance" },
                "risk": "R1",
                "inputSchema": { "type": "object", "properties": {} },
                "request": { "method": "GET", "url": "https://bank.example.com/v1/models" }
            } }
        } }
    })
}

struct World {
    f: Fixture,
    companion: Companion,
}

/// `bank` installed with its online-AI answer `cloud`, developer mode on
/// (for a plugin on this PC a test adds), and a companion on `ai`.
async fn world(cloud: CloudChoice, ai: Connection) -> World {
    bank_online();
    let f = fixture();
    dev_mode(&f.host, true).await;
    let options = InstallOptions { cloud: Some(cloud), ..InstallOptions::default() };
    install_manifest(&f.host, f.dir.path(), "bank", &bank_manifest(), options).await;
    let kept = f.host.kept_on_pc().await.expect("kept");
    assert_eq!(kept, if cloud == CloudChoice::Local { vec!["bank".to_owned()] } else { Vec::new() });
    let companion = Companion::new(f.host.clone(), ai);
    World { f, companion }
}

/// An AI on this PC answering `turns`.
async fn on_pc(turns: Vec<Step>) -> (ScriptedAi, Connection) {
    bank_online();
    let ai = ScriptedAi::start(Script::with_turns(turns)).await;
    let url = judge_ai_url(&ai.url()).expect("a loopback URL is an AI on this PC");
    (ai, Connection::new(url, MODEL.into(), None))
}

/// An online AI answering `turns`: `https://ai.example.com/v1`, resolved
/// to a public address, reached on loopback over TLS.
async fn online(turns: Vec<Step>) -> (ScriptedAi, Connection) {
    bank_online();
    let pki = TestPki::new(&["ai.example.com"]).expect("pki");
    let ai = ScriptedAi::start_tls(Script::with_turns(turns), &pki.cert_pem, &pki.key_pem).await;
    let url = judge_ai_url("https://ai.example.com/v1").expect("online URL");
    assert_eq!(url.place(), Place::Online);
    let public = "93.184.216.34";
    let overrides = dcp_net::TestOverrides {
        dns: vec![("ai.example.com".into(), vec![public.parse().expect("ip")])],
        connect: [(format!("{public}:443").parse().expect("addr"), ai.addr())].into(),
        ca_pem: Some(pki.ca_pem.clone().into_bytes()),
    };
    (ai, Connection::new(url, MODEL.into(), None).with_test_overrides(overrides))
}

async fn say(companion: &mut Companion, text: &str) -> Vec<TurnEvent> {
    let mut events = Vec::new();
    let said = Said { source: Source::Keyboard, live: false, text: text.into() };
    companion
        .say(said, None, CancellationToken::new())
        .finish(|e| events.push(e))
        .await
        .expect("the turn ends with an answer");
    events
}

/// A request's messages, but its system message.
fn conversation(request: &Received) -> Vec<Value> {
    request.body["messages"].as_array().map(|m| m[1..].to_vec()).unwrap_or_default()
}

/// Every tool call asked for in `messages` is answered by a tool message.
fn every_call_answered(messages: &[Value]) -> bool {
    let answered: Vec<&str> = messages.iter().filter_map(|m| m["tool_call_id"].as_str()).collect();
    messages
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .all(|call| call["id"].as_str().is_some_and(|id| answered.contains(&id)))
}

fn left_out(events: &[TurnEvent]) -> Vec<&TurnEvent> {
    events.iter().filter(|e| matches!(e, TurnEvent::LeftOut { .. })).collect()
}

/// A conversation on the AI on this PC that runs `bank__balance` and
/// recaps it, then one more turn on an online AI: that turn's lines and
/// what the online AI received.
async fn pc_then_online(cloud: CloudChoice) -> (Vec<TurnEvent>, Vec<Received>) {
    let (_pc_ai, pc) =
        on_pc(vec![openai::tool_calls(&[("k1", "bank__balance", "{}")], 0), openai::text([RECAP])]).await;
    let mut w = world(cloud, pc).await;
    let first = say(&mut w.companion, "what is my balance?").await;
    assert!(first.iter().any(|e| matches!(e, TurnEvent::Tool { outcome: JournalOutcome::Done, .. })), "{first:?}");
    let (online_ai, online) = online(vec![openai::text(["You are welcome."])]).await;
    w.companion.set_connection(online);
    let events = say(&mut w.companion, "thanks").await;
    (events, online_ai.chats())
}

/// §13, issue 32: after the AI moves from this PC to an online service,
/// its first request carries none of a kept plugin's tool calls, results or
/// the recap the AI on this PC wrote from them; the player is told once.
#[tokio::test(flavor = "multi_thread")]
async fn s13_issue32_after_a_switch_online_nothing_of_a_kept_plugin_reaches_the_online_ai() {
    // Allowed online: the earlier turn is sent whole (the check below would see it).
    let (events, sent) = pc_then_online(CloudChoice::Allow).await;
    let carried = serde_json::to_string(&conversation(&sent[0])).expect("JSON");
    for seen in [BALANCE, RECAP, "bank__balance", "\"k1\"", "what is my balance?"] {
        assert!(carried.contains(seen), "{seen} is sent when allowed: {carried}");
    }
    assert!(left_out(&events).is_empty(), "{events:?}");

    // Kept on this PC: none of it.
    let (events, sent) = pc_then_online(CloudChoice::Local).await;
    assert_eq!(sent.len(), 1);
    let messages = conversation(&sent[0]);
    let carried = serde_json::to_string(&messages).expect("JSON");
    for unseen in ["1999-04-21", "bank__balance", "\"k1\"", "what is my balance?"] {
        assert!(!carried.contains(unseen), "{unseen} reached the online AI: {carried}");
    }
    assert_eq!(messages, [json!({"role": "user", "content": "thanks"})]);
    assert!(every_call_answered(&messages));
    assert_eq!(left_out(&events), [&TurnEvent::LeftOut { turns: 1, plugins: vec!["bank".into()] }]);
    let at = |wanted: fn(&TurnEvent) -> bool| events.iter().position(wanted);
    assert!(at(|e| matches!(e, TurnEvent::LeftOut { .. })) < at(|e| matches!(e, TurnEvent::Reply { .. })));
}

/// §13, issue 32: with an online AI, a plugin's choice turned to "Only with
/// an AI running on this PC" mid-conversation: the next request leaves out
/// the turns that ran it (and the AI's words from them), once said.
#[tokio::test(flavor = "multi_thread")]
async fn s13_issue32_a_plugin_kept_mid_conversation_leaves_its_turns_out_of_the_next_request() {
    let (ai, connection) = online(vec![
        openai::tool_calls(&[("k1", "bank__balance", "{}")], 0),
        openai::text([RECAP]),
        openai::text(["Noted."]),
        openai::text(["Sure."]),
        openai::text(["Bye."]),
    ])
    .await;
    let mut w = world(CloudChoice::Allow, connection).await;
    say(&mut w.companion, "what is my balance?").await;
    let events = say(&mut w.companion, "remember it").await;
    assert!(left_out(&events).is_empty());
    let before = serde_json::to_string(&conversation(&ai.chats()[2])).expect("JSON");
    assert!(before.contains(BALANCE) && before.contains(RECAP), "allowed: sent again: {before}");

    w.f.host.set_cloud("bank", CloudChoice::Local).await.expect("kept on this PC");
    let events = say(&mut w.companion, "what else?").await;
    let messages = conversation(&ai.chats()[3]);
    let after = serde_json::to_string(&messages).expect("JSON");
    for unseen in ["1999-04-21", "bank__balance", "remember it", "Noted."] {
        assert!(!after.contains(unseen), "{unseen} reached the online AI: {after}");
    }
    assert_eq!(messages, [json!({"role": "user", "content": "what else?"})]);
    assert_eq!(left_out(&events), [&TurnEvent::LeftOut { turns: 2, plugins: vec!["bank".into()] }]);
    // Said once: the next turn leaves out the same turns without a word.
    let events = say(&mut w.companion, "ok").await;
    assert!(left_out(&events).is_empty(), "{events:?}");
    let last = conversation(&ai.chats()[4]);
    assert_eq!(last.len(), 3, "what else?, Sure., ok: {last:?}");
}

fn pin_event() -> SaidEvent {
    SaidEvent { plugin: "bank".into(), event: "pin".into(), title: "PIN changed".into(), text: Some(PIN.into()) }
}

async fn dropped_lines(host: &Host) -> Vec<(String, String, Option<String>)> {
    let query = JournalQuery { limit: 50, kind: Some(JournalKind::Event), ..Default::default() };
    host.journal(query)
        .await
        .expect("journal")
        .into_iter()
        .filter(|l| l.outcome == JournalValue::Known(JournalOutcome::Dropped))
        .map(|l| {
            let code = l.code.map(|c| match c {
                JournalValue::Known(code) => code.to_string(),
                JournalValue::Unknown(text) => text,
            });
            (l.plugin, l.action, code)
        })
        .collect()
}

/// §13, §16, issue 32: an event of a kept plugin is said to an AI on this
/// PC, but not to an online AI: no request is made, the player is shown
/// it as held, and it is journaled dropped with the reason `cloud_blocked`.
#[tokio::test(flavor = "multi_thread")]
async fn s16_issue32_a_kept_plugin_s_event_is_not_said_to_an_online_ai() {
    let message = format!("(Not a message from the user. The My bank plugin reports: PIN changed. \"{PIN}\".)");
    let (pc_ai, pc) = on_pc(vec![openai::text(["Noted."])]).await;
    let mut w = world(CloudChoice::Local, pc).await;
    let answer = w
        .companion
        .event_turn(message.clone(), vec![pin_event()], CancellationToken::new())
        .finish(drop)
        .await
        .expect("said");
    assert_eq!(answer, "Noted.");
    assert!(serde_json::to_string(&pc_ai.chats()[0].body).expect("JSON").contains(PIN), "said on this PC");
    assert!(dropped_lines(&w.f.host).await.is_empty());

    let (online_ai, connection) = online(vec![openai::text(["?"])]).await;
    let mut companion = Companion::new(w.f.host.clone(), connection);
    let mut events = Vec::new();
    let answer = companion
        .event_turn(message, vec![pin_event()], CancellationToken::new())
        .finish(|e| events.push(e))
        .await
        .expect("no turn");
    assert_eq!(answer, "");
    assert!(online_ai.chats().is_empty(), "no request to the online AI");
    assert!(events.contains(&TurnEvent::held_event_line(pin_event(), EventReason::CloudBlocked)));
    assert!(!format!("{events:?}").contains("Not a message from the user"), "{events:?}");
    assert_eq!(events.last(), Some(&TurnEvent::End { steps: 0, stopped: false }));
    assert_eq!(dropped_lines(&w.f.host).await, [("bank".into(), "pin".into(), Some("cloud_blocked".into()))]);
    assert!(companion.conversation().is_empty(), "nothing said, nothing kept");
}

/// §16, issue 32: an online AI is told the other events of the same turn,
/// in a message made again without the kept plugin's.
#[tokio::test(flavor = "multi_thread")]
async fn s16_issue32_the_other_events_of_the_turn_are_still_said() {
    let (online_ai, connection) = online(vec![openai::text(["Build done."])]).await;
    let mut w = world(CloudChoice::Local, connection).await;
    let mut manifest = example_on_port("local-server", free_port());
    manifest["_meta"]["com.desktopaicompanion"]["slug"] = json!("build");
    manifest["display_name"] = json!("Build box");
    install_manifest(&w.f.host, w.f.dir.path(), "build", &manifest, with_token()).await;
    let build = SaidEvent {
        plugin: "build".into(),
        event: "done".into(),
        title: "Build finished".into(),
        text: Some("ok".into()),
    };
    let message = format!("(door's message with \"{PIN}\" and the build)");
    let mut events = Vec::new();
    let answer = w
        .companion
        .event_turn(message, vec![pin_event(), build.clone()], CancellationToken::new())
        .finish(|e| events.push(e))
        .await
        .expect("said");
    assert_eq!(answer, "Build done.");
    let sent = online_ai.chats();
    let said = sent[0].body["messages"][1]["content"].as_str().unwrap_or_default().to_owned();
    assert!(!said.contains(PIN) && !said.contains("PIN changed"), "{said}");
    assert!(said.contains("The Build box plugin reports: Build finished.") && said.contains("\"ok\""), "{said}");
    assert!(events.contains(&TurnEvent::held_event_line(pin_event(), EventReason::CloudBlocked)));
    assert!(events.iter().any(|e| matches!(e, TurnEvent::Event { plugin, held: None, text, .. }
        if plugin == "build" && *text == said)));
    assert_eq!(dropped_lines(&w.f.host).await, [("bank".into(), "pin".into(), Some("cloud_blocked".into()))]);
}
