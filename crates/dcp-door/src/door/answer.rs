//! One request's answer, decided in §16's order, each step knowing nothing
//! of the later ones: 403 browser (`Origin` or any `Sec-Fetch-*`), 421
//! Host, 405 method, 404 path, 415 type, 413 size, 401 token, 403
//! `dev_mode_off` / `plugin_off`, 400 JSON, 404 `unknown_event`, 403
//! `event_off`, 400 text, 429 `rate_limited`, 202 (journaled, queued).
//! Every body is `{"status": EventReason::Accepted|"refused", "reason": …}`; no CORS
//! header is ever sent.

use super::connections::{Phase, Slot};
use super::journal::{bad_token_later, refuse_journal};
use super::switches::{event_state, plugin_state};
use super::ticker::{drop_event, Notice};
use super::token::presented;
use super::{lock, Shared, MAX_BODY, MAX_TEXT};
use crate::queue::Waiting;
use bytes::Bytes;
use dcp_format::codes::EventReason;
use dcp_format::model::Plugin;
use dcp_store::journal::{NewEntry, Outcome};
use dcp_store::Store;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, HOST};
use hyper::{Method, Request, Response, StatusCode};
use std::sync::{Arc, TryLockError};

/// An answer of the table.
struct Reply {
    status: StatusCode,
    reason: EventReason,
    retry_after: Option<u64>,
}

const fn reply(status: StatusCode, reason: EventReason) -> Reply {
    Reply { status, reason, retry_after: None }
}

fn respond(r: Reply) -> Response<Full<Bytes>> {
    let status = if r.status == StatusCode::ACCEPTED { "accepted" } else { "refused" };
    // Every reason is a fixed code of [a-z_]: nothing to escape.
    let body = format!(r#"{{"status":"{status}","reason":"{}"}}"#, r.reason);
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

/// Answers one request of a connection, which waits for its body, then
/// is answered, then waits for its next request (see connections).
pub(super) async fn answer(shared: &Arc<Shared>, slot: &Slot, req: Request<Incoming>) -> Response<Full<Bytes>> {
    slot.enter(Phase::Body);
    let response = respond(decide(shared, slot, req).await);
    slot.enter(Phase::Head);
    response
}

/// The path's slug, when the path is exactly `/v1/events/<slug>` with a
/// slug of §21's form.
fn slug_of(req: &Request<Incoming>) -> Option<String> {
    if req.uri().query().is_some() {
        return None;
    }
    let slug = req.uri().path().strip_prefix("/v1/events/")?;
    dcp_format::names::is_slug(slug).then(|| slug.to_owned())
}

fn host_ok(req: &Request<Incoming>, allowed: &[String; 2]) -> bool {
    if req.uri().authority().is_some() || req.uri().scheme().is_some() {
        return false;
    }
    let mut hosts = req.headers().get_all(HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else { return false };
    let host = host.as_bytes();
    allowed.iter().any(|h| host == h.as_bytes())
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

async fn decide(shared: &Arc<Shared>, slot: &Slot, req: Request<Incoming>) -> Reply {
    let browser = req.headers().keys().any(|k| k.as_str() == "origin" || k.as_str().starts_with("sec-fetch-"));
    if browser {
        return reply(StatusCode::FORBIDDEN, EventReason::BrowserRequest);
    }
    if !host_ok(&req, &shared.hosts) {
        return reply(StatusCode::MISDIRECTED_REQUEST, EventReason::WrongHost);
    }
    if req.method() != Method::POST {
        return reply(StatusCode::METHOD_NOT_ALLOWED, EventReason::MethodNotAllowed);
    }
    let Some(slug) = slug_of(&req) else { return reply(StatusCode::NOT_FOUND, EventReason::NotFound) };
    if !json_type(&req) {
        return reply(StatusCode::UNSUPPORTED_MEDIA_TYPE, EventReason::UnsupportedMediaType);
    }
    let declared = req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return reply(StatusCode::PAYLOAD_TOO_LARGE, EventReason::BodyTooLarge);
    }
    let token = presented(&req);
    // With a declared length (within the limit, so the body cannot be over
    // it: hyper reads exactly that many bytes), the token is checked before
    // the body is read, which changes no answer; a chunked body is read
    // first, since its size decides 413 before the token.
    let mut checked = None;
    if declared.is_some() {
        checked = token_here(shared, &slug, &token);
        if checked == Some(false) {
            bad_token_later(shared, &slug);
            return reply(StatusCode::UNAUTHORIZED, EventReason::BadToken);
        }
    }
    let mut body = req.into_body();
    // A body slower than its limit closes the connection (see connections).
    let bytes = match read_body(&mut body).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return reply(StatusCode::PAYLOAD_TOO_LARGE, EventReason::BodyTooLarge),
        Err(()) => return reply(StatusCode::BAD_REQUEST, EventReason::UnreadableBody),
    };
    slot.enter(Phase::Answering);
    if declared.is_none() {
        checked = token_here(shared, &slug, &token);
        if checked == Some(false) {
            bad_token_later(shared, &slug);
            return reply(StatusCode::UNAUTHORIZED, EventReason::BadToken);
        }
    }
    let shared2 = shared.clone();
    let token = checked.is_none().then_some(token);
    tokio::task::spawn_blocking(move || after_body(&shared2, &slug, token.as_deref(), &bytes))
        .await
        .unwrap_or_else(|_| reply(StatusCode::INTERNAL_SERVER_ERROR, EventReason::InternalError))
}

/// The token check on this task, when the store is free and the token
/// needs no opening (microseconds: one indexed read, and a read in WAL
/// mode waits for no writer), so a flood of bad tokens costs no trip to the
/// blocking threads; `None` when it must be done there, with the rest. A
/// bad token's journal line is written later.
fn token_here(shared: &Shared, slug: &str, token: &[u8]) -> Option<bool> {
    match shared.store.try_lock() {
        Ok(store) => shared.tokens.check_opened(&store, slug, token),
        Err(TryLockError::Poisoned(store)) => shared.tokens.check_opened(&store.into_inner(), slug, token),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// What a request carries once its envelope passed.
#[derive(Debug)]
struct Sent {
    event: String,
    text: Option<String>,
}

fn parse(bytes: &[u8]) -> Result<Sent, EventReason> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|_| EventReason::InvalidJson)?;
    let object = value.as_object().ok_or(EventReason::InvalidJson)?;
    let event = object.get("event").and_then(|e| e.as_str()).ok_or(EventReason::MissingEvent)?.to_owned();
    let text = match object.get("text") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(t)) => {
            if t.chars().count() > MAX_TEXT {
                return Err(EventReason::TextTooLong);
            }
            let clean = dcp_format::text::hidden_to_spaces(t).trim().to_owned();
            (!clean.is_empty()).then_some(clean)
        }
        Some(_) => return Err(EventReason::InvalidJson),
    };
    Ok(Sent { event, text })
}

/// Token (unless `token` is `None`: checked already), state, body, limits:
/// needs the store (run off the async threads).
fn after_body(shared: &Arc<Shared>, slug: &str, token: Option<&[u8]>, bytes: &[u8]) -> Reply {
    let store = lock(&shared.store);
    if token.is_some_and(|token| !shared.tokens.check(&store, slug, token)) {
        drop(store);
        // After the answer: journal only for an installed plugin.
        bad_token_later(shared, slug);
        return reply(StatusCode::UNAUTHORIZED, EventReason::BadToken);
    }
    let refuse = |event: Option<&str>, status: StatusCode, reason: EventReason| {
        refuse_journal(&store, shared, slug, event, reason);
        reply(status, reason)
    };
    let prefs = match store.prefs() {
        Ok(p) => p,
        Err(_) => return reply(StatusCode::INTERNAL_SERVER_ERROR, EventReason::InternalError),
    };
    let plugin = match plugin_state(&prefs, store.call_context(slug).ok().flatten()) {
        Ok(plugin) => plugin,
        Err(reason) => return refuse(None, StatusCode::FORBIDDEN, reason),
    };
    let sent = match parse(bytes) {
        Ok(sent) => sent,
        Err(EventReason::TextTooLong) => {
            // Checked after the event, as the table's order says.
            let event = serde_json::from_slice::<serde_json::Value>(bytes)
                .ok()
                .and_then(|v| v.get("event").and_then(|e| e.as_str()).map(str::to_owned))
                .unwrap_or_default();
            if let Some(r) = event_refusal(&store, shared, slug, &plugin, &event) {
                return r;
            }
            return refuse(Some(&event), StatusCode::BAD_REQUEST, EventReason::TextTooLong);
        }
        Err(reason) => return refuse(None, StatusCode::BAD_REQUEST, reason),
    };
    if let Some(r) = event_refusal(&store, shared, slug, &plugin, &sent.event) {
        return r;
    }
    let now = shared.clock.now();
    if let Err(secs) = lock(&shared.limits).entry(slug.to_owned()).or_default().try_accept(now) {
        refuse_journal(&store, shared, slug, Some(&sent.event), EventReason::RateLimited);
        return Reply {
            status: StatusCode::TOO_MANY_REQUESTS,
            reason: EventReason::RateLimited,
            retry_after: Some(secs),
        };
    }
    let _ = store.journal_write(&NewEntry::event(slug, &sent.event, Outcome::Received, None, sent.text.as_deref()));
    let _ = shared.notices.send(Notice::Received {
        plugin: slug.to_owned(),
        event: sent.event.clone(),
        text: sent.text.clone(),
    });
    let dropped =
        lock(&shared.queue).push(Waiting { plugin: slug.to_owned(), event: sent.event, text: sent.text, at: now });
    for d in &dropped {
        drop_event(&store, shared, d, EventReason::EventExpired);
    }
    reply(StatusCode::ACCEPTED, EventReason::Accepted)
}

fn event_refusal(store: &Store, shared: &Arc<Shared>, slug: &str, plugin: &Plugin, event: &str) -> Option<Reply> {
    let reason = event_state(store, slug, plugin, event).err()?;
    if reason == EventReason::UnknownEvent {
        let shown = dcp_format::names::is_event_name(event).then_some(event);
        refuse_journal(store, shared, slug, shown, reason);
        return Some(reply(StatusCode::NOT_FOUND, reason));
    }
    refuse_journal(store, shared, slug, Some(event), reason);
    Some(reply(StatusCode::FORBIDDEN, reason))
}
