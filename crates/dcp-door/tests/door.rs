//! §16 black-box: the door over real TCP, with requests written by hand as
//! a program (or a hostile page) would send them. One real SQLite profile,
//! the pomodoro example installed, an injected clock for the limits and
//! the queue. Nothing waits a fixed time: a test waits for a notice, for
//! the door's next look at its clock, or for [`Door::stop`].

use dcp_door::{Clock, CompanionState, Door, DoorConfig, DoorState, ManualClock, Notice};
use dcp_format::codes::{EventReason, SpecCode};
use dcp_store::journal::{Kind, Stored};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};
use tokio::sync::watch;

#[path = "support/load.rs"]
#[allow(dead_code)] // shared with benches/load.rs, which also uses the real-time pace
mod load;
#[path = "support/world.rs"]
mod world;

use world::{door_reaches, free_port, request, world, World, FOCUS};

struct Running {
    door: Door,
    port: u16,
    clock: Arc<ManualClock>,
    /// How many times the door has read its clock.
    reads: watch::Receiver<u64>,
    notices: UnboundedReceiver<Notice>,
}

/// The door's clock: moved by hand, and counting the door's reads of it.
struct Watched {
    clock: Arc<ManualClock>,
    reads: watch::Sender<u64>,
}

impl Clock for Watched {
    fn now(&self) -> Duration {
        self.reads.send_modify(|n| *n += 1);
        self.clock.now()
    }
}

async fn start(w: &World, poll: Duration) -> Running {
    let port = free_port();
    let store = w.door_store();
    let clock = Arc::new(ManualClock::new());
    clock.advance(Duration::from_secs(1_000_000));
    let (reads, counted) = watch::channel(0);
    let (tx, notices) = unbounded_channel();
    let door = Door::start(store, DoorConfig { port, poll }, Arc::new(Watched { clock: clock.clone(), reads }), tx);
    let mut r = Running { door, port, clock, reads: counted, notices };
    wait_for(&mut r, DoorState::Listening { port }).await;
    r
}

async fn wait_for(r: &mut Running, state: DoorState) {
    door_reaches(&mut r.notices, &state).await;
    assert_eq!(r.door.state(), state);
}

/// Returns once the door has read its clock twice more. With no request
/// in flight only the queue's ticker reads it, once at the start of each
/// tick: one whole tick then ran after this call began, and whatever it
/// had to say is among the notices.
async fn one_whole_tick(r: &mut Running) {
    let from = *r.reads.borrow_and_update();
    let ticked = r.reads.wait_for(|n| *n >= from + 2);
    tokio::time::timeout(Duration::from_secs(5), ticked).await.expect("the ticker runs").expect("door alive");
}

/// How a connection to `port` on loopback fails, if it does.
fn refused(port: u16) -> Option<std::io::ErrorKind> {
    std::net::TcpStream::connect(("127.0.0.1", port)).err().map(|e| e.kind())
}

/// The first notice other than the door's state already sent, if any.
fn said_now(r: &mut Running) -> Option<Notice> {
    std::iter::from_fn(|| r.notices.try_recv().ok()).find(|n| !matches!(n, Notice::Door { .. }))
}

struct Answer {
    status: u16,
    head: String,
    body: String,
}

/// Sends `request` on a new connection and reads one answer: its head and
/// its `Content-Length` body (the door keeps a connection open for the
/// next request), or everything until the door closes.
async fn raw(port: u16, request: &[u8]) -> Answer {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.expect("connect");
    let _ = s.write_all(request).await;
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), read_answer(&mut s, &mut out)).await;
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Answer { status, head: head.to_ascii_lowercase(), body: body.to_owned() }
}

/// Reads into `out` until it holds a whole answer, or the door closes.
async fn read_answer(s: &mut tokio::net::TcpStream, out: &mut Vec<u8>) {
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&out[..end]).to_ascii_lowercase();
            let length = head
                .split("\r\n")
                .find_map(|line| line.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            if length.is_some_and(|n| out.len() >= end + 4 + n) {
                return;
            }
        }
        match s.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
}

async fn send(port: u16, text: &str) -> Answer {
    raw(port, text.as_bytes()).await
}

fn reason(a: &Answer) -> String {
    let v: serde_json::Value = serde_json::from_str(&a.body).unwrap_or_else(|e| panic!("{e}: {}", a.body));
    assert!(v["status"].is_string(), "{}", a.body);
    v["reason"].as_str().unwrap_or_default().to_owned()
}

fn check(a: &Answer, status: u16, why: &str, case: &str) {
    assert_eq!(a.status, status, "{case}: {} {}", a.head, a.body);
    assert_eq!(reason(a), why, "{case}");
    assert!(!a.head.contains("access-control"), "{case}: no CORS header ever: {}", a.head);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_every_answer_of_the_table_in_order() {
    let w = world();
    let r = start(&w, Duration::from_millis(50)).await;
    let p = r.port;
    let ok = request(p, "pomodoro", &w.token, FOCUS);

    // 202, then the text with characters of every kind of hidden.
    check(&send(p, &ok).await, 202, "accepted", "valid");

    // Browser requests: 403 whatever the token (even a valid one).
    for header in [
        "Origin: http://127.0.0.1",
        "Origin: null",
        "Sec-Fetch-Site: cross-site",
        "Sec-Fetch-Mode: no-cors",
        "sec-fetch-dest: empty",
    ] {
        let req = ok.replacen("\r\n\r\n", &format!("\r\n{header}\r\n\r\n"), 1);
        check(&send(p, &req).await, 403, "browser_request", header);
        // Before anything else: even with a bad Host and method.
        let req = req.replace("POST", "GET").replace(&format!("Host: 127.0.0.1:{p}"), "Host: evil.example");
        check(&send(p, &req).await, 403, "browser_request", header);
    }

    // Host: exactly 127.0.0.1:<port> or localhost:<port>.
    let localhost = ok.replace(&format!("Host: 127.0.0.1:{p}"), &format!("Host: localhost:{p}"));
    r.clock.advance(Duration::from_secs(10));
    check(&send(p, &localhost).await, 202, "accepted", "localhost");
    for host in [
        format!("localhost.:{p}"),
        format!("sub.localhost:{p}"),
        format!("127.1:{p}"),
        format!("[::ffff:127.0.0.1]:{p}"),
        format!("[::1]:{p}"),
        "127.0.0.1".into(),
        "localhost".into(),
        format!("127.0.0.1:{}", p.wrapping_add(1)),
        format!("LOCALHOST:{p}"),
        format!("evil.example:{p}"),
        format!("127.0.0.1:{p}.evil.example"),
    ] {
        let req = ok.replace(&format!("Host: 127.0.0.1:{p}"), &format!("Host: {host}"));
        check(&send(p, &req).await, 421, "wrong_host", &host);
    }
    let missing = ok.replace(&format!("Host: 127.0.0.1:{p}\r\n"), "");
    check(&send(p, &missing).await, 421, "wrong_host", "missing Host");
    let doubled =
        ok.replace(&format!("Host: 127.0.0.1:{p}\r\n"), &format!("Host: 127.0.0.1:{p}\r\nHost: 127.0.0.1:{p}\r\n"));
    check(&send(p, &doubled).await, 421, "wrong_host", "doubled Host");
    let absolute = ok.replace("POST /v1/", "POST http://evil.example/v1/");
    check(&send(p, &absolute).await, 421, "wrong_host", "absolute-form target");

    // Method, then path.
    for method in ["GET", "PUT", "DELETE", "OPTIONS", "PATCH"] {
        check(&send(p, &ok.replacen("POST", method, 1)).await, 405, "method_not_allowed", method);
    }
    check(
        &send(p, &ok.replacen("POST /v1/events/pomodoro", "GET /nowhere", 1)).await,
        405,
        "method_not_allowed",
        "GET elsewhere",
    );
    for path in [
        "/",
        "/v1/events/",
        "/v1/events/pomodoro/",
        "/v1/events/pomodoro?x=1",
        "/v1/event/pomodoro",
        "/v1/events/POMODORO",
        "/v1/events/a",
        "/v1/events/pomodoro/../pomodoro",
    ] {
        check(&send(p, &ok.replacen("/v1/events/pomodoro", path, 1)).await, 404, "not_found", path);
    }

    // Content type: JSON only (parameters fine).
    for ct in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
        "text/json",
    ] {
        let req = ok.replace("Content-Type: application/json", &format!("Content-Type: {ct}"));
        check(&send(p, &req).await, 415, "unsupported_media_type", ct);
    }
    let no_type = ok.replace("Content-Type: application/json\r\n", "");
    check(&send(p, &no_type).await, 415, "unsupported_media_type", "no type");
    r.clock.advance(Duration::from_secs(10));
    let charset = ok.replace("Content-Type: application/json", "Content-Type: application/json; charset=utf-8");
    check(&send(p, &charset).await, 202, "accepted", "charset");
    r.clock.advance(Duration::from_secs(10));
    check(&send(p, &ok.replace("Bearer", "bearer")).await, 202, "accepted", "scheme in any case");

    // Size: 2 KB at most, on every request, declared or not.
    let big = format!(r#"{{"event": "focus_done", "text": "{}"}}"#, "x".repeat(10 * 1024));
    check(&send(p, &request(p, "pomodoro", &w.token, &big)).await, 413, "body_too_large", "10 KB");
    check(&send(p, &request(p, "nosuchplugin", "x", &big)).await, 413, "body_too_large", "10 KB, unknown slug");
    let chunk = "y".repeat(3000);
    let chunked = format!(
        "POST /v1/events/pomodoro HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
        w.token,
        chunk.len()
    );
    check(&send(p, &chunked).await, 413, "body_too_large", "chunked 3 KB");
    let exactly = format!(r#"{{"event": "focus_done", "x": "{}"}}"#, "z".repeat(2048 - 32));
    assert_eq!(exactly.len(), 2048);
    r.clock.advance(Duration::from_secs(10));
    check(&send(p, &request(p, "pomodoro", &w.token, &exactly)).await, 202, "accepted", "2048 bytes");

    // Tokens: missing, wrong, another plugin's, unknown plugin: one answer.
    let unknown = send(p, &request(p, "nosuchplugin", &w.token, FOCUS)).await;
    check(&unknown, 401, "bad_token", "unknown slug");
    for (case, req) in [
        ("missing", ok.replace(&format!("Authorization: Bearer {}\r\n", w.token), "")),
        ("wrong", request(p, "pomodoro", &"0".repeat(64), FOCUS)),
        ("other plugin's", request(p, "pomodoro", &w.other_token, FOCUS)),
        ("token in upper case", request(p, "pomodoro", &w.token.to_uppercase(), FOCUS)),
        ("Basic scheme", ok.replace("Bearer", "Basic")),
        ("prefix", request(p, "pomodoro", &w.token[..63], FOCUS)),
        ("longer", request(p, "pomodoro", &format!("{}0", w.token), FOCUS)),
    ] {
        let a = send(p, &req).await;
        check(&a, 401, "bad_token", case);
        assert_eq!(a.body, unknown.body, "{case}: same body as an unknown plugin");
    }

    // Doubled headers are not guessed at.
    let two_types = ok.replace(
        "Content-Type: application/json\r\n",
        "Content-Type: application/json\r\nContent-Type: application/json\r\n",
    );
    check(&send(p, &two_types).await, 415, "unsupported_media_type", "two content types");
    let auth = format!("Authorization: Bearer {}\r\n", w.token);
    let two_tokens = ok.replace(&auth, &format!("{auth}{auth}"));
    check(&send(p, &two_tokens).await, 401, "bad_token", "two Authorization headers");

    // Body: JSON, event, text.
    r.clock.advance(Duration::from_secs(10));
    for (case, body, why) in [
        ("not JSON", "{oops", "invalid_json"),
        ("not an object", "[1]", "invalid_json"),
        ("no event", r#"{"text": "hi"}"#, "missing_event"),
        ("event not a string", r#"{"event": 3}"#, "missing_event"),
        ("text not a string", r#"{"event": "focus_done", "text": 3}"#, "invalid_json"),
    ] {
        check(&send(p, &request(p, "pomodoro", &w.token, body)).await, 400, why, case);
    }
    let long = format!(r#"{{"event": "focus_done", "text": "{}"}}"#, "é".repeat(281));
    check(&send(p, &request(p, "pomodoro", &w.token, &long)).await, 400, "text_too_long", "281 characters");
    let unknown_event = r#"{"event": "lunch_done"}"#;
    check(&send(p, &request(p, "pomodoro", &w.token, unknown_event)).await, 404, "unknown_event", "undeclared");
    let off = r#"{"event": "break_done"}"#;
    check(&send(p, &request(p, "pomodoro", &w.token, off)).await, 403, "event_off", "switched off");
    let max = format!(r#"{{"event": "focus_done", "text": "{}"}}"#, "é".repeat(280));
    check(&send(p, &request(p, "pomodoro", &w.token, &max)).await, 202, "accepted", "280 characters");

    // Rate: 1 every 10 s.
    let a = send(p, &ok).await;
    check(&a, 429, "rate_limited", "second within 10 s");
    assert!(a.head.contains("\r\nretry-after: 10"), "{}", a.head);
    r.clock.advance(Duration::from_millis(9_500));
    let a = send(p, &ok).await;
    assert!(a.head.contains("\r\nretry-after: 1\r\n") || a.head.ends_with("retry-after: 1"), "{}", a.head);
    r.clock.advance(Duration::from_millis(500));
    check(&send(p, &ok).await, 202, "accepted", "after 10 s");

    // Plugin off, developer mode off (the door stays open for this poll).
    r.door.stop().await;
    let r = start(&w, Duration::from_secs(3600)).await;
    let p = r.port;
    let ok = request(p, "pomodoro", &w.token, FOCUS);
    w.store.set_enabled("pomodoro", false).expect("off");
    check(&send(p, &ok).await, 403, "plugin_off", "plugin off");
    w.store.set_enabled("pomodoro", true).expect("on");
    w.store.set_pref("dev_mode", "false").expect("dev off");
    check(&send(p, &ok).await, 403, "dev_mode_off", "developer mode off");
    w.store.set_pref("dev_mode", "true").expect("dev on");
    check(&send(p, &ok).await, 202, "accepted", "back on");
    r.door.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_new_token_replaces_the_old_at_once() {
    let w = world();
    let r = start(&w, Duration::from_secs(3600)).await;
    let p = r.port;
    check(&send(p, &request(p, "pomodoro", &w.token, FOCUS)).await, 202, "accepted", "before");
    let fresh = w.store.new_event_token("pomodoro").expect("new").expose().to_owned();
    r.clock.advance(Duration::from_secs(10));
    check(&send(p, &request(p, "pomodoro", &w.token, FOCUS)).await, 401, "bad_token", "old token");
    check(&send(p, &request(p, "pomodoro", &fresh, FOCUS)).await, 202, "accepted", "new token");
    r.door.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_the_31st_event_in_an_hour_is_refused() {
    let w = world();
    let r = start(&w, Duration::from_secs(3600)).await;
    let p = r.port;
    let ok = request(p, "pomodoro", &w.token, r#"{"event": "focus_done"}"#);
    for i in 0..30 {
        check(&send(p, &ok).await, 202, "accepted", &format!("event {}", i + 1));
        r.clock.advance(Duration::from_secs(10));
    }
    let a = send(p, &ok).await;
    check(&a, 429, "rate_limited", "the 31st");
    assert!(a.head.contains("\r\nretry-after: 3300"), "the first accepted ages out in 3300 s: {}", a.head);
    // Another plugin has its own limits.
    let other = request(p, "othertimer", &w.other_token, r#"{"event": "focus_done"}"#);
    check(&send(p, &other).await, 202, "accepted", "other plugin");
    r.clock.advance(Duration::from_secs(3300));
    check(&send(p, &ok).await, 202, "accepted", "an hour after the first");
    r.door.stop().await;
}

async fn next(r: &mut Running) -> Notice {
    tokio::time::timeout(Duration::from_secs(5), r.notices.recv()).await.expect("a notice").expect("open")
}

async fn next_not_door(r: &mut Running) -> Notice {
    loop {
        match next(r).await {
            Notice::Door { .. } => {}
            n => return n,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_queue_drops_the_oldest_of_four_and_expires_after_ten_minutes_then_one_turn() {
    let w = world();
    w.store.set_pref("language", "fr").expect("fr");
    w.store.set_event_enabled("pomodoro", "break_done", true).expect("on");
    let mut r = start(&w, Duration::from_millis(20)).await;
    let p = r.port;
    r.door.set_companion(CompanionState::Answering);
    for i in 1..=4 {
        let body = format!(r#"{{"event": "focus_done", "text": "n{i}"}}"#);
        check(&send(p, &request(p, "pomodoro", &w.token, &body)).await, 202, "accepted", "queued");
        assert!(matches!(next_not_door(&mut r).await, Notice::Received { .. }));
        r.clock.advance(Duration::from_secs(10));
    }
    match next_not_door(&mut r).await {
        Notice::Dropped { event, reason, .. } => {
            assert_eq!((event.as_str(), reason.as_str()), ("focus_done", "event_expired"))
        }
        n => panic!("{n:?}"),
    }
    // n2 was accepted 30 s before now: it expires 570 s later, n3 and n4 after.
    r.clock.advance(Duration::from_secs(570));
    assert!(matches!(next_not_door(&mut r).await, Notice::Dropped { .. }));
    // Listening after an answer: 2 s of grace, then n3 and n4 in one turn,
    // each seen after one whole tick of the queue.
    r.door.set_companion(CompanionState::Listening);
    one_whole_tick(&mut r).await;
    assert_eq!(said_now(&mut r), None, "nothing during the grace");
    r.clock.advance(Duration::from_secs(2));
    one_whole_tick(&mut r).await;
    match said_now(&mut r).expect("the turn, after the grace") {
        Notice::Turn { message, events, tools, said } => {
            assert_eq!(events, ["pomodoro/focus_done", "pomodoro/focus_done"]);
            // What the player is shown: the title in their language and the
            // program's own words, without the AI's framing (§16).
            let shown: Vec<(&str, Option<&str>)> = said.iter().map(|e| (e.title.as_str(), e.text.as_deref())).collect();
            assert_eq!(
                shown,
                [("Session de concentration terminée", Some("n3")), ("Session de concentration terminée", Some("n4"))]
            );
            assert!(tools.is_empty(), "an event turn offers no tool");
            assert!(message.starts_with("(Ce n'est pas un message de l'utilisateur."), "{message}");
            assert!(
                message.contains("Session de concentration terminée")
                    && message.contains("\"n3\"")
                    && message.contains("\"n4\""),
                "{message}"
            );
        }
        n => panic!("{n:?}"),
    }
    let journal = w.store.journal(20, Some("pomodoro")).expect("journal");
    let dropped = journal
        .iter()
        .filter(|e| {
            e.outcome.as_str() == "dropped"
                && e.code.as_ref().map(|c| c.to_string()).as_deref() == Some("event_expired")
        })
        .count();
    assert_eq!(dropped, 2);
    assert_eq!(journal.iter().filter(|e| e.outcome.as_str() == "received").count(), 4);
    assert!(journal.iter().all(|e| e.kind == Stored::Known(Kind::Event)), "the door writes events (§3)");
    r.door.stop().await;
}

/// §16, §22 "Events": an event accepted, then its plugin or its event
/// switched off while it waits, is dropped with that reason (journaled and
/// printed), never said.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_an_event_waiting_when_its_plugin_or_event_is_switched_off_is_dropped_with_the_reason() {
    let w = world();
    let mut r = start(&w, Duration::from_millis(20)).await;
    let p = r.port;
    r.door.set_companion(CompanionState::Answering);
    check(&send(p, &request(p, "pomodoro", &w.token, FOCUS)).await, 202, "accepted", "pomodoro");
    check(&send(p, &request(p, "othertimer", &w.other_token, FOCUS)).await, 202, "accepted", "othertimer");
    for _ in 0..2 {
        assert!(matches!(next_not_door(&mut r).await, Notice::Received { .. }));
    }
    w.store.set_enabled("pomodoro", false).expect("plugin off");
    w.store.set_event_enabled("othertimer", "focus_done", false).expect("event off");
    r.door.set_companion(CompanionState::Listening);
    r.clock.advance(Duration::from_secs(3));
    let mut dropped = Vec::new();
    for _ in 0..2 {
        match next_not_door(&mut r).await {
            Notice::Dropped { plugin, event, reason } => dropped.push((plugin, event, reason.to_string())),
            n => panic!("nothing may be said: {n:?}"),
        }
    }
    dropped.sort();
    let want = |plugin: &str, reason: &str| (plugin.to_owned(), "focus_done".to_owned(), reason.to_owned());
    assert_eq!(dropped, vec![want("othertimer", "event_off"), want("pomodoro", "plugin_off")]);
    // The tick that dropped them would have said the turn before the next one begins.
    one_whole_tick(&mut r).await;
    assert_eq!(said_now(&mut r), None, "no turn: nothing was left to say");
    let journal = w.store.journal(20, None).expect("journal");
    let lines: Vec<(&str, &str, Option<String>)> = journal
        .iter()
        .map(|e| (e.plugin.as_str(), e.outcome.as_str(), e.code.as_ref().map(|c| c.to_string())))
        .collect();
    assert!(lines.contains(&("pomodoro", "dropped", Some("plugin_off".into()))), "{lines:?}");
    assert!(lines.contains(&("othertimer", "dropped", Some("event_off".into()))), "{lines:?}");
    let plugin_off = Some(Stored::Known(SpecCode::Event(EventReason::PluginOff)));
    assert!(journal.iter().any(|e| e.kind == Stored::Known(Kind::Event) && e.code == plugin_off), "the door's reason");
    r.door.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_journal_refusals_once_a_minute_never_for_unknown_slugs_never_the_token() {
    let w = world();
    let r = start(&w, Duration::from_secs(3600)).await;
    let p = r.port;
    for _ in 0..5 {
        check(&send(p, &request(p, "pomodoro", "nope", FOCUS)).await, 401, "bad_token", "bad");
        check(&send(p, &request(p, "ghost", "nope", FOCUS)).await, 401, "bad_token", "ghost");
        check(&send(p, &request(p, "pomodoro", &w.token, r#"{"event": "break_done"}"#)).await, 403, "event_off", "off");
    }
    r.clock.advance(Duration::from_secs(60));
    check(&send(p, &request(p, "pomodoro", &w.token, r#"{"event": "break_done"}"#)).await, 403, "event_off", "off");
    // bad_token is journaled after the answer: stopped, the door has written it.
    r.door.stop().await;
    let all = w.store.journal(100, None).expect("journal");
    assert!(all.iter().all(|e| e.plugin != "ghost"), "nothing for an unknown slug");
    let count =
        |code: &str| all.iter().filter(|e| e.code.as_ref().map(|c| c.to_string()).as_deref() == Some(code)).count();
    assert_eq!(count("bad_token"), 1);
    assert_eq!(count("event_off"), 2, "once a minute");
    assert!(all
        .iter()
        .all(|e| e.who.as_str() == "event" && e.kind == Stored::Known(Kind::Event) && e.outcome.as_str() == "refused"));
    let text = serde_json::to_string(&all).expect("json");
    assert!(!text.contains(&w.token));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_the_door_opens_and_closes_by_itself_and_reports_a_taken_port() {
    let w = world();
    let mut r = start(&w, Duration::from_millis(50)).await;
    let p = r.port;
    w.store.set_event_enabled("pomodoro", "focus_done", false).expect("off");
    assert!(matches!(r.door.state(), DoorState::Listening { .. }), "othertimer still has one on");
    w.store.set_event_enabled("othertimer", "focus_done", false).expect("off");
    let closed = DoorState::Closed { why: dcp_door::Wanted::NoEventOn };
    wait_for(&mut r, closed).await;
    assert_eq!(refused(p), Some(std::io::ErrorKind::ConnectionRefused), "nothing listens");
    w.store.set_event_enabled("pomodoro", "focus_done", true).expect("on");
    wait_for(&mut r, DoorState::Listening { port: p }).await;
    w.store.set_pref("dev_mode", "false").expect("dev off");
    wait_for(&mut r, DoorState::Closed { why: dcp_door::Wanted::DevModeOff }).await;
    assert_eq!(refused(p), Some(std::io::ErrorKind::ConnectionRefused), "nothing listens");
    // Someone else takes the port meanwhile.
    let squatter = std::net::TcpListener::bind(("127.0.0.1", p)).expect("squat");
    w.store.set_pref("dev_mode", "true").expect("dev on");
    wait_for(&mut r, DoorState::PortTaken { port: p }).await;
    assert_eq!(r.door.state().describe(), format!("port {p} is used by another program"));
    drop(squatter);
    wait_for(&mut r, DoorState::Listening { port: p }).await;
    r.door.stop().await;
    assert_eq!(refused(p), Some(std::io::ErrorKind::ConnectionRefused), "stopped: nothing listens");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_control_and_invisible_characters_become_spaces() {
    let w = world();
    let mut r = start(&w, Duration::from_secs(3600)).await;
    let p = r.port;
    let body = r#"{"event": "focus_done", "text": "a\u200bb\nc\u202ed\u0007e\ufeff"}"#;
    check(&send(p, &request(p, "pomodoro", &w.token, body)).await, 202, "accepted", "hidden");
    match next_not_door(&mut r).await {
        Notice::Received { text, .. } => assert_eq!(text.as_deref(), Some("a b c d e")),
        n => panic!("{n:?}"),
    }
    r.door.stop().await;
}

/// Load: `requests` bad requests (wrong tokens for an installed plugin,
/// unknown slugs, browser requests carrying the right token) from 8
/// connections at a time, while a legitimate program sends one event per
/// second of the door's clock (moved by hand after each answer, so the
/// flood spans minutes of limits). The door stays up and refuses every bad
/// request with its status; the program gets exactly what §21's limits
/// allow (every other answer a 429 with `Retry-After`), each within 2 s;
/// the journal and the memory stay bounded.
async fn flood_while_a_program_sends_events(requests: usize) {
    let w = world();
    let r = start(&w, Duration::from_millis(250)).await;
    let p = r.port;
    let rss_before = load::memory_kib("VmRSS");
    let stop = Arc::new(AtomicBool::new(false));
    let pace =
        load::Pace::Manual { clock: r.clock.clone(), step: Duration::from_secs(1), pause: Duration::from_millis(5) };
    let program = tokio::spawn(load::program(p, w.token.clone(), pace, stop.clone()));
    let flood =
        load::flood(p, &w.token, load::Flood { requests, connections: 8, kinds: &load::Bad::ALL, keep_alive: false })
            .await;
    stop.store(true, Ordering::SeqCst);
    let sent = program.await.expect("program");
    let judged = load::judge(&sent, Duration::ZERO);
    let rss_after = load::memory_kib("VmRSS");
    println!(
        "{requests} bad requests in {:?} ({:.0}/s, p99 {:?}): {:?}; program: {} sent over {:?} of door time, {} accepted \
         (the limits allow {}), {} rate-limited, slowest {:?}; VmRSS {rss_before:?} -> {rss_after:?} KiB",
        flood.elapsed,
        flood.rate(),
        flood.percentile(99),
        flood.by_status(),
        judged.sent,
        judged.span,
        judged.accepted,
        judged.at_most,
        judged.limited,
        judged.slowest,
    );
    assert_eq!(flood.failed, 0, "every request answered");
    assert_eq!(flood.answered() as usize, requests);
    assert_eq!(flood.unexpected(load::Bad::door_status), 0, "{:?}", flood.statuses);
    assert!(judged.problems.is_empty(), "answers the limits do not explain: {:?}", judged.problems);
    assert_eq!(judged.accepted, judged.at_most, "as many accepted as the limits allow");
    assert!(judged.accepted >= 2 && judged.limited >= 10, "the flood lasted a few door minutes: {judged:?}");
    assert!(judged.slowest < Duration::from_secs(2), "a legitimate event waited {:?}", judged.slowest);
    // Still up.
    assert_eq!(r.door.state(), DoorState::Listening { port: p });
    check(&send(p, &request(p, "pomodoro", "nope", FOCUS)).await, 401, "bad_token", "after the flood");
    // Refusals journaled once a minute of the door's clock, whatever the
    // flood; bad_token after the answer: stopped, the door has written them.
    r.door.stop().await;
    let journal = w.store.journal(10_000, None).expect("journal");
    let minutes = judged.span.as_secs() as usize / 60 + 1;
    let count =
        |code: &str| journal.iter().filter(|e| e.code.as_ref().map(|c| c.to_string()).as_deref() == Some(code)).count();
    assert!(count("bad_token") <= minutes + 1, "journal flooded: {} bad_token in {minutes} min", count("bad_token"));
    assert!(count("rate_limited") <= minutes + 1, "{} rate_limited in {minutes} min", count("rate_limited"));
    assert_eq!(journal.iter().filter(|e| e.outcome.as_str() == "received").count(), judged.accepted);
    if let (Some(before), Some(after)) = (rss_before, rss_after) {
        assert!(after.saturating_sub(before) < 64 * 1024, "memory grew from {before} to {after} KiB");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_5000_bad_requests_while_a_program_sends_events() {
    flood_while_a_program_sends_events(5_000).await;
}

/// The issue's size (tens of seconds on two cores in a debug build): run
/// with `--ignored`. `cargo bench -p dcp-door --bench load` measures the
/// same flood against a plain hyper server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load test: run explicitly with --ignored"]
async fn load_50000_bad_requests_while_a_program_sends_events() {
    flood_while_a_program_sends_events(50_000).await;
}
