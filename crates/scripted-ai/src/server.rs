//! The server itself: real HTTP/1.1 (hyper) on 127.0.0.1, plain or TLS,
//! in a thread and runtime of its own — so it keeps answering while a test
//! blocks on a child process (`dcplugin chat`) or runs on any runtime —
//! recording every request before it answers from the script.
//!
//! Routes: `GET /v1/models` answers [`ModelsReply`]; each
//! `POST /v1/chat/completions` takes the next [`Step`]; once the script is
//! used up, a 500 whose message says so (a test sees it, the client's error
//! path names it) — or, with [`Options::repeat`], the script again from its
//! first step (a benchmark replays one turn many times); a [`Route`] of
//! [`Options::routes`] (a server's own API beside the OpenAI-compatible one:
//! llama.cpp's `/props`, Ollama's `/api/show`…) answers its JSON; anything
//! else, a 404.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot, watch, Semaphore};

use crate::script::{Chunk, ModelsReply, Script, Step};

/// How long [`ScriptedAi::wait_for_requests`] waits before it fails the test.
const WAIT_LIMIT: Duration = Duration::from_secs(10);

/// One request as the server read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Received {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path and query, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Every header, names lowercased (as hyper gives them), values as text.
    pub headers: Vec<(String, String)>,
    /// The body as JSON; `null` when empty; a JSON string of the text when it is not JSON.
    pub body: Value,
}

impl Received {
    /// The first value of this header (name in lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The names of the tools a chat request offered, in order; none when
    /// it offered none.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| t["function"]["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

/// The server's certificate chain and private key, both PEM.
#[derive(Debug, Clone)]
pub struct Tls {
    /// The server certificate (then any intermediates).
    pub cert_pem: String,
    /// Its private key.
    pub key_pem: String,
}

impl Tls {
    /// The server side of TLS with this certificate: no client certificate,
    /// no ALPN (the Twitch-like server uses it as is).
    pub fn server_config(&self) -> io::Result<rustls::ServerConfig> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let certs = CertificateDer::pem_slice_iter(self.cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(io::Error::other)?;
        let key = PrivateKeyDer::from_pem_slice(self.key_pem.as_bytes()).map_err(io::Error::other)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(io::Error::other)?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(io::Error::other)
    }

    fn acceptor(&self) -> io::Result<tokio_rustls::TlsAcceptor> {
        let mut config = self.server_config()?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
    }
}

/// How to start the server; the default is plain HTTP on a free port.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// This port of 127.0.0.1; by default a free one that §15 does not reserve.
    pub port: Option<u16>,
    /// Serve HTTPS with this certificate.
    pub tls: Option<Tls>,
    /// After each request, the whole list of [`Received`] is written here as
    /// JSON (to a temporary name, then renamed, so a reader never sees half).
    pub received_file: Option<PathBuf>,
    /// Once the script is used up, start it again from its first step
    /// instead of answering 500: the n-th chat request gets `turns[n % len]`.
    pub repeat: bool,
    /// Besides `/v1`, these answers at the server's root: the API of the
    /// server it stands in for ([`crate::llamacpp::props`],
    /// [`crate::ollama::show`], [`crate::lmstudio::models`]; issue 34).
    pub routes: Vec<Route>,
}

/// One more route: `method path` (the path without its query) answers 200
/// with this JSON, each time.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// `GET`, `POST`, …
    pub method: &'static str,
    /// The path, e.g. `/props`.
    pub path: &'static str,
    /// The answer's body.
    pub body: Value,
}

/// A running scripted server. Dropping it stops it (a hung request included).
pub struct ScriptedAi {
    addr: SocketAddr,
    tls: bool,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ScriptedAi {
    /// Plain HTTP on a free port (an AI on this PC). Panics if it cannot start.
    pub async fn start(script: Script) -> ScriptedAi {
        ScriptedAi::launch(script, Options::default()).expect("scripted-ai: could not start")
    }

    /// HTTPS with this certificate (an "online" AI reached through the
    /// network filter's test hooks). Panics if it cannot start.
    pub async fn start_tls(script: Script, cert_pem: &str, key_pem: &str) -> ScriptedAi {
        let tls = Tls { cert_pem: cert_pem.to_owned(), key_pem: key_pem.to_owned() };
        ScriptedAi::launch(script, Options { tls: Some(tls), ..Options::default() })
            .expect("scripted-ai: could not start")
    }

    /// Starts the server from a plain (non-async) caller.
    pub fn launch(script: Script, options: Options) -> io::Result<ScriptedAi> {
        let listener = bind(options.port)?;
        let addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let acceptor = options.tls.as_ref().map(Tls::acceptor).transpose()?;
        let shared = Arc::new(Shared::new(script, options.received_file.clone(), options.repeat, options.routes));
        let (stop, stopped) = oneshot::channel();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let serving = shared.clone();
        let thread = std::thread::Builder::new()
            .name("scripted-ai".into())
            .spawn(move || runtime.block_on(serve(listener, acceptor, serving, stopped)))?;
        Ok(ScriptedAi { addr, tls: options.tls.is_some(), shared, stop: Some(stop), thread: Some(thread) })
    }

    /// The base URL an OpenAI client is given: `http://127.0.0.1:PORT/v1`
    /// (`https://` when serving TLS).
    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}/v1", self.addr.port())
    }

    /// The address it listens on (for the network filter's connect rewrites).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request so far, in the order they arrived.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received().clone()
    }

    /// The chat requests received so far (`/v1/chat/completions`), in order:
    /// without the capability questions and model lists asked beside them.
    pub fn chats(&self) -> Vec<Received> {
        self.received().into_iter().filter(|r| r.path == "/v1/chat/completions").collect()
    }

    /// Returns once `n` requests have arrived; panics after 10 s (the test
    /// would otherwise hang) naming how many came.
    pub async fn wait_for_requests(&self, n: usize) {
        let mut count = self.shared.count.subscribe();
        let arrived = matches!(tokio::time::timeout(WAIT_LIMIT, count.wait_for(|c| *c >= n)).await, Ok(Ok(_)));
        if !arrived {
            panic!("scripted-ai: waited for {n} requests, {} came", *count.borrow());
        }
    }

    /// Lets one [`Chunk::Pause`] go (the next one reached, or the one waiting).
    pub fn release(&self) {
        self.shared.gate.add_permits(1);
    }
}

impl Drop for ScriptedAi {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// 127.0.0.1:`port`, or a free port that §15 does not reserve (the
/// repo's other loopback test servers bind with it too).
pub fn bind(port: Option<u16>) -> io::Result<std::net::TcpListener> {
    if let Some(port) = port {
        return std::net::TcpListener::bind(("127.0.0.1", port));
    }
    loop {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        if dcp_format::hosts::reserved_port(listener.local_addr()?.port()).is_none() {
            return Ok(listener);
        }
    }
}

/// What the connections share: the script, the record, the gate.
struct Shared {
    script: Script,
    chats: AtomicUsize,
    received: Mutex<Vec<Received>>,
    count: watch::Sender<usize>,
    gate: Semaphore,
    received_file: Option<PathBuf>,
    repeat: bool,
    routes: Vec<Route>,
}

impl Shared {
    fn new(script: Script, received_file: Option<PathBuf>, repeat: bool, routes: Vec<Route>) -> Shared {
        Shared {
            script,
            chats: AtomicUsize::new(0),
            received: Mutex::new(Vec::new()),
            count: watch::Sender::new(0),
            gate: Semaphore::new(0),
            received_file,
            repeat,
            routes,
        }
    }

    /// The step of the `n`-th chat request (from 0), if the script has one.
    fn step(&self, n: usize) -> Option<&Step> {
        let turns = &self.script.turns;
        match self.repeat && !turns.is_empty() {
            true => turns.get(n % turns.len()),
            false => turns.get(n),
        }
    }

    fn received(&self) -> MutexGuard<'_, Vec<Received>> {
        // A panicking test thread cannot leave the list half-written: pushes are whole.
        self.received.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn record(&self, request: Received) {
        let mut received = self.received();
        received.push(request);
        if let Some(path) = &self.received_file {
            if let Err(error) = write_whole(path, &received) {
                eprintln!("scripted-ai: could not write {}: {error}", path.display());
            }
        }
        self.count.send_replace(received.len());
    }
}

fn write_whole(path: &std::path::Path, received: &[Received]) -> io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".part");
    std::fs::write(&temporary, serde_json::to_vec_pretty(received)?)?;
    std::fs::rename(&temporary, path)
}

async fn serve(
    listener: std::net::TcpListener,
    tls: Option<tokio_rustls::TlsAcceptor>,
    shared: Arc<Shared>,
    stopped: oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
    let accepting = async {
        loop {
            let Ok((tcp, _)) = listener.accept().await else { continue };
            // As a Go server (Ollama) does by default:
            // else Nagle holds each small event until the client's delayed
            // ACK (~40 ms on Linux), and a stream is timed by that, not by us.
            let _ = tcp.set_nodelay(true);
            let (tls, shared) = (tls.clone(), shared.clone());
            tokio::spawn(async move {
                match tls {
                    Some(acceptor) => {
                        if let Ok(stream) = acceptor.accept(tcp).await {
                            connection(stream, shared).await;
                        }
                    }
                    None => connection(tcp, shared).await,
                }
            });
        }
    };
    // Leaving here drops the runtime, and with it every connection (a hung one too).
    tokio::select! {
        () = accepting => {}
        _ = stopped => {}
    }
}

async fn connection<I: AsyncRead + AsyncWrite + Unpin + Send + 'static>(io: I, shared: Arc<Shared>) {
    let service = hyper::service::service_fn(move |request| answer(shared.clone(), request));
    let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(io), service).await;
}

async fn answer(shared: Arc<Shared>, request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let (parts, body) = request.into_parts();
    let bytes = body.collect().await.map(|collected| collected.to_bytes()).unwrap_or_default();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    };
    let path = parts.uri.path_and_query().map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned());
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    let method = parts.method.as_str().to_owned();
    shared.record(Received { method: method.clone(), path: path.clone(), headers, body });
    if let Some(route) = shared.routes.iter().find(|r| r.method == method && r.path == parts.uri.path()) {
        return Ok(full(200, &route.body));
    }
    match (method.as_str(), parts.uri.path()) {
        ("GET", "/v1/models") => Ok(models(&shared.script.models).await),
        ("POST", "/v1/chat/completions") => {
            let n = shared.chats.fetch_add(1, Ordering::SeqCst);
            Ok(match shared.step(n) {
                Some(step) => chat(&shared, step).await,
                None => error(
                    500,
                    &format!(
                        "scripted-ai: the script is exhausted: chat request {} has no step (the script has {})",
                        n + 1,
                        shared.script.turns.len()
                    ),
                ),
            })
        }
        _ => Ok(error(
            404,
            &format!(
                "scripted-ai: nothing at {method} {path} (it serves GET /v1/models and POST /v1/chat/completions)"
            ),
        )),
    }
}

async fn models(reply: &ModelsReply) -> Response<Body> {
    match reply {
        ModelsReply::List(ids) => {
            let data: Vec<Value> = ids
                .iter()
                .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "scripted"}))
                .collect();
            full(200, &json!({"object": "list", "data": data}))
        }
        ModelsReply::Status(status) => {
            error(*status, "scripted-ai: the script answers the model list with this status")
        }
        ModelsReply::Body(status, body) => full(*status, body),
        ModelsReply::Hang => hang().await,
    }
}

async fn chat(shared: &Arc<Shared>, step: &Step) -> Response<Body> {
    match step {
        Step::Stream(chunks) => events(shared.clone(), chunks.clone()),
        Step::Status(status, body) => full(*status, body),
        Step::Redirect(location) => {
            let mut response = full(302, &json!({"error": {"message": "moved"}}));
            if let Ok(location) = location.parse() {
                response.headers_mut().insert(hyper::header::LOCATION, location);
            }
            response
        }
        Step::Hang => hang().await,
    }
}

async fn hang() -> Response<Body> {
    std::future::pending().await
}

/// The stream, written chunk by chunk by a task of its own: each `data:`
/// event is its own body frame, sent when the one before has been taken.
fn events(shared: Arc<Shared>, chunks: Vec<Chunk>) -> Response<Body> {
    let (sender, body) = Body::channel();
    tokio::spawn(async move {
        for chunk in chunks {
            let event = match chunk {
                Chunk::Raw(value) => format!("data: {value}\n\n"),
                Chunk::Data(text) => format!("data: {text}\n\n"),
                Chunk::Pause => {
                    if let Ok(permit) = shared.gate.acquire().await {
                        permit.forget();
                    }
                    continue;
                }
                Chunk::DelayMs(ms) => {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    continue;
                }
                Chunk::Cut => {
                    let _ = sender.send(Err(io::Error::other("scripted-ai: the script cuts the stream here"))).await;
                    return;
                }
                Chunk::Comment(text) => format!(": {text}\n\n"),
                Chunk::KeepAlive(ms) => {
                    while sender.send(Ok(Bytes::from_static(b": ping\n\n"))).await.is_ok() {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                    }
                    return; // the client went away
                }
                Chunk::Calls { count, name, arguments } => {
                    if send_calls(&sender, count, &name, &arguments).await.is_err() {
                        return;
                    }
                    continue;
                }
            };
            if sender.send(Ok(Bytes::from(event))).await.is_err() {
                return; // the client went away
            }
        }
        let _ = sender.send(Ok(Bytes::from_static(b"data: [DONE]\n\n"))).await;
    });
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/event-stream"));
    headers.insert(hyper::header::CACHE_CONTROL, hyper::header::HeaderValue::from_static("no-cache"));
    response
}

/// [`Chunk::Calls`]: the events written as they go, many to a frame (one
/// frame per event would make 100,000 round trips through the channel).
async fn send_calls(
    sender: &mpsc::Sender<io::Result<Bytes>>,
    count: usize,
    name: &str,
    arguments: &str,
) -> Result<(), ()> {
    const FRAME: usize = 64 * 1024;
    let mut frame = String::new();
    for n in 0..count {
        // The fields the opening needs only: 100,000 calls stay under a client's 16 MB.
        let call = json!({"index": n, "id": format!("call_{n}"),
            "function": {"name": name, "arguments": arguments.replace("{n}", &n.to_string())}});
        let chunk = json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]});
        frame.push_str(&format!("data: {chunk}\n\n"));
        if frame.len() >= FRAME || n + 1 == count {
            sender.send(Ok(Bytes::from(std::mem::take(&mut frame)))).await.map_err(|_| ())?;
        }
    }
    Ok(())
}

fn full(status: u16, body: &Value) -> Response<Body> {
    let (sender, channel) = Body::channel();
    let _ = sender.try_send(Ok(Bytes::from(body.to_string())));
    let mut response = Response::new(channel);
    *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    response
}

/// An OpenAI-shaped error body with this status.
fn error(status: u16, message: &str) -> Response<Body> {
    full(status, &json!({"error": {"message": message, "type": "scripted_ai", "param": null, "code": null}}))
}

/// A response body fed frame by frame through a channel; an error frame
/// makes hyper cut the connection (what [`Chunk::Cut`] wants).
struct Body {
    frames: mpsc::Receiver<io::Result<Bytes>>,
}

impl Body {
    fn channel() -> (mpsc::Sender<io::Result<Bytes>>, Body) {
        let (sender, frames) = mpsc::channel(1);
        (sender, Body { frames })
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Frame<Bytes>>>> {
        self.frames.poll_recv(cx).map(|frame| frame.map(|frame| frame.map(Frame::data)))
    }
}
