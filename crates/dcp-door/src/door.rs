//! The door itself: when it listens, and how it answers.
//!
//! A supervisor task polls the store (every [`DoorConfig::poll`], 250 ms by
//! default, so a switch flipped by another process takes effect within a
//! second), opens the listener on `127.0.0.1:<port>` when [`door_wanted`]
//! says so and closes it (nothing listens) when not. A port held by another
//! program is reported as [`DoorState::PortTaken`] and tried again at each
//! poll. The same task drives the waiting queue and hands each event turn
//! to the caller as a [`Notice::Turn`].
//!
//! Each connection serves one request (no keep-alive), with a 5 s limit to
//! receive the headers and another for the body. Answers, in this order:
//! 403 browser (`Origin` or any `Sec-Fetch-*`), 421 Host, 405 method, 404
//! path, 415 type, 413 size, 401 token, 403 `dev_mode_off` / `plugin_off`,
//! 400 JSON, 404 `unknown_event`, 403 `event_off`, 400 text, 429
//! `rate_limited`, 202. The token check does the same work for a slug that
//! is not installed (one indexed read, then a constant-time comparison with
//! a dummy token) and journal writes happen after the answer is sent, so
//! neither the body nor the timing tells which plugins exist.

use crate::clock::Clock;
use crate::limits::RateLimit;
use crate::message::{turn_message, EventLine};
use crate::queue::{CompanionState, EventQueue, Waiting};
use bytes::Bytes;
use dcp_format::model::Plugin;
use dcp_store::journal::{NewEntry, Outcome};
use dcp_store::{CallContext, Prefs, Status, Store};
use dcp_vault::Sensitive;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, HOST};
use hyper::{Method, Request, Response, StatusCode};
use serde::Serialize;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use subtle::ConstantTimeEq;
use tokio::net::TcpListener;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

/// The port of §15/§16.
pub const DEFAULT_PORT: u16 = dcp_format::hosts::EVENT_DOOR_PORT;
/// Largest body (§21).
pub const MAX_BODY: usize = dcp_format::limits::EVENT_BODY_BYTES as usize;
/// Longest text, in characters (§21).
pub const MAX_TEXT: usize = dcp_format::limits::EVENT_TEXT_CHARS;
/// Refusals of one kind are journaled at most this often per plugin.
pub const JOURNAL_REFUSAL_EVERY: Duration = Duration::from_secs(60);
const READ_LIMIT: Duration = Duration::from_secs(5);
const MAX_CONNECTIONS: usize = 64;

/// How the door runs.
#[derive(Debug, Clone)]
pub struct DoorConfig {
    /// The port on 127.0.0.1 (8440; another one for tests). The Host check
    /// uses it.
    pub port: u16,
    /// How often the store is polled and the queue looked at.
    pub poll: Duration,
}

impl Default for DoorConfig {
    fn default() -> Self {
        DoorConfig { port: DEFAULT_PORT, poll: Duration::from_millis(250) }
    }
}

/// Whether the door should be open, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Wanted {
    /// Developer mode is on and an event of an active plugin is on.
    Open,
    /// Developer mode is off.
    DevModeOff,
    /// No event of an active plugin is switched on.
    NoEventOn,
}

/// A plugin counts as active for events when it runs: not missing,
/// invalid, modified, paused by developer mode or switched off. Needs
/// setup and Tools off concern its tools, not its events.
fn runs(status: Status) -> bool {
    matches!(status, Status::Active | Status::NeedsSetup | Status::ToolsOff)
}

/// [`Wanted`] from the prefs and each plugin's context with its events on.
pub fn door_wanted(prefs: &Prefs, plugins: &[(Arc<CallContext>, Vec<String>)]) -> Wanted {
    if !prefs.dev_mode {
        return Wanted::DevModeOff;
    }
    let any = plugins.iter().any(|(c, on)| {
        runs(c.status)
            && prefs.plugins_enabled
            && c.plugin.as_ref().is_some_and(|p| p.events.iter().any(|e| on.contains(&e.name)))
    });
    if any {
        Wanted::Open
    } else {
        Wanted::NoEventOn
    }
}

/// The door's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum DoorState {
    /// Nothing listens.
    Closed {
        /// Why.
        why: Wanted,
    },
    /// Listening on 127.0.0.1:port.
    Listening {
        /// The port.
        port: u16,
    },
    /// Another program holds the port; tried again at each poll.
    PortTaken {
        /// The port.
        port: u16,
    },
}

impl DoorState {
    /// As printed.
    pub fn describe(&self) -> String {
        match self {
            DoorState::Closed { why: Wanted::DevModeOff } => "closed: developer mode is off".into(),
            DoorState::Closed { .. } => "closed: no event of an active plugin is switched on".into(),
            DoorState::Listening { port } => format!("listening on 127.0.0.1:{port}"),
            DoorState::PortTaken { port } => format!("port {port} is used by another program"),
        }
    }
}

/// What the door tells its caller (and `dcplugin serve` prints).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Notice {
    /// The door opened, closed or found its port taken.
    Door {
        /// The new state.
        state: DoorState,
    },
    /// An event accepted (202).
    Received {
        /// Slug.
        plugin: String,
        /// Event name.
        event: String,
        /// Cleaned text.
        text: Option<String>,
    },
    /// A refusal, as journaled (at most once a minute per plugin and kind).
    Refused {
        /// Slug.
        plugin: String,
        /// Event name when known.
        event: Option<String>,
        /// The reason (journal code).
        reason: String,
    },
    /// An accepted event dropped (`event_expired`).
    Dropped {
        /// Slug.
        plugin: String,
        /// Event name.
        event: String,
        /// `event_expired`, or why it can no longer be said (`plugin_off`, `dev_mode_off`, `event_off`, `unknown_event`).
        reason: String,
    },
    /// An event turn: what the AI gets. It offers no tool: the courtier
    /// refuses any call in it as `not_requested` (§16). The companion keeps
    /// none of it (event or answer) in its memory, only in the conversation.
    Turn {
        /// The message, in the player's language.
        message: String,
        /// The events said, as `slug/event`.
        events: Vec<String>,
        /// Tools offered: none.
        tools: Vec<String>,
    },
}

struct Shared {
    store: Mutex<Store>,
    config: DoorConfig,
    clock: Arc<dyn Clock>,
    notices: UnboundedSender<Notice>,
    limits: Mutex<HashMap<String, RateLimit>>,
    queue: Mutex<EventQueue>,
    journaled: Mutex<HashMap<(String, String), Duration>>,
    tokens: Mutex<HashMap<String, (Vec<u8>, Sensitive)>>,
    state: Mutex<DoorState>,
    dummy: Sensitive,
    connections: Arc<tokio::sync::Semaphore>,
    stopping: tokio::sync::Notify,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running door. Start it inside a tokio runtime; [`Door::stop`] closes it.
pub struct Door {
    shared: Arc<Shared>,
    supervisor: JoinHandle<()>,
}

impl Door {
    /// Starts the supervisor. `notices` receives every state change, event
    /// and turn.
    pub fn start(store: Store, config: DoorConfig, clock: Arc<dyn Clock>, notices: UnboundedSender<Notice>) -> Door {
        let shared = Arc::new(Shared {
            store: Mutex::new(store),
            config,
            clock,
            notices,
            limits: Mutex::new(HashMap::new()),
            queue: Mutex::new(EventQueue::new()),
            journaled: Mutex::new(HashMap::new()),
            tokens: Mutex::new(HashMap::new()),
            state: Mutex::new(DoorState::Closed { why: Wanted::NoEventOn }),
            dummy: Sensitive::new(dcp_vault::random_token_hex(dcp_store::TOKEN_BYTES)),
            connections: Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS)),
            stopping: tokio::sync::Notify::new(),
        });
        let supervisor = tokio::spawn(supervise(shared.clone()));
        Door { shared, supervisor }
    }

    /// The companion reports its state.
    pub fn set_companion(&self, state: CompanionState) {
        let now = self.shared.clock.now();
        lock(&self.shared.queue).set_state(state, now);
    }

    /// The door's state now.
    pub fn state(&self) -> DoorState {
        lock(&self.shared.state).clone()
    }

    /// Stops the supervisor and closes the listener: when it returns,
    /// nothing listens on the port, so it can be opened again at once.
    pub async fn stop(mut self) {
        self.shared.stopping.notify_one();
        let _ = (&mut self.supervisor).await;
    }
}

/// A door dropped without [`Door::stop`] still closes, only not by the time
/// the drop returns.
impl Drop for Door {
    fn drop(&mut self) {
        self.supervisor.abort();
    }
}

/// The accept loop's task, aborted when dropped (also when the supervisor
/// itself is aborted), so the socket never outlives the door.
struct Listening(JoinHandle<()>);

impl Listening {
    /// Returns once the accept loop, and with it the socket, is gone.
    async fn close(mut self) {
        self.0.abort();
        let _ = (&mut self.0).await;
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn supervise(shared: Arc<Shared>) {
    let mut listener: Option<Listening> = None;
    let mut last: Option<DoorState> = None;
    loop {
        let wanted = {
            let store = lock(&shared.store);
            wanted_now(&store)
        };
        let state = match wanted {
            Wanted::Open => {
                if listener.is_none() {
                    if let Ok(l) = TcpListener::bind(("127.0.0.1", shared.config.port)).await {
                        listener = Some(Listening(tokio::spawn(accept(shared.clone(), l))));
                    }
                }
                if listener.is_some() {
                    DoorState::Listening { port: shared.config.port }
                } else {
                    DoorState::PortTaken { port: shared.config.port }
                }
            }
            why => {
                if let Some(l) = listener.take() {
                    l.close().await;
                }
                DoorState::Closed { why }
            }
        };
        if last.as_ref() != Some(&state) {
            *lock(&shared.state) = state.clone();
            let _ = shared.notices.send(Notice::Door { state: state.clone() });
            last = Some(state);
        }
        tick_queue(&shared);
        tokio::select! {
            () = tokio::time::sleep(shared.config.poll) => {}
            () = shared.stopping.notified() => break,
        }
    }
    if let Some(l) = listener {
        l.close().await;
    }
}

/// [`door_wanted`] from the store as it is now.
pub fn wanted_now(store: &Store) -> Wanted {
    let Ok(prefs) = store.prefs() else { return Wanted::NoEventOn };
    let contexts = store.call_contexts().unwrap_or_default();
    let plugins: Vec<(Arc<CallContext>, Vec<String>)> = contexts
        .into_iter()
        .filter(|c| c.plugin.as_ref().is_some_and(|p| !p.events.is_empty()))
        .map(|c| {
            let on = store.event_switches(&c.slug).unwrap_or_default();
            (c, on)
        })
        .collect();
    door_wanted(&prefs, &plugins)
}

/// Drops what waited too long and, when the companion listens, makes one
/// turn of everything waiting.
fn tick_queue(shared: &Arc<Shared>) {
    let now = shared.clock.now();
    let (turn, dropped) = lock(&shared.queue).take_turn(now);
    if turn.is_empty() && dropped.is_empty() {
        return;
    }
    let store = lock(&shared.store);
    for d in &dropped {
        drop_event(&store, shared, d, "event_expired");
    }
    if turn.is_empty() {
        return;
    }
    let Ok(prefs) = store.prefs() else { return };
    // The player may have switched the plugin or the event off, or
    // developer mode, while the event waited: it is dropped then, with the
    // reason, rather than said.
    let mut plugins: HashMap<String, Result<Arc<Plugin>, &'static str>> = HashMap::new();
    let mut said = Vec::new();
    for w in &turn {
        let plugin = plugins
            .entry(w.plugin.clone())
            .or_insert_with(|| plugin_state(&prefs, store.call_context(&w.plugin).ok().flatten()));
        match plugin.as_ref().map_err(|r| *r).and_then(|p| event_state(&store, &w.plugin, p, &w.event)) {
            Ok(()) => said.push(w),
            Err(reason) => drop_event(&store, shared, w, reason),
        }
    }
    let lines: Vec<EventLine> = said
        .iter()
        .filter_map(|w| {
            let plugin = plugins.get(&w.plugin)?.as_ref().ok()?;
            let event = plugin.events.iter().find(|e| e.name == w.event)?;
            Some(EventLine { display_name: &plugin.display_name, title: &event.title, text: w.text.as_deref() })
        })
        .collect();
    if lines.is_empty() {
        return;
    }
    let _ = shared.notices.send(Notice::Turn {
        message: turn_message(&prefs.language, &lines),
        events: said.iter().map(|w| format!("{}/{}", w.plugin, w.event)).collect(),
        tools: Vec::new(),
    });
}

/// Journals a waiting event that will not be said, and tells `serve`.
fn drop_event(store: &Store, shared: &Shared, w: &Waiting, reason: &'static str) {
    let _ = store.journal_write(&NewEntry {
        plugin: &w.plugin,
        action: &w.event,
        who: "event",
        outcome: Outcome::Dropped,
        code: Some(reason),
        subject: w.text.as_deref(),
        error: None,
    });
    let _ = shared.notices.send(Notice::Dropped {
        plugin: w.plugin.clone(),
        event: w.event.clone(),
        reason: reason.into(),
    });
}

async fn accept(shared: Arc<Shared>, listener: TcpListener) {
    loop {
        let Ok(permit) = shared.connections.clone().acquire_owned().await else { return };
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors, for example: breathe instead of spinning.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let service = hyper::service::service_fn(move |req| {
                let shared = shared.clone();
                async move { Ok::<_, Infallible>(answer(&shared, req).await) }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .keep_alive(false)
                .max_buf_size(16 * 1024)
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(READ_LIMIT);
            let conn = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            let _ = tokio::time::timeout(READ_LIMIT * 3, conn).await;
        });
    }
}

/// An answer of the table.
struct Reply {
    status: StatusCode,
    reason: &'static str,
    retry_after: Option<u64>,
}

const fn reply(status: StatusCode, reason: &'static str) -> Reply {
    Reply { status, reason, retry_after: None }
}

fn respond(r: Reply) -> Response<Full<Bytes>> {
    #[derive(Serialize)]
    struct Body<'a> {
        status: &'a str,
        reason: &'a str,
    }
    let status = if r.status == StatusCode::ACCEPTED { "accepted" } else { "refused" };
    let body = serde_json::to_vec(&Body { status, reason: r.reason }).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = r.status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert("cache-control", HeaderValue::from_static("no-store"));
    if r.status == StatusCode::METHOD_NOT_ALLOWED {
        headers.insert("allow", HeaderValue::from_static("POST"));
    }
    if let Some(secs) = r.retry_after {
        headers.insert("retry-after", HeaderValue::from(secs));
    }
    response
}

async fn answer(shared: &Arc<Shared>, req: Request<Incoming>) -> Response<Full<Bytes>> {
    respond(decide(shared, req).await)
}

/// The path's slug, when the path is exactly `/v1/events/<slug>` with a
/// slug of §21's form.
fn slug_of(req: &Request<Incoming>) -> Option<String> {
    if req.uri().query().is_some() {
        return None;
    }
    let slug = req.uri().path().strip_prefix("/v1/events/")?;
    let ok = (2..=20).contains(&slug.len()) && slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    ok.then(|| slug.to_owned())
}

fn host_ok(req: &Request<Incoming>, port: u16) -> bool {
    if req.uri().authority().is_some() || req.uri().scheme().is_some() {
        return false;
    }
    let mut hosts = req.headers().get_all(HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else { return false };
    let host = host.as_bytes();
    host == format!("127.0.0.1:{port}").as_bytes() || host == format!("localhost:{port}").as_bytes()
}

fn json_type(req: &Request<Incoming>) -> bool {
    let mut types = req.headers().get_all(CONTENT_TYPE).iter();
    let (Some(value), None) = (types.next(), types.next()) else { return false };
    let Ok(text) = value.to_str() else { return false };
    text.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// The body, or `None` when over [`MAX_BODY`] (reading stops at the limit).
async fn read_body(body: &mut Incoming) -> Result<Option<Vec<u8>>, ()> {
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| ())?;
        if let Some(data) = frame.data_ref() {
            if bytes.len() + data.len() > MAX_BODY {
                return Ok(None);
            }
            bytes.extend_from_slice(data);
        }
    }
    Ok(Some(bytes))
}

/// The presented bearer token (empty when missing or malformed).
fn presented(req: &Request<Incoming>) -> Vec<u8> {
    let mut values = req.headers().get_all(AUTHORIZATION).iter();
    let (Some(value), None) = (values.next(), values.next()) else { return Vec::new() };
    // The scheme is case-insensitive (RFC 9110 §11.1); the token is not.
    let bytes = value.as_bytes();
    match bytes.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case(b"bearer ") => bytes[7..].to_vec(),
        _ => Vec::new(),
    }
}

async fn decide(shared: &Arc<Shared>, req: Request<Incoming>) -> Reply {
    let browser = req.headers().keys().any(|k| k.as_str() == "origin" || k.as_str().starts_with("sec-fetch-"));
    if browser {
        return reply(StatusCode::FORBIDDEN, "browser_request");
    }
    if !host_ok(&req, shared.config.port) {
        return reply(StatusCode::MISDIRECTED_REQUEST, "wrong_host");
    }
    if req.method() != Method::POST {
        return reply(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    }
    let Some(slug) = slug_of(&req) else { return reply(StatusCode::NOT_FOUND, "not_found") };
    if !json_type(&req) {
        return reply(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type");
    }
    let declared = req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return reply(StatusCode::PAYLOAD_TOO_LARGE, "body_too_large");
    }
    let token = presented(&req);
    let mut body = req.into_body();
    let bytes = match tokio::time::timeout(READ_LIMIT, read_body(&mut body)).await {
        Ok(Ok(Some(bytes))) => bytes,
        Ok(Ok(None)) => return reply(StatusCode::PAYLOAD_TOO_LARGE, "body_too_large"),
        Ok(Err(())) | Err(_) => return reply(StatusCode::BAD_REQUEST, "unreadable_body"),
    };
    let shared2 = shared.clone();
    tokio::task::spawn_blocking(move || after_body(&shared2, &slug, &token, &bytes))
        .await
        .unwrap_or_else(|_| reply(StatusCode::INTERNAL_SERVER_ERROR, "internal_error"))
}

/// What a request carries once its envelope passed.
#[derive(Debug)]
struct Sent {
    event: String,
    text: Option<String>,
}

fn parse(bytes: &[u8]) -> Result<Sent, &'static str> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|_| "invalid_json")?;
    let object = value.as_object().ok_or("invalid_json")?;
    let event = object.get("event").and_then(|e| e.as_str()).ok_or("missing_event")?.to_owned();
    let text = match object.get("text") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(t)) => {
            if t.chars().count() > MAX_TEXT {
                return Err("text_too_long");
            }
            let clean = dcp_format::text::hidden_to_spaces(t).trim().to_owned();
            (!clean.is_empty()).then_some(clean)
        }
        Some(_) => return Err("invalid_json"),
    };
    Ok(Sent { event, text })
}

/// Token, state, body, limits: needs the store (run off the async threads).
fn after_body(shared: &Arc<Shared>, slug: &str, token: &[u8], bytes: &[u8]) -> Reply {
    let store = lock(&shared.store);
    // Same work whether or not the slug is installed: one indexed read, then
    // one constant-time comparison (with a dummy when there is no token).
    let sealed = store.event_token_sealed(slug).ok().flatten();
    let expected = {
        let mut tokens = lock(&shared.tokens);
        match sealed {
            Some(sealed) => {
                let fresh = tokens.get(slug).is_none_or(|(s, _)| *s != sealed);
                if fresh {
                    match store.open_event_token(slug, &sealed) {
                        Ok(t) => {
                            tokens.insert(slug.to_owned(), (sealed, t));
                        }
                        Err(_) => {
                            tokens.remove(slug);
                        }
                    }
                }
                tokens.get(slug).map(|(_, t)| Sensitive::new(t.expose().to_owned()))
            }
            None => {
                tokens.remove(slug);
                None
            }
        }
    };
    let has_token = expected.is_some();
    let against = expected.as_ref().unwrap_or(&shared.dummy);
    let equal: bool = against.expose().as_bytes().ct_eq(token).into();
    if !(equal && has_token) {
        drop(store);
        let slug = slug.to_owned();
        let shared = shared.clone();
        // After the answer: journal only for an installed plugin.
        tokio::spawn(async move {
            let _ = tokio::task::spawn_blocking(move || {
                if recently_journaled(&shared, &slug, "bad_token") {
                    return; // a flood of bad tokens costs no store read
                }
                let store = lock(&shared.store);
                if matches!(store.call_context(&slug), Ok(Some(_))) {
                    refuse_journal(&store, &shared, &slug, None, "bad_token");
                }
            })
            .await;
        });
        return reply(StatusCode::UNAUTHORIZED, "bad_token");
    }
    let refuse = |event: Option<&str>, status: StatusCode, reason: &'static str| {
        refuse_journal(&store, shared, slug, event, reason);
        reply(status, reason)
    };
    let prefs = match store.prefs() {
        Ok(p) => p,
        Err(_) => return reply(StatusCode::INTERNAL_SERVER_ERROR, "internal_error"),
    };
    let plugin = match plugin_state(&prefs, store.call_context(slug).ok().flatten()) {
        Ok(plugin) => plugin,
        Err(reason) => return refuse(None, StatusCode::FORBIDDEN, reason),
    };
    let sent = match parse(bytes) {
        Ok(sent) => sent,
        Err("text_too_long") => {
            // Checked after the event, as the table's order says.
            let event = serde_json::from_slice::<serde_json::Value>(bytes)
                .ok()
                .and_then(|v| v.get("event").and_then(|e| e.as_str()).map(str::to_owned))
                .unwrap_or_default();
            if let Some(r) = event_refusal(&store, shared, slug, &plugin, &event) {
                return r;
            }
            return refuse(Some(&event), StatusCode::BAD_REQUEST, "text_too_long");
        }
        Err(reason) => return refuse(None, StatusCode::BAD_REQUEST, reason),
    };
    if let Some(r) = event_refusal(&store, shared, slug, &plugin, &sent.event) {
        return r;
    }
    let now = shared.clock.now();
    if let Err(secs) = lock(&shared.limits).entry(slug.to_owned()).or_default().try_accept(now) {
        refuse_journal(&store, shared, slug, Some(&sent.event), "rate_limited");
        return Reply { status: StatusCode::TOO_MANY_REQUESTS, reason: "rate_limited", retry_after: Some(secs) };
    }
    let _ = store.journal_write(&NewEntry {
        plugin: slug,
        action: &sent.event,
        who: "event",
        outcome: Outcome::Received,
        code: None,
        subject: sent.text.as_deref(),
        error: None,
    });
    let _ = shared.notices.send(Notice::Received {
        plugin: slug.to_owned(),
        event: sent.event.clone(),
        text: sent.text.clone(),
    });
    let dropped =
        lock(&shared.queue).push(Waiting { plugin: slug.to_owned(), event: sent.event, text: sent.text, at: now });
    for d in &dropped {
        drop_event(&store, shared, d, "event_expired");
    }
    reply(StatusCode::ACCEPTED, "accepted")
}

/// The plugin, when its events may be received and said now; else the
/// §22 reason (developer mode first, then the plugin's own state).
fn plugin_state(prefs: &Prefs, context: Option<Arc<CallContext>>) -> Result<Arc<Plugin>, &'static str> {
    if !prefs.dev_mode || context.as_ref().is_some_and(|c| c.status == Status::DevModeOff) {
        return Err("dev_mode_off");
    }
    match context {
        Some(c) if runs(c.status) && prefs.plugins_enabled => c.plugin.clone().ok_or("plugin_off"),
        _ => Err("plugin_off"),
    }
}

/// Whether `event` is declared and switched on; else the §22 reason.
fn event_state(store: &Store, slug: &str, plugin: &Plugin, event: &str) -> Result<(), &'static str> {
    if !plugin.events.iter().any(|e| e.name == event) {
        return Err("unknown_event");
    }
    if !store.event_switches(slug).unwrap_or_default().iter().any(|e| e == event) {
        return Err("event_off");
    }
    Ok(())
}

fn event_refusal(store: &Store, shared: &Arc<Shared>, slug: &str, plugin: &Plugin, event: &str) -> Option<Reply> {
    let reason = event_state(store, slug, plugin, event).err()?;
    if reason == "unknown_event" {
        let shown = (event.len() <= 40
            && event.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'))
        .then_some(event);
        refuse_journal(store, shared, slug, shown, reason);
        return Some(reply(StatusCode::NOT_FOUND, reason));
    }
    refuse_journal(store, shared, slug, Some(event), reason);
    Some(reply(StatusCode::FORBIDDEN, reason))
}

/// Whether a refusal of this kind was journaled for this plugin within the
/// last minute.
fn recently_journaled(shared: &Shared, slug: &str, reason: &str) -> bool {
    let now = shared.clock.now();
    lock(&shared.journaled)
        .get(&(slug.to_owned(), reason.to_owned()))
        .is_some_and(|&at| now.saturating_sub(at) < JOURNAL_REFUSAL_EVERY)
}

/// Journals (and reports) a refusal, at most once a minute per plugin and
/// reason.
fn refuse_journal(store: &Store, shared: &Shared, slug: &str, event: Option<&str>, reason: &str) {
    let now = shared.clock.now();
    {
        let mut journaled = lock(&shared.journaled);
        let key = (slug.to_owned(), reason.to_owned());
        if journaled.get(&key).is_some_and(|&at| now.saturating_sub(at) < JOURNAL_REFUSAL_EVERY) {
            return;
        }
        journaled.insert(key, now);
    }
    let _ = store.journal_write(&NewEntry {
        plugin: slug,
        action: event.unwrap_or("-"),
        who: "event",
        outcome: Outcome::Refused,
        code: Some(reason),
        subject: None,
        error: None,
    });
    let _ = shared.notices.send(Notice::Refused {
        plugin: slug.to_owned(),
        event: event.map(str::to_owned),
        reason: reason.to_owned(),
    });
}
