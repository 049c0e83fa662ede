//! The host's overhead on a tool call (issue "tool calls"): one call of the
//! local-server example through the whole pipeline (courtier, settings and
//! secret from the real SQLite profile, arguments, request builder, network
//! filter, answer cleaning and framing, journal write) against a direct HTTP
//! request to the same loopback server, measured in the same run. Printed
//! as the ratio of the medians (target: p50 ≤ 1.3×). The pipeline is timed
//! as the AI waits for it: prepare, send and finish, the journal line
//! committed in finish before the answer is given (issue 21: the line used
//! to be committed after the answer, which the host never waited for
//! anyway). Each stage's median is printed beside it.
//!
//! Two direct baselines, because the pipeline opens a new connection for
//! each call (the connection is pinned to the addresses the filter checked,
//! §14): a client that also opens a new connection per request (the target
//! is judged against this one), and a client reusing one kept-alive
//! connection (the cheapest request there is, shown for scale).

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use dcp_call::pipeline::{self, Prepared};
use dcp_call::turn::{Place, Source, Turn};
use dcp_store::{InstallOptions, Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use dcp_vault::Sensitive;
use http_body_util::Full;
use hyper::{Request, Response};
use std::convert::Infallible;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

const TOKEN: &str = "bench-server-token";
const ANSWER: &str = r#"{"time":"14:05","date":"2026-11-30","zone":"UTC"}"#;

/// A minimal HTTP/1.1 server on a loopback port a plugin may declare, in
/// a thread of its own (the program on the PC is another process).
fn server() -> u16 {
    let listener = loop {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        if dcp_format::hosts::reserved_port(port).is_none() {
            break listener;
        }
    };
    let port = listener.local_addr().expect("addr").port();
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("server runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            loop {
                let Ok((tcp, _)) = listener.accept().await else { return };
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(|_: Request<hyper::body::Incoming>| async {
                        let mut answer = Response::new(Full::new(Bytes::from_static(ANSWER.as_bytes())));
                        answer.headers_mut().insert("content-type", "application/json".parse().expect("header"));
                        Ok::<_, Infallible>(answer)
                    });
                    let io = hyper_util::rt::TokioIo::new(tcp);
                    let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
                });
            }
        });
    });
    port
}

/// A profile in developer mode with the local-server example installed,
/// declaring `port`, its token saved.
fn profile(dir: &Path, port: u16) -> Store {
    let store = Store::open(Profile::at(dir.join("profile")).expect("profile"), Arc::new(MemoryKeyStore::new()))
        .expect("store");
    store.set_pref("dev_mode", "true").expect("dev mode");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples/local-server/manifest.json");
    let manifest = std::fs::read_to_string(example).expect("example").replace("8420", &port.to_string());
    let path = dir.join("local-server.json");
    std::fs::write(&path, manifest).expect("write");
    let review = store.import(&path).expect("review");
    let options =
        InstallOptions { secrets: vec![("token".into(), Sensitive::new(TOKEN.into()))], ..InstallOptions::default() };
    store.install(&review.review, options).expect("install");
    store
}

/// One way to make the call, as a future to run.
type Call<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;

/// The pipeline's three stages, as the host runs them; gives how long
/// each took (prepare, send, finish).
async fn pipeline(store: &Store, client: &dcp_net::Client, turn: &Turn) -> [Duration; 3] {
    let start = Instant::now();
    let Prepared::Send(request) = pipeline::prepare(store, turn, "mypc__get_time", &serde_json::json!({})) else {
        panic!("the call is sent");
    };
    let prepared = Instant::now();
    let ending = pipeline::send(client, request).await;
    let sent = Instant::now();
    let finished = pipeline::finish(store, ending);
    let end = Instant::now();
    assert_eq!(finished.outcome.outcome.as_str(), "done", "{}", finished.outcome.for_ai);
    finished.entry.expect("a line").expect("written");
    [prepared - start, sent - prepared, end - sent]
}

/// A pipeline call as a future to run.
type Through<'a> = Pin<Box<dyn Future<Output = [Duration; 3]> + 'a>>;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Times `runs` rounds of the pipeline and the two direct ways to make the
/// call, interleaved so that a busy machine slows each alike, and returns
/// their medians, then the medians of the pipeline's stages.
fn p50s<'a>(
    runtime: &Runtime,
    runs: usize,
    through: &dyn Fn() -> Through<'a>,
    direct: [&dyn Fn() -> Call<'a>; 2],
) -> ([Duration; 3], [Duration; 3]) {
    let mut samples: [Vec<Duration>; 3] = Default::default();
    let mut stages: [Vec<Duration>; 3] = Default::default();
    for _ in 0..runs {
        let start = Instant::now();
        let took = runtime.block_on(through());
        samples[0].push(start.elapsed());
        for (stage, time) in stages.iter_mut().zip(took) {
            stage.push(time);
        }
        for (i, way) in direct.iter().enumerate() {
            let start = Instant::now();
            runtime.block_on(way());
            samples[i + 1].push(start.elapsed());
        }
    }
    (samples.map(median), stages.map(median))
}

fn bench(c: &mut Criterion) {
    // The calling side runs as `dcplugin call` does: one current-thread
    // runtime that drives its own sockets.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    let port = server();
    let dir = tempfile::tempdir().expect("dir");
    let store = profile(dir.path(), port);
    let client = dcp_net::Client::new();
    let turn = Turn::new(Source::Voice, Place::Pc);
    let url = format!("http://127.0.0.1:{port}/time");
    // reqwest is built without a default crypto provider (dcp-net passes its own).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fresh = reqwest::Client::builder().no_proxy().pool_max_idle_per_host(0).build().expect("client");
    let pooled = reqwest::Client::builder().no_proxy().build().expect("client");

    let direct = |client: &reqwest::Client| {
        let request = client.get(&url).header("Authorization", format!("Bearer {TOKEN}"));
        async move {
            let body = request.send().await.expect("sent").bytes().await.expect("body");
            assert_eq!(body.len(), ANSWER.len());
        }
    };

    let mut group = c.benchmark_group("tool_call");
    group.bench_function("pipeline", |b| b.iter(|| runtime.block_on(pipeline(&store, &client, &turn))));
    group.bench_function("direct_new_connection", |b| b.iter(|| runtime.block_on(direct(&fresh))));
    group.bench_function("direct_kept_alive", |b| b.iter(|| runtime.block_on(direct(&pooled))));
    group.finish();

    let runs = 2_000;
    let ([through, new_connection, kept_alive], [prepare, send, finish]) = p50s(
        &runtime,
        runs,
        &|| Box::pin(pipeline(&store, &client, &turn)),
        [&|| Box::pin(direct(&fresh)), &|| Box::pin(direct(&pooled))],
    );
    let ratio = |base: Duration| through.as_secs_f64() / base.as_secs_f64();
    println!("\ntool call p50 over {runs} runs each (same server, same run):");
    println!("  pipeline, line written   {through:>10.1?}");
    println!(
        "  direct, new connection   {new_connection:>10.1?}   pipeline / direct = {:.2}x (target <= 1.3x)",
        ratio(new_connection)
    );
    println!(
        "  direct, kept alive       {kept_alive:>10.1?}   pipeline / direct = {:.2}x (for scale)",
        ratio(kept_alive)
    );
    println!("  its stages: prepare {prepare:.1?}, send {send:.1?}, finish (journal commit included) {finish:.1?}");
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
