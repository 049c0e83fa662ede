//! A tool call through the host while its request is out (§3 "A tool
//! call", §14 "Concurrency"; issue 21): no store is held meanwhile, so the
//! profile goes on being read and written; another call of the plugin is
//! BUSY until the first has its line; the line reported for a call is the
//! call's own, whatever was written while it waited; and a caller that
//! stops waiting does not cost the call its line nor the plugin its lock.

mod common;

use common::*;
use dcp_format::codes::{CallCode, Refusal, ToolCode};
use dcp_format::names::ToolRef;
use dcp_host::events::HostEvent;
use dcp_host::{Host, JournalOutcome, JournalQuery, Place, Source, Turn};
use serde_json::json;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

const ANSWER: &str = r#"{"time":"12:34","date":"2026-11-30"}"#;
/// Far beyond a normal run: only a call that never ends reaches it.
const LIMIT: Duration = Duration::from_secs(30);

fn turn(source: Source) -> Turn {
    Turn::new(source, Place::Pc)
}

/// A program on the PC that says when a request arrived and answers it
/// only once the test releases it.
struct HeldServer {
    port: u16,
    arrived: UnboundedReceiver<()>,
    release: std::sync::mpsc::Sender<()>,
}

fn held_server() -> HeldServer {
    let (arrived_tx, arrived) = tokio::sync::mpsc::unbounded_channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let server = pc_server_answering(free_port(), move |_| {
        let _ = arrived_tx.send(());
        let _ = released.recv();
        ("200 OK", ANSWER.to_owned())
    });
    HeldServer { port: server.port, arrived, release }
}

/// A host with the local-server example installed as `mypc`, talking to
/// a held server.
async fn setup() -> (Fixture, HeldServer) {
    setup_on(fixture()).await
}

/// [`setup`] with the host of `f`.
async fn setup_on(f: Fixture) -> (Fixture, HeldServer) {
    let server = held_server();
    install_pc_example(&f, "mypc", server.port, with_token()).await;
    (f, server)
}

/// Calls `mypc__get_time` in a task of its own.
fn call_in_flight(host: &Host) -> tokio::task::JoinHandle<dcp_host::ApiResult<dcp_host::CallOutcome>> {
    let host = host.clone();
    tokio::spawn(async move { host.call(turn(Source::Voice), "mypc__get_time", json!({})).await })
}

/// The next `count` call ends and journal lines on the stream.
async fn call_events(events: &mut tokio::sync::broadcast::Receiver<HostEvent>, count: usize) -> Vec<HostEvent> {
    let mut seen = Vec::new();
    while seen.len() < count {
        seen.push(
            next_event(events, LIMIT, |e| matches!(e, HostEvent::CallFinished { .. } | HostEvent::JournalAdded { .. }))
                .await,
        );
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_the_line_reported_for_a_call_is_its_own_whatever_was_written_while_it_waited() {
    let (f, mut server) = setup().await;
    let mut events = f.host.subscribe();
    let waiting = call_in_flight(&f.host);
    server.arrived.recv().await.expect("the request arrived");

    // While it waits: another plugin's line, and this plugin BUSY (§14).
    let other = f.host.call(turn(Source::Auto), "fx__convert", json!({})).await.expect("call");
    assert_eq!(other.reason, Some(Refusal::NotRequested));
    let busy = f.host.call(turn(Source::Voice), "mypc__get_time", json!({})).await.expect("call");
    assert_eq!(busy.code, Some(ToolCode::Call(CallCode::Busy)), "{}", busy.for_ai);
    let before = f.host.journal(JournalQuery { limit: 10, ..Default::default() }).await.expect("journal");
    let lines: Vec<(&str, &str)> = before.iter().map(|e| (e.plugin.as_str(), e.outcome.as_str())).collect();
    assert_eq!(lines, [("mypc", "failed"), ("fx", "refused")], "the call in flight has no line yet");

    server.release.send(()).expect("release");
    let done = waiting.await.expect("the task").expect("call");
    assert_eq!(done.outcome, JournalOutcome::Done, "{}", done.for_ai);
    assert!(done.for_ai.contains("12:34"), "{}", done.for_ai);

    // Each call's end, then its own line.
    let seen = call_events(&mut events, 6).await;
    let journal = f.host.journal(JournalQuery { limit: 10, ..Default::default() }).await.expect("journal");
    for pair in seen.chunks(2) {
        let [HostEvent::CallFinished { tool, outcome, .. }, HostEvent::JournalAdded { entry }] = pair else {
            panic!("a call's end, then its line: {pair:?}");
        };
        let named = ToolRef::new(&entry.plugin, &entry.action).expect("a tool");
        assert_eq!((named.as_str(), entry.outcome.as_str()), (tool.as_str(), outcome.as_str()));
        let listed = journal.iter().find(|l| l.id == entry.id).expect("listed under its id");
        assert_eq!(serde_json::to_value(listed).expect("JSON"), serde_json::to_value(entry).expect("JSON"));
    }
    let HostEvent::JournalAdded { entry } = &seen[5] else { unreachable!() };
    assert_eq!((entry.plugin.as_str(), entry.outcome.as_str()), ("mypc", "done"));
    assert_eq!(entry.id, journal[0].id, "written when it finished, after the lines written while it waited");
}

/// The caller and the host on one runtime, as in the window (issue 33):
/// the call is a task of that runtime, which outlives its caller.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_a_call_whose_caller_stops_waiting_still_gets_its_line_and_frees_the_plugin() {
    let (f, mut server) = setup_on(fixture_on_this_runtime()).await;
    let mut events = f.host.subscribe();
    let waiting = call_in_flight(&f.host);
    server.arrived.recv().await.expect("the request arrived");
    waiting.abort();
    assert!(waiting.await.expect_err("stopped waiting").is_cancelled());

    server.release.send(()).expect("release");
    let line = next_event(&mut events, LIMIT, |e| matches!(e, HostEvent::JournalAdded { .. })).await;
    let HostEvent::JournalAdded { entry } = line else { unreachable!() };
    assert_eq!((entry.action.as_str(), entry.outcome.as_str()), ("get_time", "done"));

    server.release.send(()).expect("release the next one");
    let next = f.host.call(turn(Source::Voice), "mypc__get_time", json!({})).await.expect("call");
    assert_eq!(next.outcome, JournalOutcome::Done, "the lock was given back: {}", next.for_ai);
}

/// A name that is not `<slug>__<tool>` names no plugin (issue 21's
/// `ToolRef`): refused `unknown_tool` before any plugin is read, its line
/// keeping the name as given with no action. A near miss of an installed
/// tool is not taken for it, and the real name still works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_a_name_that_is_no_tool_ref_is_refused_unknown_tool() {
    let (f, mut server) = setup().await;
    for bad in ["mypc", "mypc__", "__get_time", "Mypc__get_time", "mypc__Get_time"] {
        let out = f.host.call(turn(Source::Voice), bad, json!({})).await.expect("call");
        assert_eq!((out.outcome, out.reason), (JournalOutcome::Refused, Some(Refusal::UnknownTool)), "{bad}");
        let newest = f.host.journal(JournalQuery { limit: 1, ..Default::default() }).await.expect("journal");
        assert_eq!((newest[0].plugin.as_str(), newest[0].action.as_str()), (bad, ""), "{bad}");
    }
    // Well formed, but no such action: the plugin is named, the action refused.
    let out = f.host.call(turn(Source::Voice), "mypc__get_time__x", json!({})).await.expect("call");
    assert_eq!((out.outcome, out.reason), (JournalOutcome::Refused, Some(Refusal::UnknownTool)));
    let newest = f.host.journal(JournalQuery { limit: 1, ..Default::default() }).await.expect("journal");
    assert_eq!((newest[0].plugin.as_str(), newest[0].action.as_str()), ("mypc", "get_time__x"));
    assert!(server.arrived.try_recv().is_err(), "no refused name reached the plugin's server");
    let call = call_in_flight(&f.host);
    tokio::time::timeout(LIMIT, server.arrived.recv()).await.expect("the real name reaches the server");
    server.release.send(()).expect("release");
    let done = call.await.expect("task").expect("call");
    assert_eq!(done.outcome, JournalOutcome::Done, "{}", done.for_ai);
}
