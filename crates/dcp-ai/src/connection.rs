//! [`Connection`]: the companion's AI, reached — its model list and a
//! streamed chat answer ([`ChatStream`]).
//!
//! One reqwest client per connection, built on the network filter's
//! [`dcp_net::Client::pinned_builder`] (rustls, no proxy, no cookies, no
//! redirect followed, every name refused unless pinned) and kept, so
//! successive requests of a turn reuse the connection. An online host is
//! resolved when the client is first needed, every answer judged public
//! ([`dcp_net::Client::resolve_public`]) and pinned for the connection's
//! life; `localhost` is pinned to 127.0.0.1 and ::1.
//!
//! The key is sent only as `Authorization: Bearer …` (a header marked
//! sensitive) and, since nothing is redirected and every name is pinned,
//! only to the URL's host. What the service sends back may echo the key,
//! in another case, in base64 or hex (issue 32): its error messages, the
//! models it lists, its answer's text and its tool calls all go through
//! the vault's [`Masker`] of the key, the one the plugins' secrets go
//! through. The answer's text is masked as it streams ([`MaskStream`]): a
//! tail of a piece that may begin a spelling of the key is held back and
//! given with the next piece, so a key cut between two pieces is masked
//! too; the reply's text is exactly the deltas given.

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use dcp_vault::mask::{MaskStream, Masker};
use dcp_vault::Sensitive;
use reqwest::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION};
use serde_json::Value;
use tokio::sync::OnceCell;
use tokio::time::{timeout, timeout_at, Instant};
use url::Host;

use crate::assemble::{error_message, Assembler, Piece};
use crate::sse::SseDecoder;
use crate::{AiError, AiUrl, ChatRequest, PcServer, Place, RawArgs, Reply, ToolCall};

/// Sent with every request to the AI.
const USER_AGENT: &str = "DesktopCompanion/1";
/// An answer larger than this is not an answer (a runaway stream).
const ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// The part of an error body read for its message.
const ERROR_BYTES: usize = 64 * 1024;
/// The largest answer of a server's own API read ([`Connection::native_json`]):
/// llama.cpp's `/props` carries the whole chat template, Ollama's
/// `/api/show` the model's licence.
const NATIVE_BYTES: usize = 2 * 1024 * 1024;
/// How long a question to a server's own API may take, at most: a server
/// of this PC answers it at once, without loading the model.
const NATIVE_LIMIT: Duration = Duration::from_secs(5);
/// A service's message is cut to this many characters.
const MESSAGE_CHARS: usize = 300;

/// How long the AI may stay silent, and how long one answer may last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From sending a request to the first byte of the answer's body
    /// (connecting included), and then to its first event.
    pub first_byte: Duration,
    /// Between two events of an answer afterwards. Only an event (a
    /// `data:` line's end) is progress: keep-alive comments, blank lines
    /// and other fields do not reset it.
    pub between_chunks: Duration,
    /// From sending a request to the end of its answer, whatever arrives
    /// meanwhile: a stream kept open by keep-alive comments or empty chunks
    /// ends here ([`crate::AiError::TurnTooLong`]; issue 32).
    pub answer: Duration,
}

impl Limits {
    /// 120 s to the first byte — a model loaded cold on a modest PC takes
    /// that long before its first word — then 30 s between events, and
    /// 180 s for the whole answer: the cold start and a minute of words.
    pub const DEFAULT: Limits = Limits {
        first_byte: Duration::from_secs(120),
        between_chunks: Duration::from_secs(30),
        answer: Duration::from_secs(180),
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// The companion's AI: base URL, model, optional key, and its own client.
#[derive(Clone)]
pub struct Connection {
    url: AiUrl,
    model: String,
    key: Option<Arc<Sensitive>>,
    /// Masks the key in whatever the service sends back.
    masker: Arc<Masker>,
    limits: Limits,
    /// The most tokens one answer may have (the request's `max_tokens`).
    max_tokens: u32,
    net: dcp_net::Client,
    http: Arc<OnceCell<reqwest::Client>>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("url", &self.url.as_str())
            .field("model", &self.model)
            .field("key_set", &self.key.is_some())
            .finish_non_exhaustive()
    }
}

/// What a chat stream yields: pieces of text as they come, then the whole
/// answer once.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    /// A piece of the answer's text.
    Delta(String),
    /// The whole answer (its text is every delta joined).
    Done(Reply),
}

impl Connection {
    /// The most tokens one answer may have, unless the player sets another
    /// (issue 34): far more than any answer a companion should give (about
    /// 1,500 words) or a tool call takes, with room for a reasoning model's
    /// thinking, which servers count in it; a model that loops stops there,
    /// its answer said to be cut, instead of streaming until its context is
    /// full (minutes on a PC).
    pub const MAX_TOKENS: u32 = 2048;

    /// A connection to `url` for `model`. Nothing is sent yet. With the
    /// `test-net` feature, dcp-net's `DCPLUGIN_TEST_*` hooks are read here.
    pub fn new(url: AiUrl, model: String, key: Option<Sensitive>) -> Connection {
        Connection {
            url,
            model,
            masker: Arc::new(Masker::new(key.as_ref().map(Sensitive::expose))),
            key: key.filter(|k| !k.is_empty()).map(Arc::new),
            limits: Limits::DEFAULT,
            max_tokens: Connection::MAX_TOKENS,
            net: dcp_net::Client::new(),
            http: Arc::new(OnceCell::new()),
        }
    }

    /// The same connection with other time limits.
    pub fn with_limits(mut self, limits: Limits) -> Connection {
        self.limits = limits;
        self
    }

    /// The same connection answering in `max_tokens` tokens at most (the
    /// player's setting; [`Connection::MAX_TOKENS`] otherwise).
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Connection {
        self.max_tokens = max_tokens;
        self
    }

    /// The same connection with injected test hooks instead of the
    /// environment (parallel tests do not race on variables). Test builds only.
    #[cfg(feature = "test-net")]
    pub fn with_test_overrides(mut self, test: dcp_net::TestOverrides) -> Connection {
        self.net = dcp_net::Client::with_test_overrides(test);
        self.http = Arc::new(OnceCell::new());
        self
    }

    /// The base URL.
    pub fn url(&self) -> &AiUrl {
        &self.url
    }

    /// Where the AI runs.
    pub fn place(&self) -> Place {
        self.url.place()
    }

    /// The model asked for.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Whether a key is sent.
    pub fn has_key(&self) -> bool {
        self.key.is_some()
    }

    /// The models the service offers: `GET {base}/models`, in the OpenAI
    /// shape (`{"data":[{"id"}]}`) or Ollama's (`{"models":[{"name"}]}`).
    pub async fn models(&self) -> Result<Vec<String>, AiError> {
        let response = self.start(reqwest::Method::GET, self.url.join("models"), None, Purpose::Models).await?;
        let body = self.read_all(response, ERROR_BYTES * 16).await?;
        let bad = |detail: &str| AiError::BadAnswer { url: self.url.join("models"), detail: detail.to_owned() };
        let json: Value = serde_json::from_slice(&body).map_err(|_| bad("the model list is not JSON"))?;
        let (list, key) = match (json.get("data"), json.get("models")) {
            (Some(Value::Array(list)), _) => (list, "id"),
            (_, Some(Value::Array(list))) => (list, "name"),
            _ => return Err(bad("no model list (neither \"data\" nor \"models\")")),
        };
        let names = list.iter().filter_map(|m| m.get(key).or_else(|| m.get("model"))?.as_str());
        Ok(names.map(|name| self.masker.mask(name)).collect())
    }

    /// Sends `req` (`POST {base}/chat/completions`, streamed) and returns
    /// the answer as it comes. Errors before the first byte come here; later
    /// ones from [`ChatStream::next`].
    pub async fn chat(&self, req: &ChatRequest) -> Result<ChatStream, AiError> {
        self.chat_body(req.body(&self.model, self.max_tokens)).await
    }

    /// Sends this body to `POST {base}/chat/completions` and returns the
    /// answer as it comes, streamed or whole, within this connection's
    /// limits: [`Connection::chat`]'s request, or another one's
    /// ([`Connection::probe_tools`]).
    pub(crate) async fn chat_body(&self, body: Vec<u8>) -> Result<ChatStream, AiError> {
        let deadline = Instant::now() + self.limits.answer;
        let response =
            self.start(reqwest::Method::POST, self.url.join("chat/completions"), Some(body), Purpose::Chat).await?;
        let whole_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.trim_start().starts_with("application/json"));
        Ok(ChatStream {
            response: Some(response),
            whole_json,
            body: Vec::new(),
            sse: SseDecoder::new(),
            asm: Some(Assembler::new()),
            queue: VecDeque::new(),
            events: 0,
            bytes: 0,
            progress: Instant::now(),
            deadline,
            ctx: self.context(),
            masked: MaskStream::new(self.masker.clone()),
            shown: String::new(),
        })
    }

    fn context(&self) -> Context {
        Context {
            url: self.url.as_str().to_owned(),
            model: self.model.clone(),
            masker: self.masker.clone(),
            limits: self.limits,
        }
    }

    /// This connection with every time limit `most` at most: a question
    /// asked beside the turns, which must not wait as long as an answer.
    pub(crate) fn within(&self, most: Duration) -> Connection {
        let short = |limit: Duration| limit.min(most);
        self.clone().with_limits(Limits {
            first_byte: short(self.limits.first_byte),
            between_chunks: short(self.limits.between_chunks),
            answer: short(self.limits.answer),
        })
    }

    /// `method {root}/{path}` (the server's own API, outside its
    /// OpenAI-compatible base: see [`AiUrl::root_join`]) with `body`, within
    /// [`NATIVE_LIMIT`] at most; its answer if it is JSON of at most
    /// [`NATIVE_BYTES`], `None` for anything else (an error, a timeout, a
    /// status, a longer or broken body): a question that may go unanswered.
    pub(crate) async fn native_json(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Option<Value> {
        let asking = self.within(NATIVE_LIMIT);
        let body = body.map(|b| b.to_string().into_bytes());
        let response = asking.start(method, self.url.root_join(path), body, Purpose::Native).await.ok()?;
        let bytes = asking.read_all(response, NATIVE_BYTES + 1).await.ok()?;
        if bytes.len() > NATIVE_BYTES {
            return None;
        }
        serde_json::from_slice(&bytes).ok()
    }

    /// Sends one request to `target` and judges its status; the body is left unread.
    async fn start(
        &self,
        method: reqwest::Method,
        target: String,
        body: Option<Vec<u8>>,
        purpose: Purpose,
    ) -> Result<reqwest::Response, AiError> {
        let ctx = self.context();
        let send = async {
            let http = self.http.get_or_try_init(|| self.build_http()).await?;
            let accept = match purpose {
                Purpose::Chat => "text/event-stream, application/json",
                Purpose::Models | Purpose::Native => "application/json",
            };
            let mut request = http.request(method, target).header(ACCEPT, accept);
            if let Some(key) = &self.key {
                // A key that cannot be a header value (a line break) is
                // refused here rather than sent mangled.
                let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
                    .map_err(|_| AiError::KeyRefused { url: ctx.url.clone(), status: 0 })?;
                value.set_sensitive(true);
                request = request.header(AUTHORIZATION, value);
            }
            if let Some(body) = body {
                request = request.header(CONTENT_TYPE, "application/json").body(body);
            }
            request.send().await.map_err(|e| ctx.send_error(&e, self.url.port()))
        };
        let response = timeout(ctx.limits.first_byte, send).await.map_err(|_| ctx.timeout(ctx.limits.first_byte))??;
        let status = response.status().as_u16();
        match status {
            200..=299 => Ok(response),
            300..=399 => {
                let location = response.headers().get(LOCATION).and_then(|v| v.to_str().ok()).map(|l| ctx.mask(l));
                Err(AiError::Redirect { url: ctx.url.clone(), status, location })
            }
            401 | 403 => Err(AiError::KeyRefused { url: ctx.url.clone(), status }),
            _ => {
                let body = self.read_all(response, ERROR_BYTES).await.unwrap_or_default();
                let message = match serde_json::from_slice::<Value>(&body) {
                    Ok(json) => error_message(&json),
                    Err(_) => String::from_utf8_lossy(&body).trim().to_owned(),
                };
                Err(ctx.classify(status, &message, purpose))
            }
        }
    }

    /// Reads a whole body, at most `limit` bytes (a longer one is cut),
    /// within [`Limits::answer`] from now (a body trickled a byte at a time
    /// ends there too).
    async fn read_all(&self, mut response: reqwest::Response, limit: usize) -> Result<Vec<u8>, AiError> {
        let ctx = self.context();
        let deadline = Instant::now() + ctx.limits.answer;
        let mut body = Vec::new();
        loop {
            let quiet = Instant::now() + ctx.limits.between_chunks;
            let next = timeout_at(quiet.min(deadline), response.chunk()).await;
            let waited = if quiet <= deadline { ctx.limits.between_chunks } else { ctx.limits.answer };
            match next.map_err(|_| ctx.timeout(waited))? {
                Ok(Some(chunk)) => {
                    body.extend_from_slice(&chunk);
                    if body.len() >= limit {
                        body.truncate(limit);
                        return Ok(body);
                    }
                }
                Ok(None) => return Ok(body),
                Err(e) => return Err(ctx.broken(&e)),
            }
        }
    }

    async fn build_http(&self) -> Result<reqwest::Client, AiError> {
        let port = self.url.port();
        let builder = self.net.pinned_builder().user_agent(USER_AGENT);
        let builder = match (self.url.place(), self.url.host_kind()) {
            // A literal was judged with the URL (loopback, or public online).
            (Place::Pc, Some(Host::Ipv4(_) | Host::Ipv6(_))) => builder,
            (Place::Online, Some(Host::Ipv4(_) | Host::Ipv6(_))) => builder.https_only(true),
            (Place::Pc, _) => builder.resolve_to_addrs(
                "localhost",
                &[
                    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
                    SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port),
                ],
            ),
            (Place::Online, _) => {
                let host = self.url.host();
                let addrs = self.net.resolve_public(host, port).await.map_err(|e| self.net_error(e))?;
                builder.https_only(true).resolve_to_addrs(host, &addrs)
            }
        };
        builder.build().map_err(|e| AiError::NotListening {
            url: self.url.as_str().to_owned(),
            advice: format!("the connection could not be prepared ({e})"),
        })
    }

    fn net_error(&self, error: dcp_net::NetError) -> AiError {
        let url = self.url.as_str().to_owned();
        match error {
            dcp_net::NetError::PrivateAddress => AiError::PrivateAddress { url },
            dcp_net::NetError::DnsFailed { host } => AiError::NotListening {
                url,
                advice: format!("the name {host} was not found: check the URL, or whether this PC is online"),
            },
            other => AiError::NotListening { url, advice: format!("{other}: check the URL") },
        }
    }
}

/// What a request was for: a 404 means another thing for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Models,
    Chat,
    /// A question to the server's own API ([`Connection::native_json`]),
    /// whose refusal is only "no answer".
    Native,
}

/// What errors need to be written (owned, so a stream outlives the borrow).
#[derive(Clone)]
struct Context {
    url: String,
    model: String,
    masker: Arc<Masker>,
    limits: Limits,
}

impl Context {
    /// A service's text with the key masked in every spelling, cut to a
    /// readable length.
    fn mask(&self, text: &str) -> String {
        let text = self.masker.mask(text);
        match text.char_indices().nth(MESSAGE_CHARS) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text,
        }
    }

    /// A tool call with the key masked in its name and arguments: a model
    /// may write the key it read into a call, which would take it to a
    /// plugin's server and into the journal.
    fn masked_call(&self, call: ToolCall) -> ToolCall {
        let arguments = match call.arguments {
            RawArgs::Text(text) => RawArgs::Text(self.masker.mask(&text)),
            RawArgs::Value(value) => {
                let text = value.to_string();
                let masked = self.masker.mask(&text);
                // Read again from the masked text, as arguments sent as a string are.
                if masked == text {
                    RawArgs::Value(value)
                } else {
                    RawArgs::Text(masked)
                }
            }
        };
        ToolCall { name: self.masker.mask(&call.name), arguments, ..call }
    }

    fn timeout(&self, waited: Duration) -> AiError {
        AiError::Timeout { url: self.url.clone(), waited }
    }

    fn too_long(&self) -> AiError {
        AiError::TurnTooLong { url: self.url.clone(), limit: self.limits.answer }
    }

    fn send_error(&self, error: &reqwest::Error, port: u16) -> AiError {
        if error.is_timeout() {
            return self.timeout(self.limits.first_byte);
        }
        let refused = std::iter::successors(std::error::Error::source(error), |e| e.source()).any(|e| {
            e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        });
        let advice = if refused {
            match PcServer::on_port(port) {
                Some(server) => server.start().to_owned(),
                None => format!("start {}, and check that it listens on port {port}", PcServer::names_or()),
            }
        } else if error.is_connect() {
            "the connection or its TLS handshake failed: check the URL".to_owned()
        } else {
            "the connection broke before an answer: check that the service is running".to_owned()
        };
        AiError::NotListening { url: self.url.clone(), advice }
    }

    fn broken(&self, error: &reqwest::Error) -> AiError {
        if error.is_timeout() {
            return self.timeout(self.limits.between_chunks);
        }
        AiError::BadAnswer { url: self.url.clone(), detail: "the connection broke in the middle of the answer".into() }
    }

    fn classify(&self, status: u16, message: &str, purpose: Purpose) -> AiError {
        let message = self.mask(message);
        let lower = message.to_lowercase();
        let (url, model) = (self.url.clone(), self.model.clone());
        let names_model_missing = lower.contains("model")
            && ["not found", "does not exist", "unknown model", "no such model", "not loaded", "model_not_found"]
                .iter()
                .any(|m| lower.contains(m));
        if purpose == Purpose::Chat
            && ["does not support tools", "tools param requires --jinja", "does not support tool"]
                .iter()
                .any(|m| lower.contains(m))
        {
            return AiError::NoTools { url, model, message };
        }
        match purpose {
            Purpose::Chat if status == 404 || names_model_missing => AiError::ModelUnknown { url, model, message },
            Purpose::Models if status == 404 => AiError::Http {
                url: url.clone(),
                status,
                message: format!("no model list at {url}/models: is this the base URL (it usually ends in /v1)?"),
            },
            _ => AiError::Http { url, status, message },
        }
    }
}

/// A chat answer arriving: [`StreamItem::Delta`]s, then one
/// [`StreamItem::Done`]; or an error, after which nothing more comes.
pub struct ChatStream {
    response: Option<reqwest::Response>,
    whole_json: bool,
    body: Vec<u8>,
    sse: SseDecoder,
    asm: Option<Assembler>,
    queue: VecDeque<Result<StreamItem, AiError>>,
    events: usize,
    bytes: usize,
    /// When the answer last made progress (an event; any byte of a whole
    /// JSON body), or when the stream began.
    progress: Instant,
    /// When the answer must have ended ([`Limits::answer`] from sending).
    deadline: Instant,
    ctx: Context,
    /// The answer's text, masked as it comes (see the module doc).
    masked: MaskStream,
    /// The text given so far in deltas: the reply's text.
    shown: String,
}

impl std::fmt::Debug for ChatStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatStream").field("url", &self.ctx.url).field("bytes", &self.bytes).finish_non_exhaustive()
    }
}

impl ChatStream {
    /// The next piece; `None` once the whole answer (or an error) was given.
    pub async fn next(&mut self) -> Option<Result<StreamItem, AiError>> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Some(item);
            }
            let response = self.response.as_mut()?;
            // Until the first event, the AI may still be loading its model.
            let quiet = if self.events == 0 && self.body.is_empty() {
                self.ctx.limits.first_byte
            } else {
                self.ctx.limits.between_chunks
            };
            let until = (self.progress + quiet).min(self.deadline);
            let chunk = match timeout_at(until, response.chunk()).await {
                Err(_) if until == self.deadline => Err(self.ctx.too_long()),
                Err(_) => Err(self.ctx.timeout(quiet)),
                Ok(Err(e)) => Err(self.ctx.broken(&e)),
                Ok(Ok(chunk)) => Ok(chunk),
            };
            match chunk {
                Err(error) => self.fail(error),
                Ok(Some(bytes)) => {
                    self.bytes += bytes.len();
                    if self.bytes > ANSWER_BYTES {
                        self.fail(self.bad(&format!("the answer is over {} MB", ANSWER_BYTES / (1024 * 1024))));
                    } else if self.whole_json {
                        self.body.extend_from_slice(&bytes);
                        self.progress = Instant::now();
                    } else {
                        let events = self.sse.feed(&bytes);
                        if !events.is_empty() {
                            self.progress = Instant::now();
                        }
                        for data in events {
                            self.event(&data);
                        }
                    }
                }
                Ok(None) => self.end(),
            }
        }
    }

    fn bad(&self, detail: &str) -> AiError {
        AiError::BadAnswer { url: self.ctx.url.clone(), detail: detail.to_owned() }
    }

    fn fail(&mut self, error: AiError) {
        self.response = None;
        self.asm = None;
        self.queue.push_back(Err(error));
    }

    fn event(&mut self, data: &str) {
        let Some(asm) = self.asm.as_mut() else { return };
        self.events += 1;
        match asm.feed(data) {
            Ok(Piece::Text(pieces)) => self.text(pieces),
            Ok(Piece::Done) => self.done(),
            Ok(Piece::Error(message)) => {
                let error = self.ctx.classify(200, &message, Purpose::Chat);
                self.fail(error);
            }
            Err(detail) => self.fail(self.bad(&detail)),
        }
    }

    fn done(&mut self) {
        self.response = None;
        if let Some(asm) = self.asm.take() {
            let held = std::mem::replace(&mut self.masked, MaskStream::new(self.ctx.masker.clone()));
            self.delta(held.finish());
            let mut reply = asm.finish();
            reply.text = std::mem::take(&mut self.shown);
            reply.tool_calls = reply.tool_calls.into_iter().map(|call| self.ctx.masked_call(call)).collect();
            self.queue.push_back(Ok(StreamItem::Done(reply)));
        }
    }

    /// Pieces of the answer's text: given masked, maybe later (see the module doc).
    fn text(&mut self, pieces: Vec<String>) {
        for piece in pieces {
            let shown = self.masked.push(&piece);
            self.delta(shown);
        }
    }

    fn delta(&mut self, shown: String) {
        if !shown.is_empty() {
            self.shown.push_str(&shown);
            self.queue.push_back(Ok(StreamItem::Delta(shown)));
        }
    }

    /// The body ended: a whole JSON completion, or SSE without `[DONE]`.
    fn end(&mut self) {
        if self.whole_json {
            let body = std::mem::take(&mut self.body);
            match serde_json::from_slice::<Value>(&body) {
                Ok(json) if json.get("error").is_some() => {
                    let error = self.ctx.classify(200, &error_message(&json), Purpose::Chat);
                    self.fail(error)
                }
                Ok(json) => {
                    if let Some(asm) = self.asm.as_mut() {
                        match asm.feed_value(&json) {
                            Ok(Piece::Text(pieces)) => self.text(pieces),
                            Ok(_) => {}
                            Err(detail) => return self.fail(self.bad(&detail)),
                        }
                    }
                    self.done();
                }
                Err(_) => self.fail(self.bad("the answer is not JSON")),
            }
            return;
        }
        if let Some(data) = self.sse.finish() {
            self.event(&data);
        }
        if self.asm.is_some() && self.events == 0 {
            return self.fail(self.bad("the answer is not server-sent events"));
        }
        self.done();
    }
}
