//! The event door under a flood of bad tokens, beside a plain hyper server
//! measured in the same run (issue 11: the cost of a refused request), and
//! with slow clients (issue 11: slow clients must not shut the door).
//!
//! One bounded client (`tests/support/load.rs`: 8 connections at a time,
//! each sending requests one after another) sends 50,000 bad tokens, two
//! kinds in turn (a wrong token for the installed plugin, a real token for
//! a slug that is not installed: both answered 401), in two modes:
//!
//! * one connection per request, asking the server to close it
//!   (`Connection: close`, as Python's `urllib` does);
//! * keep-alive: each client task keeps its connection for the next
//!   request (a new one only when the server closes it).
//!
//! In each mode, to:
//!
//! * the baseline: hyper 1's HTTP/1 server with its defaults answering
//!   every request with the door's fixed 401 JSON body and checking
//!   nothing;
//! * the door, with a real SQLite profile in a temp folder (the pomodoro
//!   example installed) and the real clock, while a legitimate program
//!   sends a valid event every second (a door of its own per run, so each
//!   program meets fresh limits).
//!
//! The two take turns, baseline first and last, with 2 door runs, since
//! the machine's other load moves a run by up to a fifth: the door's
//! median run is compared with the baseline's median run, and each door
//! run with the faster baseline run beside it.
//!
//! Each server runs on its own tokio runtime built as `dcplugin serve`
//! builds the door's (multi-thread, 2 workers); the client on a third.
//! Printed: requests per second and p50/p99 latency of each, connections
//! opened, the door's throughput against the baseline's (target with a
//! connection per request: at least 0.8), the process's memory, and
//! the legitimate program's answers judged against §21's limits. A bad
//! request answered with the wrong status, a request left unanswered, or an
//! answer to the program that the limits do not explain fails the run.
//!
//! Then the slow-client figure (`tests/support/slow.rs`): 300 connections
//! drip a request head that never ends (a byte every 500 ms) and reconnect
//! as soon as the door closes them, while a program sends a valid event
//! every 11 s: how many of its 4 events were answered 202 within 5 s
//! (`DCP_DOOR_BENCH_SLOW=N` opens N slow connections; 0 skips it).

#![allow(missing_docs)] // a bench binary; the shared test modules are test code

#[path = "../tests/support/load.rs"]
#[allow(dead_code)] // shared with tests/door.rs, which also uses the hand-moved clock
mod load;
#[path = "../tests/support/slow.rs"]
mod slow;
#[path = "../tests/support/world.rs"]
#[allow(dead_code)] // shared with tests/door.rs, which uses all of it
mod world;

use bytes::Bytes;
use dcp_door::{Door, DoorConfig, DoorState, Notice, SystemClock};
use http_body_util::Full;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::{Response, StatusCode};
use load::{Bad, Flood, FloodReport, Pace};
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

/// Requests per run, unless `DCP_DOOR_BENCH_REQUESTS` says otherwise (a
/// flood of a few hundred thousand lasts long enough to see the program's
/// events accepted every 10 s of real time).
const REQUESTS: usize = 50_000;
/// Requests per run when run as a test (`cargo test --benches` passes no
/// `--bench`): a smoke run.
const SMOKE_REQUESTS: usize = 2_000;
const CONNECTIONS: usize = 8;
/// The door's throughput against the baseline's, at least, with a
/// connection per request (issue 11).
const TARGET: f64 = 0.8;
/// Door runs per mode, each between two baseline runs.
const DOOR_RUNS: usize = 2;
/// The legitimate program's pace during a flood.
const EVERY: Duration = Duration::from_secs(1);
/// How much later the door may read its clock than the program read its.
const SLACK: Duration = Duration::from_millis(50);
/// The slow-client scenario of issue 11.
const SLOW: slow::Scenario = slow::Scenario {
    slow: 300,
    drip: Duration::from_millis(500),
    ramp: Duration::from_secs(1),
    events: 4,
    every: Duration::from_secs(11),
    limit: Duration::from_secs(5),
};

/// The runtime of each server, as `dcplugin serve` builds the door's.
fn server_runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

/// A baseline on a free loopback port: hyper's HTTP/1 server with its
/// defaults, answering every request with the door's 401 body for a bad
/// token, without looking at the request.
fn baseline(runtime: &Runtime) -> u16 {
    let port = world::free_port();
    let listener = runtime.block_on(tokio::net::TcpListener::bind(("127.0.0.1", port))).expect("baseline port");
    runtime.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            tokio::spawn(async move {
                let service = hyper::service::service_fn(|_request| async {
                    let mut response =
                        Response::new(Full::new(Bytes::from_static(br#"{"status":"refused","reason":"bad_token"}"#)));
                    *response.status_mut() = StatusCode::UNAUTHORIZED;
                    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                    Ok::<_, Infallible>(response)
                });
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = http1::Builder::new().serve_connection(io, service).await;
            });
        }
    });
    port
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or_else(|| "unknown".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

fn row(name: &str, r: &FloodReport) {
    println!(
        "{name:<34} {:>9.0} {:>10} {:>10} {:>8} {:>7}  {:?}",
        r.rate(),
        ms(r.percentile(50)),
        ms(r.percentile(99)),
        format!("{:.2} s", r.elapsed.as_secs_f64()),
        r.connections,
        r.by_status(),
    );
}

fn requests() -> usize {
    match std::env::var("DCP_DOOR_BENCH_REQUESTS") {
        Ok(n) => n.parse().expect("DCP_DOOR_BENCH_REQUESTS: a number of requests"),
        Err(_) if std::env::args().any(|a| a == "--bench") => REQUESTS,
        Err(_) => SMOKE_REQUESTS,
    }
}

/// A door of its own on a free port, listening, with a count of its
/// `received` notices.
fn start_door(w: &world::World, runtime: &Runtime) -> (Door, u16, Arc<AtomicUsize>) {
    let port = world::free_port();
    let (notices, mut received_notices) = tokio::sync::mpsc::unbounded_channel();
    let received = Arc::new(AtomicUsize::new(0));
    let door = {
        let _inside = runtime.enter();
        let config = DoorConfig { port, ..DoorConfig::default() };
        let door = Door::start(w.door_store(), config, Arc::new(SystemClock::new()), notices);
        let counter = received.clone();
        tokio::spawn(async move {
            while let Some(notice) = received_notices.recv().await {
                if matches!(notice, Notice::Received { .. }) {
                    counter.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        door
    };
    let listening = DoorState::Listening { port };
    for _ in 0..500 {
        if door.state() == listening {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(door.state(), listening, "the door opened");
    (door, port, received)
}

/// One run of the door: a door of its own (fresh limits), the flood, the
/// legitimate program meanwhile; prints what it did, checks its answers.
fn door_run(run: usize, flood: Flood, client: &Runtime, w: &world::World) -> FloodReport {
    let door_runtime = server_runtime();
    let (door, door_port, received) = start_door(w, &door_runtime);
    let rss_before = load::memory_kib("VmRSS");
    let stop = Arc::new(AtomicBool::new(false));
    let program = client.spawn(load::program(door_port, w.token.clone(), Pace::Real(EVERY), stop.clone()));
    let flooded = client.block_on(load::flood(door_port, &w.token, flood));
    stop.store(true, Ordering::SeqCst);
    let sent = client.block_on(program).expect("program");
    let rss_after = load::memory_kib("VmRSS");
    let after_flood = client.block_on(async {
        let request = world::request(door_port, "pomodoro", &"0".repeat(64), world::FOCUS);
        load::exchange(door_port, request.as_bytes(), &mut [0u8; 2048]).await
    });
    let up = door.state() == (DoorState::Listening { port: door_port })
        && after_flood.as_ref().is_ok_and(|a| a.status == 401);
    let unexpected = flooded.unexpected(Bad::door_status);
    println!(
        "  run {run}, door: {} answered, {unexpected} with a status other than 401, {} unanswered; still up after \
         the flood: {}; VmRSS {} before, {} after",
        flooded.answered(),
        flooded.failed,
        if up { "yes" } else { "NO" },
        mib(rss_before),
        mib(rss_after),
    );
    let judged = load::judge(&sent, SLACK);
    println!(
        "  run {run}, legitimate program: {} events sent, one every {EVERY:?}, over {:.1} s; {} accepted (202), the \
         limits allow at most {} (1 every 10 s, 30 an hour); {} refused 429 with Retry-After; {} answers the limits \
         do not explain (timing slack {SLACK:?}); slowest answer {}; door notices 'received': {}",
        judged.sent,
        judged.span.as_secs_f64(),
        judged.accepted,
        judged.at_most,
        judged.limited,
        judged.problems.len(),
        ms(judged.slowest),
        received.load(Ordering::SeqCst),
    );
    for problem in &judged.problems {
        println!("  {problem}");
    }
    door_runtime.block_on(door.stop());
    assert!(up, "the door stayed up: {after_flood:?}");
    assert_eq!(
        (unexpected, flooded.failed),
        (0, 0),
        "every bad request refused with its status: {:?}",
        flooded.statuses
    );
    assert!(judged.problems.is_empty(), "the program's answers follow §21's limits");
    assert!(judged.accepted >= 1, "the program's first event was accepted");
    flooded
}

/// The median of some rates.
fn median(mut rates: Vec<f64>) -> f64 {
    rates.sort_by(f64::total_cmp);
    let n = rates.len();
    if n % 2 == 1 {
        rates[n / 2]
    } else {
        (rates[n / 2 - 1] + rates[n / 2]) / 2.0
    }
}

/// One mode: the baseline and the door in turn, [`DOOR_RUNS`] door runs
/// each between two baseline runs, and the door's throughput against
/// `target`, if any.
fn mode(name: &str, flood: Flood, target: Option<f64>, client: &Runtime, baseline_port: u16, w: &world::World) {
    println!();
    println!(
        "{name}: {} bad tokens per run from {} connections at a time; baseline and door in turn",
        flood.requests, flood.connections
    );
    let mut baselines = vec![client.block_on(load::flood(baseline_port, &w.token, flood))];
    let mut doors = Vec::new();
    for i in 0..DOOR_RUNS {
        doors.push(door_run(2 * i + 2, flood, client, w));
        baselines.push(client.block_on(load::flood(baseline_port, &w.token, flood)));
    }
    let mut runs: Vec<(String, &FloodReport)> = Vec::new();
    for (i, baseline) in baselines.iter().enumerate() {
        if let Some(door) = i.checked_sub(1).and_then(|d| doors.get(d)) {
            runs.push((format!("{} door (+ legitimate program)", 2 * i), door));
        }
        runs.push((format!("{} hyper baseline", 2 * i + 1), baseline));
    }
    println!("{:<34} {:>9} {:>10} {:>10} {:>8} {:>7}  answers", "server (run)", "req/s", "p50", "p99", "time", "conns");
    for (name, report) in runs {
        row(&name, report);
    }
    let door = median(doors.iter().map(FloodReport::rate).collect());
    let baseline = median(baselines.iter().map(FloodReport::rate).collect());
    let ratio = door / baseline;
    let each: Vec<String> = doors
        .iter()
        .enumerate()
        .map(|(i, d)| format!("{:.2}", d.rate() / baselines[i].rate().max(baselines[i + 1].rate())))
        .collect();
    let judged_target = match target {
        Some(t) => format!("target >= {t}: {}", if ratio >= t { "met" } else { "NOT met" }),
        None => "no target".into(),
    };
    println!(
        "throughput door/baseline: {ratio:.2} (median door run {door:.0} req/s / median baseline run {baseline:.0} \
         req/s; {judged_target}); each door run against the faster baseline run beside it: {}",
        each.join(", ")
    );
}

fn main() {
    let requests = requests();
    let smoke = requests == SMOKE_REQUESTS && !std::env::args().any(|a| a == "--bench");
    let client = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let w = world::world();
    println!(
        "dcp-door load bench: bad tokens in turn (a wrong token for the installed plugin, a real token for a slug \
         that is not installed), each answered 401"
    );
    let baseline_runtime = server_runtime();
    let baseline_port = baseline(&baseline_runtime);
    let flood = |keep_alive| Flood { requests, connections: CONNECTIONS, kinds: &Bad::TOKENS, keep_alive };
    mode("one connection per request (Connection: close)", flood(false), Some(TARGET), &client, baseline_port, &w);
    mode("keep-alive (a connection per client task)", flood(true), None, &client, baseline_port, &w);

    let slow = match std::env::var("DCP_DOOR_BENCH_SLOW") {
        Ok(n) => n.parse().expect("DCP_DOOR_BENCH_SLOW: a number of slow connections"),
        Err(_) => SLOW.slow,
    };
    if slow == 0 {
        return; // DCP_DOOR_BENCH_SLOW=0: the floods only (under a profiler, say)
    }
    let scenario = slow::Scenario { slow, events: if smoke { 1 } else { SLOW.events }, ..SLOW };
    println!();
    let door_runtime = server_runtime();
    let (door, door_port, _) = start_door(&w, &door_runtime);
    let (events, report) = client.block_on(slow::legit_among_slow(door_port, &w.token, scenario, || {}));
    door_runtime.block_on(door.stop());
    let answered = slow::answered_within(&events, scenario.limit);
    let slowest = events.iter().map(|e| e.latency).max().unwrap_or_default();
    println!(
        "slow clients: {answered} of {} legitimate events (one every {:?}) answered 202 within {:?} with {} slow \
         connections open (a byte every {:?}, reconnecting when closed; {} connections opened in all, {} open at the end); slowest \
         answer {}; answers {:?}",
        scenario.events,
        scenario.every,
        scenario.limit,
        scenario.slow,
        scenario.drip,
        report.connections,
        report.open_at_end,
        ms(slowest),
        events.iter().map(|e| e.status).collect::<Vec<_>>(),
    );
}
