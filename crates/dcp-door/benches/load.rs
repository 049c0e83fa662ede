//! The event door under a flood, beside a plain hyper server measured in
//! the same run (issue "event door", proof item "load test").
//!
//! One bounded client (`tests/support/load.rs`: 8 connections at a time,
//! each sending requests one after another, a new connection per request
//! because the door serves one request per connection) sends 50,000 bad
//! requests, four kinds in turn (a wrong token, an unknown slug, a browser
//! request with `Origin`, one with `Sec-Fetch-Site`, both carrying the
//! right token), to:
//!
//! * the baseline: hyper 1's HTTP/1 server answering every request with
//!   a fixed 401 JSON body and checking nothing, in two builds: hyper's
//!   defaults, and keep-alive off (it then closes the connection first, as
//!   the door does; with the defaults the client closes first, probably
//!   leaving its side of each connection in TIME_WAIT, and this client
//!   measures about half the rate). Each is measured before and after the
//!   door; the door is compared with the fastest of the four runs;
//! * the door, with a real SQLite profile in a temp folder (the pomodoro
//!   example installed) and the real clock, while a legitimate program
//!   sends a valid event every second.
//!
//! Each server runs on its own tokio runtime built as `dcplugin serve`
//! builds the door's (multi-thread, 2 workers); the client on a third.
//! Printed: requests per second and p50/p99 latency of each, the door's
//! throughput against the faster baseline run (target: at least half), the
//! process's memory before and after the door's flood, and the legitimate
//! program's answers judged against §21's limits. A bad request answered
//! with the wrong status, a request left unanswered, or an answer to the
//! program that the limits do not explain fails the run.

#![allow(missing_docs)] // a bench binary; the shared test modules are test code

#[path = "../tests/support/load.rs"]
#[allow(dead_code)] // shared with tests/door.rs, which also uses the hand-moved clock
mod load;
#[path = "../tests/support/world.rs"]
#[allow(dead_code)] // shared with tests/door.rs, which uses all of it
mod world;

use bytes::Bytes;
use dcp_door::{Door, DoorConfig, DoorState, Notice, SystemClock};
use http_body_util::Full;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::{Response, StatusCode};
use load::{Flood, FloodReport, Pace};
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
/// The door's throughput against the baseline's, at least.
const TARGET: f64 = 0.5;
/// The legitimate program's pace.
const EVERY: Duration = Duration::from_secs(1);
/// How much later the door may read its clock than the program read its.
const SLACK: Duration = Duration::from_millis(50);

/// The runtime of each server, as `dcplugin serve` builds the door's.
fn server_runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

/// A baseline on a free loopback port: hyper's HTTP/1 server built by
/// `builder`, answering every request with the door's 401 body for a bad
/// token, without looking at the request.
fn baseline(runtime: &Runtime, builder: http1::Builder) -> u16 {
    let port = world::free_port();
    let listener = runtime.block_on(tokio::net::TcpListener::bind(("127.0.0.1", port))).expect("baseline port");
    runtime.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let builder = builder.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(|_request| async {
                    let mut response =
                        Response::new(Full::new(Bytes::from_static(br#"{"status":"refused","reason":"bad_token"}"#)));
                    *response.status_mut() = StatusCode::UNAUTHORIZED;
                    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                    Ok::<_, Infallible>(response)
                });
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = builder.serve_connection(io, service).await;
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
        "{name:<34} {:>9.0} {:>10} {:>10} {:>8}  {:?}",
        r.rate(),
        ms(r.percentile(50)),
        ms(r.percentile(99)),
        format!("{:.2} s", r.elapsed.as_secs_f64()),
        r.by_status(),
    );
}

fn flood_size() -> Flood {
    let requests = match std::env::var("DCP_DOOR_BENCH_REQUESTS") {
        Ok(n) => n.parse().expect("DCP_DOOR_BENCH_REQUESTS: a number of requests"),
        Err(_) if std::env::args().any(|a| a == "--bench") => REQUESTS,
        Err(_) => SMOKE_REQUESTS,
    };
    Flood { requests, connections: CONNECTIONS }
}

fn main() {
    let flood = flood_size();
    let client = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let w = world::world();
    println!(
        "dcp-door load bench: {} bad requests per run from {} connections at a time, a new connection per request \
         for both servers (the door serves one request per connection); kinds in turn: wrong token, unknown slug, \
         Origin, Sec-Fetch-Site",
        flood.requests, flood.connections
    );

    let baseline_runtime = server_runtime();
    let defaults = baseline(&baseline_runtime, http1::Builder::new());
    let mut closing = http1::Builder::new();
    closing.keep_alive(false);
    let closing = baseline(&baseline_runtime, closing);
    let defaults_before = client.block_on(load::flood(defaults, &w.token, flood));
    let closing_before = client.block_on(load::flood(closing, &w.token, flood));
    let door_runtime = server_runtime();
    let door_port = world::free_port();
    let (notices, mut received_notices) = tokio::sync::mpsc::unbounded_channel();
    let received = Arc::new(AtomicUsize::new(0));
    let door = {
        let _inside = door_runtime.enter();
        let config = DoorConfig { port: door_port, ..DoorConfig::default() };
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
    let listening = DoorState::Listening { port: door_port };
    for _ in 0..500 {
        if door.state() == listening {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(door.state(), listening, "the door opened");

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
    let up = door.state() == listening && after_flood.as_ref().is_ok_and(|a| a.status == 401);

    let defaults_after = client.block_on(load::flood(defaults, &w.token, flood));
    let closing_after = client.block_on(load::flood(closing, &w.token, flood));

    println!();
    println!("{:<34} {:>9} {:>10} {:>10} {:>8}  answers", "server (run)", "req/s", "p50", "p99", "time");
    row("1 hyper baseline, defaults", &defaults_before);
    row("2 hyper baseline, keep-alive off", &closing_before);
    row("3 door (+ legitimate program)", &flooded);
    row("4 hyper baseline, defaults", &defaults_after);
    row("5 hyper baseline, keep-alive off", &closing_after);
    let best = [&defaults_before, &closing_before, &defaults_after, &closing_after]
        .iter()
        .map(|r| r.rate())
        .fold(0.0, f64::max);
    let ratio = flooded.rate() / best;
    println!();
    println!(
        "throughput door/baseline: {ratio:.2} (against the fastest baseline run, {best:.0} req/s; target >= {TARGET}): {}",
        if ratio >= TARGET { "met" } else { "NOT met" }
    );
    let unexpected = flooded.unexpected(load::Bad::door_status);
    println!(
        "door refusals: {} answered, {unexpected} with a status other than 401 (bad token, unknown slug) / 403 \
         (browser), {} unanswered; still up after the flood: {}",
        flooded.answered(),
        flooded.failed,
        if up { "yes" } else { "NO" }
    );
    println!(
        "memory (VmRSS, whole process): {} before the door's flood, {} after; peak (VmHWM) {}",
        mib(rss_before),
        mib(rss_after),
        mib(load::memory_kib("VmHWM"))
    );
    let judged = load::judge(&sent, SLACK);
    println!(
        "legitimate program: {} events sent, one every {EVERY:?}, over {:.1} s; {} accepted (202), the limits allow \
         at most {} (1 every 10 s, 30 an hour); {} refused 429 with Retry-After; {} answers the limits do not \
         explain (timing slack {SLACK:?}); slowest answer {}; door notices 'received': {}",
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
}
