//! The turn engine's overhead on a whole turn (issue 22, "Proof"): a
//! player's words through `Companion::say` — the offer and the system
//! message built from the real SQLite profile, the streamed reply
//! assembled, one tool call of the local-server example through the host's
//! whole pipeline (courtier, request builder, network filter, framing,
//! journal line), the result sent back, the answer streamed — against the
//! same work done directly with reqwest: the same two chat requests posted
//! to the same scripted server and read to the end of their streams, and
//! the same plugin request, measured in the same run. Printed as the ratio
//! of the medians (target ≤ 1.1×), with the time to the first streamed word
//! (the first `TurnEvent::Delta`) beside the direct one's. Then the host's
//! parts a turn awaits (`offer`, `switches`, `call`), each timed alone, so
//! the excess is split between what the host costs and the engine's own
//! work (building requests, decoding the streams).
//!
//! The direct baseline uses connections as the engine does, so that the
//! ratio holds what the engine and the host add, not a difference in how
//! connections are made: one kept-alive client for the
//! AI (a `Connection` keeps its client for every request), a new connection
//! for the plugin (the pipeline pins each call's connection to the
//! addresses the filter checked, §14; the program closes it anyway).
//!
//! Both run on the host's runtime, through `Host::block_on`, as the command
//! line runs a turn.
//!
//! Then Stop to idle (issue 33, target ≤ 100 ms): a turn whose AI is still
//! streaming (a piece every few milliseconds, far more pieces than the run
//! waits for) is stopped by cancelling its token after its first pieces;
//! the time is from the cancel until the turn's stream ended, its `end`
//! line read and the companion free for the next message.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::{criterion_group, criterion_main, Criterion};
use dcp_ai::{judge_ai_url, Connection};
use dcp_companion::{CancellationToken, Companion, Said, TurnError, TurnEvent};
use dcp_host::{Host, HostOptions, InstallOptions, JournalOutcome, Place, Sensitive, Source, SwitchesPatch, Turn};
use dcp_vault::testing::MemoryKeyStore;
use scripted_ai::{openai, Chunk, Options, Script, ScriptedAi, Step, MODEL};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-program-token";
const PROGRAM_ANSWER: &str = r#"{"time":"12:00","date":"2026-12-02"}"#;
const ASKED: &str = "What time is it on my PC?";
/// The answer of step 2, streamed piece by piece.
const PIECES: [&str; 4] = ["It is ", "12:00 ", "on your ", "PC."];
/// The slow AI of Stop to idle: a piece every this many milliseconds…
const SLOW_EVERY_MS: u64 = 5;
/// … this many pieces (a minute: it never ends on its own within a run)…
const SLOW_PIECES: usize = 12_000;
/// … stopped once this many have been streamed.
const STOP_AFTER: usize = 3;

/// A loopback port that §15 does not reserve, bound.
fn listener() -> TcpListener {
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        if dcp_format::hosts::reserved_port(listener.local_addr().expect("addr").port()).is_none() {
            return listener;
        }
    }
}

/// The player's program on the PC (§15), in a thread of its own: answers
/// each request with [`PROGRAM_ANSWER`] when it carries the token, and
/// closes the connection, as a small script's server does.
struct Program {
    port: u16,
    requests: Arc<AtomicUsize>,
}

fn program() -> Program {
    let listener = listener();
    let port = listener.local_addr().expect("addr").port();
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(&stream);
            let mut authorized = false;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let (name, value) = line.split_once(':').unwrap_or((&line, ""));
                authorized |= name.eq_ignore_ascii_case("authorization") && value.contains(TOKEN);
            }
            let (status, body) = if authorized { ("200 OK", PROGRAM_ANSWER) } else { ("401 Unauthorized", "{}") };
            let answer = format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    Program { port, requests }
}

/// A host on a temp profile in developer mode with the local-server example
/// installed on `port`, its token saved.
fn host(dir: &Path, port: u16) -> Host {
    let door = listener().local_addr().expect("addr").port();
    let host = Host::open(HostOptions {
        profile: Some(dir.join("profile")),
        key_store: Some(Arc::new(MemoryKeyStore::new())),
        door_port: Some(door),
        ..Default::default()
    })
    .expect("the host opens");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples/local-server/manifest.json");
    let manifest = std::fs::read_to_string(example).expect("the example").replace("8420", &port.to_string());
    let folder = dir.join("mypc");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("manifest.json"), manifest).expect("write");
    let secrets = vec![("token".into(), Sensitive::new(TOKEN.into()))];
    host.block_on(async {
        host.set_switches(SwitchesPatch { dev_mode: Some(true), ..Default::default() }).await.expect("dev mode");
        let review = host.import_path(folder.join("manifest.json")).await.expect("review");
        host.install(&review.review, InstallOptions { secrets, ..Default::default() }).await.expect("install");
    });
    host
}

/// One turn through the engine, a new conversation each time (the same
/// two requests every turn); gives the time to the first streamed word.
async fn through(companion: &mut Companion) -> Duration {
    companion.new_conversation();
    let said = Said { source: Source::Keyboard, live: false, text: ASKED.into() };
    let start = Instant::now();
    let mut first_word = None;
    let answer = companion
        .say(said, None, CancellationToken::new())
        .finish(|event| {
            if matches!(&event, TurnEvent::Delta { text } if !text.is_empty()) && first_word.is_none() {
                first_word = Some(start.elapsed());
            }
        })
        .await;
    assert_eq!(answer.expect("the turn ends with an answer"), PIECES.concat());
    first_word.expect("the answer streamed")
}

/// The same turn without the engine: the two chat requests it sent, posted
/// as they were, and the plugin's request between them.
struct Direct {
    ai: reqwest::Client,
    plugin: reqwest::Client,
    chat_url: String,
    time_url: String,
    bodies: [Vec<u8>; 2],
}

impl Direct {
    fn chat(&self, body: &[u8]) -> reqwest::RequestBuilder {
        self.ai
            .post(&self.chat_url)
            .header("accept", "text/event-stream, application/json")
            .header("content-type", "application/json")
            .body(body.to_vec())
    }

    /// Gives the time to the first word: when the stream of the second
    /// request has brought the first piece of the answer.
    async fn turn(&self) -> Duration {
        let start = Instant::now();
        let step1 = self.chat(&self.bodies[0]).send().await.expect("sent").bytes().await.expect("stream");
        assert!(step1.ends_with(b"data: [DONE]\n\n"));
        self.program().await;
        let mut step2 = self.chat(&self.bodies[1]).send().await.expect("sent");
        let first_piece = serde_json::json!({ "content": PIECES[0] }).to_string();
        let first_piece = &first_piece[1..first_piece.len() - 1];
        let (mut seen, mut first_word) = (Vec::new(), None);
        while let Some(chunk) = step2.chunk().await.expect("stream") {
            seen.extend_from_slice(&chunk);
            if first_word.is_none() && contains(&seen, first_piece.as_bytes()) {
                first_word = Some(start.elapsed());
            }
        }
        assert!(seen.ends_with(b"data: [DONE]\n\n"));
        first_word.expect("the answer streamed")
    }

    /// The plugin's request, as the pipeline sends it.
    async fn program(&self) {
        let request = self.plugin.get(&self.time_url).header("authorization", format!("Bearer {TOKEN}"));
        let result = request.send().await.expect("sent").bytes().await.expect("body");
        assert_eq!(result.len(), PROGRAM_ANSWER.len());
    }
}

/// An AI still writing: [`SLOW_PIECES`] pieces, one every [`SLOW_EVERY_MS`].
fn slow_answer() -> Step {
    let mut chunks = openai::text_chunks(["Well"]);
    for _ in 1..SLOW_PIECES {
        chunks.push(Chunk::DelayMs(SLOW_EVERY_MS));
        chunks.extend(openai::text_chunks([" and"]).into_iter().skip(1));
    }
    Step::Stream(chunks)
}

/// One turn of the slow AI stopped after [`STOP_AFTER`] pieces, as a
/// shell does: the time from the token's cancel until the turn's stream
/// ended (its `end` line read, the companion free for the next turn).
async fn stop_to_idle(companion: &mut Companion) -> Duration {
    let stop = CancellationToken::new();
    let said = Said { source: Source::Keyboard, live: false, text: ASKED.into() };
    let mut turn = companion.say(said, None, stop.clone());
    let mut pieces = 0;
    while pieces < STOP_AFTER {
        match turn.next().await {
            Some(TurnEvent::Delta { .. }) => pieces += 1,
            Some(_) => {}
            None => panic!("the turn ended before it was stopped"),
        }
    }
    let asked = Instant::now();
    stop.cancel();
    while turn.next().await.is_some() {}
    let idle = Instant::now();
    assert!(matches!(turn.ended(), Some(Err(TurnError::Stopped))), "{:?}", turn.ended());
    idle - asked
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("dir");
    let program = program();
    let host = host(dir.path(), program.port);
    // Step 1 calls the tool, step 2 answers; replayed for every turn.
    let script =
        Script::with_turns(vec![openai::tool_calls(&[("call_1", "mypc__get_time", "{}")], 0), openai::text(PIECES)]);
    let ai = ScriptedAi::launch(script, Options { repeat: true, ..Options::default() }).expect("the AI starts");
    let url = judge_ai_url(&ai.url()).expect("a loopback URL is an AI on this PC");
    let mut companion = Companion::new(host.clone(), Connection::new(url, MODEL.into(), None));

    // One turn first, checked whole: the benchmark measures a turn that
    // did what it should, and the baseline replays what the AI received.
    let mut events = Vec::new();
    let said = Said { source: Source::Keyboard, live: false, text: ASKED.into() };
    let answer = host
        .block_on(companion.say(said, None, CancellationToken::new()).finish(|e| events.push(e)))
        .expect("the turn answers");
    assert_eq!(answer, PIECES.concat());
    let done: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::Tool { tool, outcome, .. } => Some((tool.as_str(), *outcome)),
            _ => None,
        })
        .collect();
    assert_eq!(done, [("mypc__get_time", JournalOutcome::Done)], "{events:?}");
    assert_eq!(program.requests.load(Ordering::SeqCst), 1, "the program received the call");
    let chats: Vec<Vec<u8>> = ai
        .received()
        .into_iter()
        .filter(|r| r.path == "/v1/chat/completions")
        .map(|r| serde_json::to_vec(&r.body).expect("JSON"))
        .collect();
    let [first, second]: [Vec<u8>; 2] = chats.try_into().expect("two chat requests");
    assert!(contains(&second, b"\"role\":\"tool\""), "the second request carries the tool's result");

    // reqwest is built without a default crypto provider (dcp-net passes its own).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let direct = Direct {
        ai: reqwest::Client::builder().no_proxy().http1_only().build().expect("client"),
        plugin: reqwest::Client::builder().no_proxy().http1_only().pool_max_idle_per_host(0).build().expect("client"),
        chat_url: format!("{}/chat/completions", ai.url()),
        time_url: format!("http://127.0.0.1:{}/time", program.port),
        bodies: [first, second],
    };

    let mut group = c.benchmark_group("turn");
    group.bench_function("engine", |b| b.iter(|| host.block_on(through(&mut companion))));
    group.bench_function("direct", |b| b.iter(|| host.block_on(direct.turn())));
    group.finish();

    // Interleaved, so that a busy machine slows each alike. Beside the
    // turn, the host's parts the engine awaits, each alone (a turn awaits
    // the offer and the switches once per request, the call once), so that
    // what the engine adds of its own can be told from what the host costs.
    let runs = 300;
    let mut totals: [Vec<Duration>; 2] = Default::default();
    let mut first_words: [Vec<Duration>; 2] = Default::default();
    let mut parts: [Vec<Duration>; 4] = Default::default();
    for n in 0..runs {
        let start = Instant::now();
        first_words[0].push(host.block_on(through(&mut companion)));
        totals[0].push(start.elapsed());
        let start = Instant::now();
        first_words[1].push(host.block_on(direct.turn()));
        totals[1].push(start.elapsed());

        let turn = Turn { id: Some(format!("bench-{n}")), step: Some(1), ..Turn::new(Source::Keyboard, Place::Pc) };
        parts[0].push(timed(|| drop(host.block_on(host.offer(turn.clone())).expect("offer"))));
        parts[1].push(timed(|| {
            let _ = host.block_on(host.switches()).expect("switches");
        }));
        parts[2].push(timed(|| {
            let outcome = host.block_on(host.call(turn, "mypc__get_time", serde_json::json!({}))).expect("call");
            assert!(outcome.for_ai.contains("12:00"), "{}", outcome.for_ai);
        }));
        parts[3].push(timed(|| host.block_on(direct.program())));
    }
    let [engine, baseline] = totals.map(median);
    let [engine_word, baseline_word] = first_words.map(median);
    let [offer, switches, call, program] = parts.map(median);
    let ratio = engine.as_secs_f64() / baseline.as_secs_f64();
    let verdict = if ratio <= 1.1 { "PASS" } else { "OVER" };
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    let host_adds = micros(offer) + micros(switches) + micros(call) - micros(program);
    let engine_adds = micros(engine) - micros(baseline) - host_adds;
    println!("\na turn with one tool call, p50 over {runs} runs each (same servers, same run):");
    println!("  through the engine            {engine:>10.1?}   first word {engine_word:>10.1?}");
    println!("  two round trips + the call    {baseline:>10.1?}   first word {baseline_word:>10.1?}");
    println!("  engine / direct = {ratio:.2}x (target <= 1.1x): {verdict}");
    println!(
        "  the host's parts, each alone: offer {offer:.1?} and switches {switches:.1?} (1 of each a turn), \
         call {call:.1?} (1; its request made directly {program:.1?})"
    );
    println!("  so the host adds ~{host_adds:.0}µs a turn, the engine's own work ~{engine_adds:.0}µs");

    // Stop to idle (issue 33), against an AI that keeps streaming.
    let slow =
        ScriptedAi::launch(Script::with_turns(vec![slow_answer()]), Options { repeat: true, ..Options::default() })
            .expect("the slow AI starts");
    let url = judge_ai_url(&slow.url()).expect("a loopback URL is an AI on this PC");
    let mut stopped = Companion::new(host.clone(), Connection::new(url, MODEL.into(), None));
    let stops = 100;
    let mut times: Vec<Duration> = (0..stops).map(|_| host.block_on(stop_to_idle(&mut stopped))).collect();
    times.sort();
    let (p50, worst) = (times[stops / 2], times[stops - 1]);
    let verdict = if worst <= Duration::from_millis(100) { "PASS" } else { "OVER" };
    println!(
        "\nStop to idle, the AI still streaming (a piece every {SLOW_EVERY_MS} ms), {stops} turns stopped \
         after {STOP_AFTER} pieces:"
    );
    println!("  token cancelled -> stream ended: p50 {p50:.1?}, worst {worst:.1?} (target <= 100 ms): {verdict}");
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
