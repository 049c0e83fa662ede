//! Turns end to end (issue 22): the scripted OpenAI-compatible server as
//! the AI, the host over a real profile with the local-server example
//! installed, and a real program on the PC answering its requests. Each
//! test checks what the AI received and what the program received.

#[path = "../../dcp-host/tests/common/mod.rs"]
mod common;

use common::{
    dev_mode, example_on_port, fixture, free_port, install_manifest, pc_server, with_token, Fixture, PcServer, TOKEN,
};
use dcp_ai::{judge_ai_url, Connection};
use dcp_companion::{CancellationToken, Companion, Said, TurnError, TurnEvent};
use dcp_format::codes::ToolFamily;
use dcp_format::limits::STEPS_PER_TURN;
use dcp_host::{Answer, Ask, Decision, JournalOutcome, Question, Refusal, SaidEvent, Source};
use scripted_ai::{ollama, openai, Received, Script, ScriptedAi, Step, MODEL};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const ANSWER: &str = r#"{"time":"12:00","date":"2026-12-02","saved":true,"notes":1}"#;

struct World {
    _f: Fixture,
    pc: PcServer,
    ai: ScriptedAi,
    companion: Companion,
}

/// A host with `mypc` installed and its program running, and a companion
/// whose AI (on this PC) answers `turns`.
async fn world(turns: Vec<Step>) -> World {
    let f = fixture();
    dev_mode(&f.host, true).await;
    let pc = pc_server(free_port(), ANSWER);
    install_manifest(&f.host, f.dir.path(), "mypc", &example_on_port("local-server", pc.port), with_token()).await;
    let ai = ScriptedAi::start(Script::with_turns(turns)).await;
    let url = judge_ai_url(&ai.url()).expect("a loopback URL is an AI on this PC");
    let companion = Companion::new(f.host.clone(), Connection::new(url, MODEL.into(), None));
    World { _f: f, pc, ai, companion }
}

async fn say(w: &mut World, source: Source, text: &str) -> (Result<String, TurnError>, Vec<TurnEvent>) {
    let mut events = Vec::new();
    let said = Said { source, live: false, text: text.into() };
    let result = w.companion.say(said, None, CancellationToken::new()).finish(|e| events.push(e)).await;
    (result, events)
}

/// The tool messages of a request: (call id, content).
fn tool_messages(request: &Received) -> Vec<(String, String)> {
    request.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// A `tool` line: (step, tool, outcome, code, reason).
type ToolLine = (u32, String, JournalOutcome, Option<String>, Option<String>);

/// The `tool` lines of a turn.
fn tools(events: &[TurnEvent]) -> Vec<ToolLine> {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::Tool { step, tool, outcome, code, reason, .. } => Some((
                *step,
                tool.clone(),
                *outcome,
                code.map(|c| c.to_string()),
                reason.map(|r| r.as_str().to_owned()),
            )),
            _ => None,
        })
        .collect()
}

fn no_secret_in(ai: &ScriptedAi) {
    for request in ai.received() {
        let text = serde_json::to_string(&request).expect("JSON");
        assert!(!text.contains(TOKEN), "a secret reached the AI: {text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_then_act_chain_of_two_steps() {
    let mut w = world(vec![
        openai::tool_calls(&[("call_a", "mypc__get_time", "{}")], 0),
        openai::tool_calls(&[("call_b", "mypc__add_note", r#"{"text":"tea at 12:00"}"#)], 3),
        openai::text(["Done: ", "noted."]),
    ])
    .await;
    let (result, events) = say(&mut w, Source::Keyboard, "note the time").await;
    assert_eq!(result.expect("the turn ends with an answer"), "Done: noted.");
    let lines: Vec<_> = tools(&events).into_iter().map(|(s, t, o, ..)| (s, t, o)).collect();
    assert_eq!(
        lines,
        [(1, "mypc__get_time".into(), JournalOutcome::Done), (2, "mypc__add_note".into(), JournalOutcome::Done)]
    );
    assert!(matches!(events.first(), Some(TurnEvent::Turn { source: Source::Keyboard, .. })), "{events:?}");
    assert_eq!(events.last(), Some(&TurnEvent::End { steps: 2, stopped: false }));
    assert!(events.contains(&TurnEvent::Delta { text: "Done: ".into() }), "{events:?}");
    assert!(events.contains(&TurnEvent::Reply { text: "Done: noted.".into(), cut: false }), "{events:?}");
    assert_eq!(w.pc.requests.load(Ordering::SeqCst), 2, "the program received both calls");

    let sent = w.ai.chats();
    assert_eq!(sent.len(), 3);
    let first = &sent[0].body;
    assert_eq!(first["stream"], json!(true));
    assert_eq!(first["model"], json!(MODEL));
    assert_eq!(first["parallel_tool_calls"], json!(false), "an AI on the PC: one tool per step");
    assert_eq!(sent[0].tool_names(), ["mypc__get_time", "mypc__add_note"]);
    let system = first["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(system.contains("My PC (local server): tell the time on the user's PC"), "{system}");
    assert!(system.contains("third-party data"), "{system}");
    assert_eq!(first["messages"][1], json!({"role": "user", "content": "note the time"}));
    let results = tool_messages(&sent[2]);
    assert_eq!(results.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["call_a", "call_b"]);
    assert!(results[0].1.contains("12:00"), "{results:?}");
    no_secret_in(&w.ai);

    // The conversation goes on: the next turn sends the first one again.
    let (_, events) = say(&mut w, Source::Keyboard, "thanks").await;
    assert!(matches!(events.last(), Some(TurnEvent::Error { .. }) | Some(TurnEvent::End { .. })));
    let again = w.ai.chats();
    let messages = again[3].body["messages"].as_array().cloned().unwrap_or_default();
    assert!(messages.iter().any(|m| m["content"] == json!("note the time")), "{messages:?}");
}

/// §3 steps 3 and 6, issue 23: each `tool` line carries the request the
/// app sent (the token as `[secret]`) and exactly what the AI then read,
/// the window's way to open a call under the answer; a call refused
/// before any request carries none, and the refusal the AI read.
#[tokio::test(flavor = "multi_thread")]
async fn a_tool_line_carries_what_was_sent_what_the_ai_read_and_whose_action_it_is() {
    let mut w = world(vec![
        openai::tool_calls(&[("n1", "mypc__add_note", r#"{"text":"tea"}"#)], 0),
        openai::tool_calls(&[("u1", "mypc__fly", "{}")], 0),
        openai::text(["Noted."]),
    ])
    .await;
    let (result, events) = say(&mut w, Source::Keyboard, "note tea").await;
    assert_eq!(result.expect("answer"), "Noted.");
    let mut lines = Vec::new();
    for event in &events {
        if let TurnEvent::Tool { sent, for_ai, .. } = event {
            lines.push((sent.clone(), for_ai.clone()));
        }
    }
    assert_eq!(lines.len(), 2, "{events:?}");
    let sent = lines[0].0.as_ref().expect("the note was sent");
    assert_eq!((sent.method, sent.url.as_str()), ("POST", format!("http://127.0.0.1:{}/note", w.pc.port).as_str()));
    assert_eq!(sent.headers, [("Authorization".to_owned(), "[secret]".to_owned())]);
    assert_eq!(sent.body.as_deref(), Some(r#"{"text":"tea"}"#));
    let read = tool_messages(&w.ai.chats()[2]);
    assert_eq!(lines[0].1, read[0].1, "the line says exactly what the AI read");
    assert!(lines[0].1.contains("third-party data") && lines[0].1.contains("\"saved\":true"), "{}", lines[0].1);
    assert_eq!(lines[1].0, None, "an unknown tool sends nothing");
    assert_eq!(lines[1].1, read[1].1);
    assert!(lines[1].1.contains("unknown_tool"), "{}", lines[1].1);
    let shown = format!("{events:?}");
    assert!(!shown.contains(TOKEN), "the token never reaches a turn line");
    // Issue 33: the line names the action as the player is shown it, its
    // plugin's name and its hint, from the turn's offer (no shell asks for
    // them again), and gives its code's family; a tool the AI made up has
    // neither name nor hint.
    let named: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::Tool { plugin, hint, family, .. } => Some((plugin.as_deref(), hint.as_deref(), *family)),
            _ => None,
        })
        .collect();
    assert_eq!(
        named,
        [
            (Some("My PC (local server)"), Some("write a note on your PC"), None),
            (None, None, Some(ToolFamily::Refused)),
        ]
    );
}

/// Issue 33: in an event turn, where nothing is offered, the refused
/// call's line still names the action as the player is shown it.
#[tokio::test(flavor = "multi_thread")]
async fn an_event_turns_refused_call_is_named_too() {
    let mut w = world(vec![openai::tool_calls(&[("e1", "mypc__get_time", "{}")], 0), openai::text(["Done."])]).await;
    let said = SaidEvent { plugin: "mypc".into(), event: "build_done".into(), title: "Build".into(), text: None };
    let mut events = Vec::new();
    let turn = w.companion.event_turn("framed".into(), vec![said], CancellationToken::new());
    turn.finish(|e| events.push(e)).await.expect("answer");
    let line = events.iter().find(|e| matches!(e, TurnEvent::Tool { .. }));
    assert!(
        matches!(line, Some(TurnEvent::Tool { plugin: Some(p), hint: Some(h), reason: Some(Refusal::NotRequested), .. })
            if p == "My PC (local server)" && h == "tell the time on your PC"),
        "{events:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ai_on_the_pc_runs_one_tool_per_step() {
    let mut w = world(vec![
        openai::tool_calls(&[("c1", "mypc__get_time", "{}"), ("c2", "mypc__add_note", r#"{"text":"x"}"#)], 4),
        openai::text(["ok"]),
    ])
    .await;
    let (result, events) = say(&mut w, Source::Keyboard, "time and note").await;
    assert_eq!(result.expect("answer"), "ok");
    let lines = tools(&events);
    assert_eq!(lines[0].2, JournalOutcome::Done);
    assert_eq!((lines[1].2, lines[1].4.as_deref()), (JournalOutcome::Refused, Some("one_action_per_step")));
    assert_eq!(w.pc.requests.load(Ordering::SeqCst), 1, "only the first call reached the program");
    let results = tool_messages(&w.ai.chats()[1]);
    assert_eq!(results[1], ("c2".to_owned(), Refusal::OneActionPerStep.for_ai()), "the transcript stays valid");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fifth_step_is_followed_by_one_request_without_tools() {
    let mut turns: Vec<Step> = (0..STEPS_PER_TURN)
        .map(|n| openai::tool_calls(&[("", "mypc__add_note", &format!(r#"{{"text":"note {n}"}}"#))], 5))
        .collect();
    turns.push(openai::text(["five notes"]));
    let mut w = world(turns).await;
    let (result, events) = say(&mut w, Source::Keyboard, "five notes").await;
    assert_eq!(result.expect("answer"), "five notes");
    assert_eq!(events.last(), Some(&TurnEvent::End { steps: STEPS_PER_TURN as u32, stopped: false }));
    let sent = w.ai.chats();
    assert_eq!(sent.len(), STEPS_PER_TURN + 1);
    assert!(sent[..STEPS_PER_TURN].iter().all(|r| !r.tool_names().is_empty()));
    assert!(sent[STEPS_PER_TURN].body.get("tools").is_none(), "no tools after the 5th step");
    // A missing id is made up, and answered under that id.
    let ids: Vec<String> = tool_messages(&sent[STEPS_PER_TURN]).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), STEPS_PER_TURN);
    assert!(ids.iter().all(|id| id.starts_with("call_")), "{ids:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn what_small_models_get_wrong_is_answered_not_crashed_on() {
    let mut w = world(vec![
        // Ollama's shape: whole calls, arguments as an object, no id.
        ollama::tool_calls(&[(None, "mypc__get_time", json!({}))]),
        // The same call again, an unknown tool, arguments that are not JSON.
        openai::tool_calls(&[("r1", "mypc__get_time", "")], 0),
        openai::tool_calls(&[("u1", "mypc__fly", "{}")], 0),
        openai::tool_calls(&[("j1", "mypc__add_note", "{text: oops")], 2),
        // A reply with no text.
        openai::text(Vec::<&str>::new()),
    ])
    .await;
    let (result, events) = say(&mut w, Source::Keyboard, "what time is it").await;
    assert_eq!(result.expect("a reply with no text is a reply"), "");
    let lines = tools(&events);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0].2, JournalOutcome::Done);
    assert_eq!((lines[1].2, lines[1].4.as_deref()), (JournalOutcome::Refused, Some("repeated_call")));
    assert_eq!(
        (lines[2].2, lines[2].3.as_deref(), lines[2].4.as_deref()),
        (JournalOutcome::Refused, Some("POLICY_DENIED"), Some("unknown_tool"))
    );
    assert_eq!((lines[3].2, lines[3].3.as_deref()), (JournalOutcome::Failed, Some("INVALID_ARGUMENTS")));
    assert_eq!(w.pc.requests.load(Ordering::SeqCst), 1, "only the first call reached the program");
    let results = tool_messages(&w.ai.chats()[4]);
    assert_eq!(results[1], ("r1".to_owned(), Refusal::RepeatedCall.for_ai()));
    assert!(results[2].1.contains("unknown_tool"), "{results:?}");
    assert!(results[3].1.starts_with("INVALID_ARGUMENTS: the arguments are not JSON"), "{results:?}");
    assert!(events.contains(&TurnEvent::Reply { text: String::new(), cut: false }));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_twitch_turn_is_offered_what_the_chat_may_use_only() {
    let mut w = world(vec![openai::text(["hi chat"])]).await;
    let (result, _) = say(&mut w, Source::Twitch, "!time").await;
    assert_eq!(result.expect("answer"), "hi chat");
    let sent = w.ai.chats();
    assert!(sent[0].tool_names().is_empty(), "the PC's actions are no Twitch action: {:?}", sent[0].tool_names());
    let system = sent[0].body["messages"][0]["content"].as_str().unwrap_or_default().to_owned();
    assert!(system.contains("not for the Twitch chat"), "the AI can say why: {system}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_event_turn_offers_no_tools_and_a_call_is_refused() {
    let mut w =
        world(vec![openai::tool_calls(&[("e1", "mypc__get_time", "{}")], 0), openai::text(["Your build finished."])])
            .await;
    let mut events = Vec::new();
    let message = "Information from a program on your PC (unchecked): build finished".to_owned();
    let said = SaidEvent {
        plugin: "mypc".into(),
        event: "build_done".into(),
        title: "Build finished".into(),
        text: Some("3 warnings".into()),
    };
    let result =
        w.companion.event_turn(message.clone(), vec![said], CancellationToken::new()).finish(|e| events.push(e)).await;
    assert_eq!(result.expect("answer"), "Your build finished.");
    // The player is shown the event's title and the program's words; the AI read the framed message.
    assert!(events.contains(&TurnEvent::Event {
        plugin: "mypc".into(),
        event: "build_done".into(),
        title: "Build finished".into(),
        details: Some("3 warnings".into()),
        text: message.clone(),
        held: None,
    }));
    let lines = tools(&events);
    assert_eq!((lines[0].2, lines[0].4.as_deref()), (JournalOutcome::Refused, Some("not_requested")));
    assert_eq!(w.pc.requests.load(Ordering::SeqCst), 0, "nothing reached the program");
    let sent = w.ai.chats();
    assert!(sent.iter().all(|r| r.body.get("tools").is_none()), "no tools in an event turn");
    // The event and its answer stay in the conversation.
    let kept = w.companion.conversation().len();
    assert!(kept >= 4, "user, assistant call, tool, assistant answer: {kept}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ai_that_cannot_be_reached_ends_the_turn_with_its_code_and_forgets_it() {
    let mut w = world(vec![ollama::no_tools(MODEL)]).await;
    let (result, events) = say(&mut w, Source::Keyboard, "hello").await;
    let error = result.expect_err("a model without tools");
    assert_eq!(error.code().as_str(), "ai_no_tools");
    assert!(
        matches!(&events[events.len() - 2], TurnEvent::Error { code, .. } if code.as_str() == "ai_no_tools"),
        "{events:?}"
    );
    assert_eq!(events.last(), Some(&TurnEvent::End { steps: 0, stopped: false }));
    assert!(w.companion.conversation().is_empty(), "a turn that failed is not kept");

    let gone = free_port();
    let url = judge_ai_url(&format!("http://127.0.0.1:{gone}/v1")).expect("url");
    let mut nobody = Companion::new(w._f.host.clone(), Connection::new(url, MODEL.into(), None));
    let said = Said { source: Source::Keyboard, live: false, text: "hi".into() };
    let result = nobody.say(said, None, CancellationToken::new()).finish(drop).await;
    assert_eq!(result.map_err(|e| e.code().as_str()).err(), Some("ai_not_listening"));
}

/// Answers every R3 question with `decision`, and counts the questions.
struct Answering {
    decision: Decision,
    asked: AtomicUsize,
}

impl Ask for Answering {
    fn confirm(&self, question: Question) -> Answer<'_> {
        assert!(!serde_json::to_string(&question).expect("JSON").contains(TOKEN), "the question shows no secret");
        self.asked.fetch_add(1, Ordering::SeqCst);
        let decision = self.decision;
        Box::pin(async move { decision })
    }
}

/// `mypc` with `add_note` made irreversible (R3), a keyboard turn asking
/// for it, answered `decision`.
async fn r3_turn(decision: Decision) -> (World, Vec<TurnEvent>, Arc<Answering>) {
    let mut w = world(vec![]).await;
    let f = fixture();
    dev_mode(&f.host, true).await;
    let mut manifest = example_on_port("local-server", w.pc.port);
    manifest["_meta"]["com.desktopaicompanion"]["tools"]["add_note"]["sideEffects"] = json!("irreversible");
    install_manifest(&f.host, f.dir.path(), "mypc", &manifest, with_token()).await;
    let ai = ScriptedAi::start(Script::with_turns(vec![
        openai::tool_calls(&[("n1", "mypc__add_note", r#"{"text":"pay rent"}"#)], 0),
        openai::text(["ok"]),
    ]))
    .await;
    let url = judge_ai_url(&ai.url()).expect("url");
    w.companion = Companion::new(f.host.clone(), Connection::new(url, MODEL.into(), None));
    w.ai = ai;
    w._f = f;
    let ask = Arc::new(Answering { decision, asked: AtomicUsize::new(0) });
    let mut events = Vec::new();
    let said = Said { source: Source::Keyboard, live: false, text: "note: pay rent".into() };
    w.companion
        .say(said, Some(ask.clone()), CancellationToken::new())
        .finish(|e| events.push(e))
        .await
        .expect("answer");
    (w, events, ask)
}

#[tokio::test(flavor = "multi_thread")]
async fn r3_is_offered_where_the_player_can_be_asked_and_sent_only_on_a_yes() {
    let (w, events, ask) = r3_turn(Decision::Confirmed).await;
    assert_eq!(ask.asked.load(Ordering::SeqCst), 1);
    assert!(
        w.ai.chats()[0].tool_names().contains(&"mypc__add_note".to_owned()),
        "offered when the player can be asked"
    );
    let confirm = events.iter().find(|e| matches!(e, TurnEvent::Confirm { .. }));
    assert!(
        matches!(confirm, Some(TurnEvent::Confirm { tool, method, url, decision, plugin: Some(plugin), .. })
            if tool == "mypc__add_note" && method == "POST" && url.ends_with("/note") && *decision == Decision::Confirmed
                && plugin == "My PC (local server)"),
        "{events:?}"
    );
    assert_eq!(tools(&events)[0].2, JournalOutcome::Done);
    assert_eq!(w.pc.requests.load(Ordering::SeqCst), 1, "a yes sends it");
}

#[tokio::test(flavor = "multi_thread")]
async fn r3_declined_sends_nothing_and_the_ai_is_told() {
    let (w, events, _) = r3_turn(Decision::Declined).await;
    assert!(events.iter().any(|e| matches!(e, TurnEvent::Confirm { decision, .. } if *decision == Decision::Declined)));
    let line = &tools(&events)[0];
    assert_eq!((line.2, line.4.as_deref()), (JournalOutcome::Refused, Some("declined")));
    assert_eq!(w.pc.requests.load(Ordering::SeqCst), 0, "nothing reaches the program on a no");
    assert!(tool_messages(&w.ai.chats()[1])[0].1.contains("declined"), "the AI is told");
}

#[tokio::test(flavor = "multi_thread")]
async fn r3_is_not_offered_where_no_one_can_be_asked() {
    let mut w = world(vec![openai::text(["ok"])]).await;
    let f = fixture();
    dev_mode(&f.host, true).await;
    let mut manifest = example_on_port("local-server", w.pc.port);
    manifest["_meta"]["com.desktopaicompanion"]["tools"]["add_note"]["sideEffects"] = json!("irreversible");
    install_manifest(&f.host, f.dir.path(), "mypc", &manifest, with_token()).await;
    let url = judge_ai_url(&w.ai.url()).expect("url");
    w.companion = Companion::new(f.host.clone(), Connection::new(url, MODEL.into(), None));
    say(&mut w, Source::Keyboard, "note it").await.0.expect("answer");
    assert_eq!(w.ai.chats()[0].tool_names(), ["mypc__get_time"]);
}

/// The turn's `reply` line: (text, cut).
fn reply(events: &[TurnEvent]) -> Option<(String, bool)> {
    events.iter().find_map(|e| match e {
        TurnEvent::Reply { text, cut } => Some((text.clone(), *cut)),
        _ => None,
    })
}

/// Issue 34: an answer the server cut at its length limit ends the turn
/// with a `reply` line saying `cut`; a whole answer's line does not.
#[tokio::test(flavor = "multi_thread")]
async fn issue_34_a_cut_answer_says_cut() {
    let mut w = world(vec![openai::cut_text(["Once upon a ti"]), openai::text(["Done."])]).await;
    let (result, events) = say(&mut w, Source::Keyboard, "tell me a story").await;
    assert_eq!(result.expect("a cut answer is an answer"), "Once upon a ti");
    assert_eq!(reply(&events), Some(("Once upon a ti".into(), true)));
    let line = serde_json::to_value(events.iter().find(|e| matches!(e, TurnEvent::Reply { .. }))).expect("JSON");
    assert_eq!(line, json!({"type": "reply", "text": "Once upon a ti", "cut": true}));
    let (_, events) = say(&mut w, Source::Keyboard, "and?").await;
    assert_eq!(reply(&events), Some(("Done.".into(), false)));
}

/// Issue 34: a tool step cut at the length limit runs nothing, even a call
/// whose arguments never came (`""` reads as no arguments): the turn ends
/// cut, with one request, and the next turn's conversation carries no
/// unanswered call.
#[tokio::test(flavor = "multi_thread")]
async fn issue_34_a_cut_tool_step_runs_no_half_call() {
    let mut half = openai::tool_call_chunks(&[("c1", "mypc__get_time", "")], 0);
    half.push(openai::finish("length"));
    let mut w = world(vec![Step::Stream(half), openai::text(["ok"])]).await;
    let (result, events) = say(&mut w, Source::Keyboard, "time?").await;
    result.expect("a cut answer is an answer");
    assert!(tools(&events).is_empty(), "{events:?}");
    assert_eq!(reply(&events), Some((String::new(), true)));
    assert_eq!(w.pc.requests.load(Ordering::SeqCst), 0, "nothing reached the program");
    say(&mut w, Source::Keyboard, "again").await.0.expect("answer");
    let sent = w.ai.chats();
    assert_eq!(sent.len(), 2, "one request per turn");
    let carried_calls =
        sent[1].body["messages"].as_array().into_iter().flatten().any(|m| m.get("tool_calls").is_some());
    assert!(!carried_calls, "{}", sent[1].body);
}

/// Issue 34: arguments that are not JSON: the tool line keeps `args: null`
/// and shows what the model sent in `args_text`; JSON arguments have no
/// `args_text`.
#[tokio::test(flavor = "multi_thread")]
async fn issue_34_the_tool_line_shows_arguments_that_are_not_json() {
    let mut w = world(vec![
        openai::tool_calls(&[("c1", "mypc__add_note", "text=tea")], 0),
        openai::tool_calls(&[("c2", "mypc__get_time", "{}")], 0),
        openai::text(["ok"]),
    ])
    .await;
    let (_, events) = say(&mut w, Source::Keyboard, "note tea").await;
    let lines: Vec<serde_json::Value> = events
        .iter()
        .filter(|e| matches!(e, TurnEvent::Tool { .. }))
        .map(|e| serde_json::to_value(e).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!((&lines[0]["args"], &lines[0]["args_text"]), (&json!(null), &json!("text=tea")));
    assert_eq!((&lines[1]["args"], lines[1].get("args_text")), (&json!({}), None));
}
