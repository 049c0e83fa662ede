//! Shared set-up of the host's flow tests: a host on a temp profile with
//! a real SQLite database, the example plugins moved to a free loopback
//! port, a plain HTTP server on 127.0.0.1 standing in for the player's
//! own program (§15), and waiting on the event stream.

#![allow(dead_code)] // each test file uses its own part

use dcp_host::events::HostEvent;
use dcp_host::{Host, HostOptions, InstallOptions, Sensitive, SwitchesPatch};
use dcp_vault::testing::MemoryKeyStore;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::Receiver;

pub const TOKEN: &str = "srv-9f2c7d1e-token-of-the-test-server";

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub host: Host,
    pub door_port: u16,
}

pub fn fixture() -> Fixture {
    fixture_with_door(free_port())
}

/// A fixture whose event door, when started, listens on `door_port`.
pub fn fixture_with_door(door_port: u16) -> Fixture {
    open_fixture(door_port, None)
}

/// A fixture whose host runs on the calling test's runtime, as the
/// window's runs on Tauri's: one runtime for the shell and the host.
pub fn fixture_on_this_runtime() -> Fixture {
    open_fixture(free_port(), Some(tokio::runtime::Handle::current()))
}

fn open_fixture(door_port: u16, runtime: Option<tokio::runtime::Handle>) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let host = Host::open(HostOptions {
        profile: Some(dir.path().join("profile")),
        key_store: Some(Arc::new(MemoryKeyStore::new())),
        door_port: Some(door_port),
        runtime,
    })
    .expect("host opens");
    Fixture { dir, host, door_port }
}

/// A loopback port that is free now and not reserved by §15.
pub fn free_port() -> u16 {
    loop {
        let port = TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
        if dcp_format::hosts::reserved_port(port).is_none() {
            return port;
        }
    }
}

pub fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples")
}

pub fn example(name: &str) -> Value {
    let text = std::fs::read_to_string(examples().join(name).join("manifest.json")).expect("example");
    serde_json::from_str(&text).expect("JSON")
}

/// An example whose local port (8420, 8421) is moved to `port`.
pub fn example_on_port(name: &str, port: u16) -> Value {
    let text = std::fs::read_to_string(examples().join(name).join("manifest.json")).expect("example");
    let text = text.replace("8420", &port.to_string()).replace("8421", &port.to_string());
    serde_json::from_str(&text).expect("JSON")
}

/// Writes a manifest in `dir/name/manifest.json` and returns that folder.
pub fn folder(dir: &Path, name: &str, manifest: &Value) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("manifest.json"), serde_json::to_vec_pretty(manifest).expect("JSON")).expect("write");
    folder
}

pub async fn dev_mode(host: &Host, on: bool) {
    host.set_switches(SwitchesPatch { dev_mode: Some(on), ..Default::default() }).await.expect("dev mode");
}

pub fn with_token() -> InstallOptions {
    InstallOptions { secrets: vec![("token".into(), Sensitive::new(TOKEN.into()))], ..Default::default() }
}

/// A program on the PC (§15) and how many requests it received.
pub struct PcServer {
    pub port: u16,
    pub requests: Arc<AtomicUsize>,
}

/// A program on the PC (§15): answers every request with `body` as JSON
/// after checking the bearer token, and counts the requests.
pub fn pc_server(port: u16, body: &'static str) -> PcServer {
    pc_server_answering(port, move |authorization| match authorization.is_some_and(|a| a.contains(TOKEN)) {
        true => ("200 OK", body.to_owned()),
        false => ("401 Unauthorized", "{\"error\":\"token\"}".to_owned()),
    })
}

/// A program on the PC (§15): answers every request with the status and
/// JSON body `answer` makes of its `Authorization` header's value, and
/// counts the requests.
pub fn pc_server_answering(
    port: u16,
    answer: impl Fn(Option<&str>) -> (&'static str, String) + Send + 'static,
) -> PcServer {
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind the PC server");
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            let request = read_request(&stream);
            let (status, body) = answer(request.authorization.as_deref());
            let answer = format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let mut stream = stream;
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    PcServer { port, requests }
}

/// One HTTP/1.1 request as a test's program on the PC reads it.
pub struct Request {
    /// `POST /notes HTTP/1.1`, without its line end.
    pub line: String,
    /// The `Authorization` header's value.
    pub authorization: Option<String>,
    /// The body, as text.
    pub body: String,
}

/// Reads one request from `stream`: its line, its headers (keeping
/// `Authorization`) and the body its `Content-Length` announces.
pub fn read_request(stream: &TcpStream) -> Request {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut line = String::new();
    let _ = reader.read_line(&mut line);
    let (mut authorization, mut length) = (None, 0usize);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or((&header, ""));
        if name.eq_ignore_ascii_case("authorization") {
            authorization = Some(value.trim().to_owned());
        }
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    Request { line: line.trim_end().to_owned(), authorization, body: String::from_utf8_lossy(&body).into_owned() }
}

/// The first event on the stream that `wanted` accepts, within `limit`.
pub async fn next_event(
    events: &mut Receiver<HostEvent>,
    limit: Duration,
    wanted: impl Fn(&HostEvent) -> bool,
) -> HostEvent {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, events.recv()).await {
            Ok(Ok(event)) if wanted(&event) => return event,
            Ok(Ok(_)) => {}
            Ok(Err(e)) => panic!("the stream failed: {e}"),
            Err(_) => panic!("no such event within {limit:?}"),
        }
    }
}

/// Imports `manifest` written as `dir/name/manifest.json` and installs it with `options`.
pub async fn install_manifest(host: &Host, dir: &Path, name: &str, manifest: &Value, options: InstallOptions) {
    let file = folder(dir, name, manifest).join("manifest.json");
    let review = host.import_path(file).await.unwrap_or_else(|e| panic!("{name}: review: {e:?}"));
    host.install(&review.review, options).await.unwrap_or_else(|e| panic!("{name}: install: {e:?}"));
}

/// The local-server example installed as `name`, reaching the program on
/// `port`, with developer mode on (§15: a plugin on this PC runs only then).
pub async fn install_pc_example(f: &Fixture, name: &str, port: u16, options: InstallOptions) {
    dev_mode(&f.host, true).await;
    install_manifest(&f.host, f.dir.path(), name, &example_on_port("local-server", port), options).await;
}

/// Every event `wanted` accepts during `span` (the stream is read to its end).
pub async fn events_during(
    events: &mut Receiver<HostEvent>,
    span: Duration,
    wanted: impl Fn(&HostEvent) -> bool,
) -> Vec<HostEvent> {
    let deadline = Instant::now() + span;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, events.recv()).await {
            Ok(Ok(event)) if wanted(&event) => seen.push(event),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => panic!("the stream failed: {e}"),
            Err(_) => return seen,
        }
    }
}

/// An answer of the event door.
#[derive(Debug)]
pub struct DoorAnswer {
    pub status: u16,
    pub body: String,
}

/// A program on the PC posting an event to the door (§16) over real TCP,
/// as the spec's Python sample does: one request, the answer read to its end.
pub async fn post_event(port: u16, slug: &str, token: &str, body: &str) -> DoorAnswer {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let request = format!(
        "POST /v1/events/{slug} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.expect("connect to the door");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut out))
        .await
        .expect("the door answers within 10 s")
        .expect("read");
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    DoorAnswer { status, body: body.to_owned() }
}
