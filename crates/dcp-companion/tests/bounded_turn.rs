//! Issue 32, "Bounded turns, whatever the AI sends", through
//! `Companion::say`: a turn ends at its deadline however the AI keeps its
//! stream open, a shell's stop ends it at once (a call already sent still
//! finishes and keeps its journal line), a step runs at most
//! [`CALLS_PER_STEP`] calls, and an answer of 100,000 calls keeps
//! [`CALLS_PER_ANSWER`] of them, so what goes back to the AI stays small.
//! The scripted AI is a real server; the PC's program is a real one that
//! counts what reaches it; deadlines are made short instead of waited for,
//! and a guard fails a turn that never ends (what happened before).

#[path = "../../dcp-host/tests/common/mod.rs"]
mod common;

use common::{dev_mode, example_on_port, fixture, free_port, install_manifest, next_event, pc_server_answering};
use common::{with_token, Fixture, PcServer, TOKEN};
use dcp_ai::{judge_ai_url, AiError, Connection, Limits};
use dcp_companion::{CancellationToken, Companion, Said, TurnError, TurnEvent};
use dcp_format::limits::{CALLS_PER_ANSWER, CALLS_PER_STEP};
use dcp_host::events::HostEvent;
use dcp_host::{CloudChoice, CompanionState, JournalOutcome, JournalQuery, Refusal, Sensitive, Source};
use scripted_ai::pki::TestPki;
use scripted_ai::{openai, Chunk, Received, Script, ScriptedAi, Step, MODEL};
use serde_json::Value;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// What fails a turn that never ends.
const GUARD: Duration = Duration::from_secs(60);

/// A profile with the local-server example installed as `mypc`, reaching `pc`.
async fn profile(pc: &PcServer) -> Fixture {
    let f = fixture();
    dev_mode(&f.host, true).await;
    install_manifest(&f.host, f.dir.path(), "mypc", &example_on_port("local-server", pc.port), with_token()).await;
    f
}

/// A program on the PC answering every request at once.
fn program() -> PcServer {
    pc_server_answering(free_port(), |_| ("200 OK", r#"{"saved":true}"#.to_owned()))
}

/// A companion whose AI on this PC is `ai`.
fn on_pc(f: &Fixture, ai: &ScriptedAi, limits: Limits) -> Companion {
    let url = judge_ai_url(&ai.url()).expect("a loopback URL");
    Companion::new(f.host.clone(), Connection::new(url, MODEL.into(), None).with_limits(limits))
}

/// One keyboard turn, stopped through its token once `when` is ready
/// (never, for a turn left alone).
async fn turn(
    companion: &mut Companion,
    text: &str,
    when: impl Future<Output = ()>,
) -> (Result<String, TurnError>, Vec<TurnEvent>) {
    let stop = CancellationToken::new();
    let mut events = Vec::new();
    let said = Said { source: Source::Keyboard, live: false, text: text.into() };
    let stopping = async {
        when.await;
        stop.cancel();
        std::future::pending::<()>().await
    };
    let record = |e| events.push(e);
    let result = tokio::select! {
        result = tokio::time::timeout(GUARD, companion.say(said, None, stop.clone()).finish(record)) => result,
        () = stopping => unreachable!("pending"),
    };
    (result.expect("the turn ended"), events)
}

/// The ids of the tool calls of a request's assistant messages, and the ids
/// its tool messages answer.
fn calls_and_answers(request: &Received) -> (Vec<String>, Vec<String>) {
    let messages = request.body["messages"].as_array().cloned().unwrap_or_default();
    let id = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let calls = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .map(|c| id(&c["id"]))
        .collect();
    let answers = messages.iter().filter(|m| m["role"] == "tool").map(|m| id(&m["tool_call_id"])).collect();
    (calls, answers)
}

/// The `tool` lines of a turn: (outcome, reason).
fn tool_lines(events: &[TurnEvent]) -> Vec<(JournalOutcome, Option<Refusal>)> {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::Tool { outcome, reason, .. } => Some((*outcome, *reason)),
            _ => None,
        })
        .collect()
}

fn ended_with(events: &[TurnEvent], code: &str) {
    let n = events.len();
    assert!(n >= 2, "{events:?}");
    assert!(matches!(&events[n - 2], TurnEvent::Error { code: c, .. } if c.as_str() == code), "{events:?}");
    // Issue 33: the end line says a stop, and only a stop.
    let stopped = code == "stopped";
    assert!(matches!(events[n - 1], TurnEvent::End { stopped: s, .. } if s == stopped), "{events:?}");
}

/// A word, then `: ping` every 10 ms, never `[DONE]`.
fn keep_alive() -> Step {
    let mut chunks = openai::text_chunks(["Let me think"]);
    chunks.push(Chunk::KeepAlive(10));
    Step::Stream(chunks)
}

/// Issue 32: an AI that keeps its stream open with keep-alive comments
/// ends the turn at the turn's deadline, `ai_turn_too_long`, and the turn
/// is taken back out of the conversation.
#[tokio::test(flavor = "multi_thread")]
async fn issue_32_a_keep_alive_stream_ends_the_turn_at_its_deadline() {
    let f = fixture();
    let ai = ScriptedAi::start(Script::with_turns(vec![keep_alive()])).await;
    let limit = Duration::from_millis(500);
    let mut companion = on_pc(&f, &ai, Limits::DEFAULT).with_turn_limit(limit);
    let (result, events) = turn(&mut companion, "hello", std::future::pending()).await;
    let error = result.expect_err("a stream that never ends is no answer");
    assert!(
        matches!(&error, TurnError::Ai(AiError::TurnTooLong { limit: l, .. }) if *l == limit),
        "the turn's own deadline: {error:?}"
    );
    assert_eq!(error.code().as_str(), "ai_turn_too_long");
    assert!(events.contains(&TurnEvent::Delta { text: "Let me think".into() }), "the stream had begun: {events:?}");
    ended_with(&events, "ai_turn_too_long");
    assert!(companion.conversation().is_empty(), "the turn is taken back out");
}

/// Issue 32: a stop while the AI streams ends the turn at once, `stopped`
/// (the stream waits on a pause no one releases, with limits of an hour),
/// and no request follows.
#[tokio::test(flavor = "multi_thread")]
async fn issue_32_a_stop_while_the_ai_streams_ends_the_turn_at_once() {
    let f = fixture();
    let ai = ScriptedAi::start(Script::with_turns(vec![openai::text(["Hel", "lo"]).pause_after(2)])).await;
    let hour = Duration::from_secs(3600);
    let mut companion =
        on_pc(&f, &ai, Limits { first_byte: hour, between_chunks: hour, answer: hour }).with_turn_limit(hour);
    let streaming = Arc::new(Notify::new());
    let seen = streaming.clone();
    let token = CancellationToken::new();
    let mut events = Vec::new();
    let said = Said { source: Source::Keyboard, live: false, text: "hello".into() };
    let stop = async {
        seen.notified().await;
        token.cancel();
    };
    let record = |e| {
        if matches!(e, TurnEvent::Delta { .. }) {
            streaming.notify_one();
        }
        events.push(e)
    };
    let say = companion.say(said, None, token.clone()).finish(record);
    let (result, ()) = tokio::time::timeout(GUARD, async { tokio::join!(say, stop) }).await.expect("ended at once");
    assert_eq!(result.map_err(|e| e.code().as_str()).err(), Some("stopped"));
    assert_eq!(events.iter().filter(|e| matches!(e, TurnEvent::Delta { .. })).count(), 1, "{events:?}");
    ended_with(&events, "stopped");
    assert!(companion.conversation().is_empty(), "the turn is taken back out");
    assert_eq!(ai.chats().len(), 1);
}

/// Issue 32: a stop while a tool call is at the PC's program: the turn
/// ends at once, `stopped`; the call already sent finishes and keeps its
/// journal line; no further request goes to the AI.
#[tokio::test(flavor = "multi_thread")]
async fn issue_32_a_stop_during_a_call_lets_the_call_finish_and_sends_nothing_after() {
    let arrived = Arc::new(Notify::new());
    let (release, held) = mpsc::channel::<()>();
    let held = Mutex::new(held);
    let at_program = arrived.clone();
    let pc = pc_server_answering(free_port(), move |authorization| {
        assert!(authorization.is_some_and(|a| a.contains(TOKEN)));
        at_program.notify_one();
        let _ = held.lock().expect("one request at a time").recv();
        ("200 OK", r#"{"saved":true}"#.to_owned())
    });
    let f = profile(&pc).await;
    let ai = ScriptedAi::start(Script::with_turns(vec![
        openai::tool_calls(&[("n1", "mypc__add_note", r#"{"text":"tea"}"#)], 0),
        openai::text(["Noted."]),
    ]))
    .await;
    let mut companion = on_pc(&f, &ai, Limits::DEFAULT);
    let mut journal = f.host.subscribe();
    let (result, events) = turn(&mut companion, "note tea", arrived.notified()).await;
    assert_eq!(result.map_err(|e| e.code().as_str()).err(), Some("stopped"));
    ended_with(&events, "stopped");
    assert!(tool_lines(&events).is_empty(), "the turn ended before the call did: {events:?}");

    release.send(()).expect("the program waits");
    let line = next_event(&mut journal, GUARD, |e| matches!(e, HostEvent::JournalAdded { .. })).await;
    let HostEvent::JournalAdded { entry } = line else { unreachable!("matched above") };
    assert_eq!((entry.plugin.as_str(), entry.action.as_str()), ("mypc", "add_note"));
    let lines = f.host.journal(JournalQuery { limit: 10, ..JournalQuery::default() }).await.expect("journal");
    assert_eq!(lines.len(), 1, "the call's line is in the journal");
    assert_eq!(pc.requests.load(Ordering::SeqCst), 1);
    assert_eq!(ai.chats().len(), 1, "nothing was sent to the AI after the stop");
    assert!(companion.conversation().is_empty());
}

/// The same scripted AI reached as an online service,
/// `https://ai.example.com/v1`, through the network filter's test hooks.
fn online(f: &Fixture, ai: &ScriptedAi, pki: &TestPki) -> Companion {
    let url = judge_ai_url("https://ai.example.com/v1").expect("an online URL");
    let public = "93.184.216.40";
    let overrides = dcp_net::TestOverrides {
        dns: vec![("ai.example.com".into(), vec![public.parse().expect("ip")])],
        connect: [(format!("{public}:443").parse().expect("addr"), ai.addr())].into(),
        ca_pem: Some(pki.ca_pem.clone().into_bytes()),
    };
    let key = Some(Sensitive::new("sk-online-test-key".into()));
    Companion::new(f.host.clone(), Connection::new(url, MODEL.into(), key).with_test_overrides(overrides))
}

/// Issue 32: one online answer asking for 200 distinct notes runs
/// [`CALLS_PER_STEP`] of them (the program counts), answers the rest it
/// kept "not run", `call_limit`, and the next request answers every call
/// id it carries (the answer's calls past [`CALLS_PER_ANSWER`] are dropped,
/// never sent back).
#[tokio::test(flavor = "multi_thread")]
async fn issue_32_two_hundred_calls_in_one_online_answer_run_five() {
    let pc = program();
    let f = profile(&pc).await;
    f.host.set_cloud("mypc", CloudChoice::Allow).await.expect("allowed with an online AI");
    let notes = Chunk::Calls { count: 200, name: "mypc__add_note".into(), arguments: r#"{"text":"note {n}"}"#.into() };
    let script = Script::with_turns(vec![Step::Stream(vec![notes]), openai::text(["Done."])]);
    let pki = TestPki::new(&["ai.example.com"]).expect("pki");
    let ai = ScriptedAi::start_tls(script, &pki.cert_pem, &pki.key_pem).await;
    let mut companion = online(&f, &ai, &pki);
    let (result, events) = turn(&mut companion, "200 notes", std::future::pending()).await;
    assert_eq!(result.expect("an answer"), "Done.");
    assert_eq!(pc.requests.load(Ordering::SeqCst), CALLS_PER_STEP, "the program received 5 notes");
    let lines = tool_lines(&events);
    assert_eq!(lines.len(), CALLS_PER_ANSWER);
    assert!(lines[..CALLS_PER_STEP].iter().all(|l| *l == (JournalOutcome::Done, None)), "{lines:?}");
    let not_run = (JournalOutcome::Refused, Some(Refusal::CallLimit));
    assert!(lines[CALLS_PER_STEP..].iter().all(|l| *l == not_run), "{lines:?}");
    let sent = ai.chats();
    assert_eq!(sent.len(), 2);
    let (calls, answers) = calls_and_answers(&sent[1]);
    assert_eq!(calls.len(), CALLS_PER_ANSWER);
    assert_eq!(answers, calls, "every call id answered, in order");
    let text = sent[1].body["messages"].to_string();
    assert_eq!(text.matches(&Refusal::CallLimit.for_ai()).count(), CALLS_PER_ANSWER - CALLS_PER_STEP);
}

/// Issue 32: an answer of 100,000 calls with ids keeps
/// [`CALLS_PER_ANSWER`]; the request that follows carries those only and
/// stays small (such an answer made 125 MB requests).
#[tokio::test(flavor = "multi_thread")]
async fn issue_32_an_answer_of_100000_calls_sends_back_a_small_request() {
    let pc = program();
    let f = profile(&pc).await;
    let calls = Chunk::Calls { count: 100_000, name: "mypc__add_note".into(), arguments: r#"{"text":"{n}"}"#.into() };
    let ai = ScriptedAi::start(Script::with_turns(vec![Step::Stream(vec![calls]), openai::text(["ok"])])).await;
    let mut companion = on_pc(&f, &ai, Limits::DEFAULT);
    let (result, events) = turn(&mut companion, "notes", std::future::pending()).await;
    assert_eq!(result.expect("an answer"), "ok");
    assert_eq!(tool_lines(&events).len(), CALLS_PER_ANSWER);
    assert_eq!(pc.requests.load(Ordering::SeqCst), 1, "an AI on the PC: one call per step");
    let sent = ai.chats();
    let (calls, answers) = calls_and_answers(&sent[1]);
    assert_eq!((calls.len(), answers.len()), (CALLS_PER_ANSWER, CALLS_PER_ANSWER));
    let size = sent[1].body.to_string().len();
    assert!(size < 64 * 1024, "the next request is {size} bytes");
}

/// The player's asker of the R3 test below: says when it is asked, then
/// says yes once `yes` is notified (late, after the turn was stopped).
struct LateYes {
    asked: Arc<Notify>,
    yes: Arc<Notify>,
}

impl dcp_host::Ask for LateYes {
    fn confirm(&self, _question: dcp_host::Question) -> dcp_host::Answer<'_> {
        self.asked.notify_one();
        Box::pin(async move {
            self.yes.notified().await;
            dcp_host::Decision::Confirmed
        })
    }
}

/// Issue 32 (§12 "confirmed every time"): a turn stopped while its R3
/// question is open withdraws the question. The host finishes a call its
/// turn let go of, so before this a yes given after the stop still sent
/// the request; now the call ends declined and nothing reaches the program.
/// The same turn left alone sends on that yes (the test would see a send).
#[tokio::test(flavor = "multi_thread")]
async fn issue_32_a_stop_withdraws_an_open_r3_question() {
    for stop in [false, true] {
        let pc = program();
        let f = fixture();
        dev_mode(&f.host, true).await;
        let mut manifest = example_on_port("local-server", pc.port);
        let tool = &mut manifest["_meta"]["com.desktopaicompanion"]["tools"]["add_note"];
        tool["sideEffects"] = "irreversible".into();
        install_manifest(&f.host, f.dir.path(), "mypc", &manifest, with_token()).await;
        let ai = ScriptedAi::start(Script::with_turns(vec![
            openai::tool_calls(&[("n1", "mypc__add_note", r#"{"text":"tea"}"#)], 0),
            openai::text(["Noted."]),
        ]))
        .await;
        let mut companion = on_pc(&f, &ai, Limits::DEFAULT);
        let (asked, yes) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
        let ask: Arc<dyn dcp_host::Ask> = Arc::new(LateYes { asked: asked.clone(), yes: yes.clone() });
        let mut journal = f.host.subscribe();
        let token = CancellationToken::new();
        let said = Said { source: Source::Keyboard, live: false, text: "note tea".into() };
        let mut events = Vec::new();
        let record = |e| events.push(e);
        let answering = async {
            asked.notified().await;
            if stop {
                token.cancel();
            }
            yes.notify_one();
            std::future::pending::<()>().await
        };
        let result = tokio::select! {
            result = tokio::time::timeout(GUARD, companion.say(said, Some(ask), token.clone()).finish(record)) => result,
            () = answering => unreachable!("pending"),
        };
        let line = next_event(&mut journal, GUARD, |e| matches!(e, HostEvent::JournalAdded { .. })).await;
        let HostEvent::JournalAdded { entry } = line else { unreachable!("matched above") };
        let decision = entry.confirmation.as_ref().map(|d| d.as_str().to_owned());
        if stop {
            assert_eq!(result.expect("the turn ended").map_err(|e| e.code().as_str()).err(), Some("stopped"));
            assert_eq!(entry.outcome.as_str(), "refused", "{entry:?}");
            assert_eq!(decision.as_deref(), Some("declined"), "{entry:?}");
            assert_eq!(pc.requests.load(Ordering::SeqCst), 0, "the withdrawn question sent nothing");
        } else {
            assert_eq!(result.expect("the turn ended").ok().as_deref(), Some("Noted."));
            assert_eq!(decision.as_deref(), Some("confirmed"), "{entry:?}");
            assert_eq!(pc.requests.load(Ordering::SeqCst), 1, "a yes sends");
        }
    }
}

/// Issue 33: a shell that drops a turn's stream mid-answer stops the turn
/// as its token does: the turn is taken back out of the conversation, the
/// door hears the companion listening again, and the next turn answers.
#[tokio::test(flavor = "multi_thread")]
async fn issue_33_dropping_the_stream_stops_the_turn() {
    let f = fixture();
    let script = Script::with_turns(vec![openai::text(["Hel", "lo"]).pause_after(2), openai::text(["Hi."])]);
    let ai = ScriptedAi::start(script).await;
    let hour = Duration::from_secs(3600);
    let mut companion =
        on_pc(&f, &ai, Limits { first_byte: hour, between_chunks: hour, answer: hour }).with_turn_limit(hour);
    let heard = Arc::new(Mutex::new(Vec::new()));
    let told = heard.clone();
    companion.set_presence(Box::new(move |state| told.lock().expect("the presence's list").push(state)));
    let said = Said { source: Source::Keyboard, live: false, text: "hello".into() };
    let mut stream = companion.say(said, None, CancellationToken::new());
    let first_piece = async {
        while let Some(event) = stream.next().await {
            if matches!(event, TurnEvent::Delta { .. }) {
                return;
            }
        }
        panic!("the turn ended before its answer streamed");
    };
    tokio::time::timeout(GUARD, first_piece).await.expect("the answer streams");
    drop(stream);
    assert!(companion.conversation().is_empty(), "the turn is taken back out");
    let states = heard.lock().expect("the presence's list").clone();
    assert_eq!(states, [CompanionState::Answering, CompanionState::Listening]);
    let (result, _) = turn(&mut companion, "again", std::future::pending()).await;
    assert_eq!(result.expect("the next turn answers"), "Hi.");
}
