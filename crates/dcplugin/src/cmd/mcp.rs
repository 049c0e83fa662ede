//! `dcplugin mcp`: the installed plugins' actions served to an AI app (Claude
//! Desktop, VS Code, LM Studio, …) over the Model Context Protocol, on
//! standard input and output (issue 24). A shell like `chat`: every rule is
//! the host's. The tools are [`Host::offer`] for a turn of [`Source::Mcp`]
//! (the player's own app, which the courtier treats as the keyboard); each
//! `tools/call` is one turn through [`Host::call`] (or [`Host::call_asking`]
//! when the client can ask the player), so consent, sealed secrets, the
//! network filter, the courtier and the journal are the same as for the
//! companion. A failure or a refusal is a tool result with `isError` and the
//! §22 text the AI reads, never a protocol error, so the model can explain it.
//!
//! The tool list follows the profile: it is worked out again every second
//! and a change (a plugin installed, updated, switched, removed, by any
//! process) is sent as `notifications/tools/list_changed`. Nothing the
//! client sends is logged: the server writes nothing but the protocol on
//! standard output, and the journal gets what every call records, with
//! the name the client gave itself in `initialize` (cleaned and cut).
//!
//! A call the client cancels (`notifications/cancelled`, issue 32) gets no
//! result (MCP: the receiver of a cancel sends no response), and the
//! server stops waiting for it at once, as the companion's Stop stops a
//! turn (issue 33). Its R3 question is withdrawn: a question not yet asked
//! is never asked, an open elicitation is cancelled towards the client,
//! and the call ends declined with nothing sent, whatever answer comes
//! later. A request already on the wire (an R0–R2 call, or an R3 accepted
//! before the cancel came) runs to its end in the host and keeps its
//! journal line. A call cancelled before it began (issue 33) is not run at
//! all: nothing sent, no journal line. Once begun, an R0–R2 call has no
//! wait before its request goes out (prepare is a few store reads; BUSY is
//! refused, not waited for), so it runs to its end as one already sent
//! does.
//!
//! Each call runs as a task of its own, counted in [`UnderWay`]: when the
//! client closes the session, the server ends once every call begun has
//! ended, so none loses its journal line to the process's exit (a call the
//! client cancelled, or one rmcp stops waiting for at the session's end).
//!
//! What the client sends wrong is answered as JSON-RPC 2.0 says (issue
//! 34): a line that is not JSON with a parse error (-32700, `"id": null`),
//! which rmcp would drop unanswered ([`Wire`] reads standard input before
//! rmcp does); a `tools/call` or `tools/list` whose params are not theirs
//! with invalid params (-32602), which rmcp would answer as a method not
//! found ([`ServerHandler::on_custom_request`]).

use dcp_host::{
    Answer, Ask, CallOutcome, Decision, Host, JournalOutcome, Level, Offer, Place, Question, Schema, Source, Turn,
};
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ClientResult, ConstString, ContentBlock, CustomRequest, CustomResult, ElicitRequest, ElicitRequestParams,
    ElicitationAction, ElicitationSchema, ErrorCode, Implementation, ListToolsRequestMethod, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, RequestId, ServerCapabilities, ServerConfig, ServerRequest, Tool,
    ToolAnnotations,
};
use rmcp::service::{Peer, PeerRequestOptions, RequestContext, RoleServer};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// How often the tool list is worked out again to see whether it changed:
/// as often as a running app looks at the statuses (`background.rs`). An
/// unchanged profile costs one read of its generation and a `stat` per
/// plugin (the store keeps each plugin's context).
const FOLLOW_EVERY: Duration = Duration::from_secs(1);

/// The longest message read from the client: a tool call's arguments are a
/// few strings and numbers (§7); a longer line is dropped unread, and the
/// server goes on serving.
const LONGEST_MESSAGE: usize = 1024 * 1024;

/// JSON-RPC 2.0's answer to a line that is not JSON: there is no request
/// to name, so its id is null.
const PARSE_ERROR: &[u8] =
    b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: the line is not JSON\"}}\n";

/// What each pipe between [`Wire`] and rmcp holds before its writer waits.
const PIPE_BYTES: usize = 64 * 1024;

/// Serves until the client closes standard input. Exit 0 then, 1 when the
/// client never completed `initialize`.
pub fn run(host: &Host, model: Place) -> anyhow::Result<ExitCode> {
    let server = Server { host: host.clone(), model, under_way: UnderWay::default() };
    host.block_on(async {
        let (transport, wire) = Wire::start();
        let running = match server.clone().serve(transport).await {
            Ok(running) => running,
            Err(e) => {
                // rmcp's error may quote what the client sent: cleaned like any outside text.
                eprintln!("dcplugin mcp: the client did not start a session: {}", crate::shown::line(&e.to_string()));
                wire.ended().await;
                return Ok(ExitCode::from(super::REFUSED));
            }
        };
        let peer = running.peer().clone();
        tokio::select! {
            _ = running.waiting() => {}
            () = server.follow(peer) => {}
        }
        server.under_way.ended().await;
        wire.ended().await;
        Ok(ExitCode::SUCCESS)
    })
}

/// Standard input and output around rmcp's transport, which talks to two
/// pipes: every line of standard input that is JSON goes on to rmcp as it
/// is, and one that is not is answered [`PARSE_ERROR`]; rmcp's lines and
/// those answers go out whole, one at a time, on standard output.
struct Wire {
    /// Writes standard output until rmcp's side closes.
    mouth: tokio::task::JoinHandle<()>,
}

impl Wire {
    /// The transport rmcp serves on, with the tasks that feed it and say
    /// what it writes.
    fn start() -> (AsyncRwTransport<RoleServer, DuplexStream, DuplexStream>, Wire) {
        let (to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE_BYTES);
        let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
        let (answers, answered) = tokio::sync::mpsc::channel(16);
        // Ends with standard input, which closes rmcp's: the session ends.
        drop(tokio::spawn(ear(BufReader::new(tokio::io::stdin()), to_rmcp, answers)));
        let mouth = tokio::spawn(mouth(BufReader::new(from_rmcp), answered));
        (AsyncRwTransport::new(rmcp_reads, rmcp_writes), Wire { mouth })
    }

    /// Waits for every line said to be out (rmcp's side is closed once its
    /// session ended).
    async fn ended(self) {
        let _ = self.mouth.await;
    }
}

/// Reads the client's lines: each that is JSON on to rmcp, each that is
/// not answered with a parse error. A line longer than [`LONGEST_MESSAGE`]
/// is dropped unread, as before rmcp's own reading.
async fn ear(
    mut input: impl AsyncBufRead + Unpin,
    mut to_rmcp: DuplexStream,
    answers: tokio::sync::mpsc::Sender<&'static [u8]>,
) {
    let mut line = Vec::new();
    while let Ok(true) = next_line(&mut input, &mut line).await {
        if is_json(&line) {
            if to_rmcp.write_all(&line).await.is_err() {
                return;
            }
        } else if answers.send(PARSE_ERROR).await.is_err() {
            return;
        }
    }
}

/// Whether a line is JSON, or no message at all (blank: rmcp passes over
/// it). A UTF-8 byte order mark before it is rmcp's to drop.
fn is_json(line: &[u8]) -> bool {
    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    text.trim_ascii().is_empty() || serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok()
}

/// The next line of `input` in `line`, its newline kept; false at the end
/// of the input. One longer than [`LONGEST_MESSAGE`] is read through and
/// left out: `line` is empty then.
async fn next_line(input: &mut (impl AsyncBufRead + Unpin), line: &mut Vec<u8>) -> std::io::Result<bool> {
    line.clear();
    let longest = LONGEST_MESSAGE as u64;
    if (&mut *input).take(longest + 1).read_until(b'\n', line).await? == 0 {
        return Ok(false);
    }
    if line.len() > LONGEST_MESSAGE {
        while !line.ends_with(b"\n") {
            line.clear();
            if (&mut *input).take(longest).read_until(b'\n', line).await? == 0 {
                break;
            }
        }
        line.clear();
    }
    Ok(true)
}

/// Writes rmcp's lines and the parse errors' on standard output, each
/// whole, until rmcp's side closes; the answers still waiting then last.
async fn mouth(mut from_rmcp: BufReader<DuplexStream>, mut answered: tokio::sync::mpsc::Receiver<&'static [u8]>) {
    let mut out = tokio::io::stdout();
    let mut line = Vec::new();
    loop {
        // Cancel-safe: a line half read stays in `line` for the next turn.
        let said = tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line) => match read {
                Ok(0) | Err(_) => break,
                Ok(_) => write_line(&mut out, &line).await,
            },
            Some(answer) = answered.recv() => write_line(&mut out, answer).await,
        };
        if line.ends_with(b"\n") {
            line.clear();
        }
        if said.is_err() {
            return;
        }
    }
    while let Ok(answer) = answered.try_recv() {
        if write_line(&mut out, answer).await.is_err() {
            return;
        }
    }
}

async fn write_line(out: &mut tokio::io::Stdout, line: &[u8]) -> std::io::Result<()> {
    out.write_all(line).await?;
    out.flush().await
}

/// The server: the host, where the client's model runs, and its calls.
#[derive(Clone)]
struct Server {
    host: Host,
    model: Place,
    under_way: UnderWay,
}

/// The calls under way: each holds a share of the lock while it runs, and
/// the session's end takes the lock whole, so it waits for every call
/// begun; no call begins while it is taken.
#[derive(Clone, Default)]
struct UnderWay(Arc<tokio::sync::RwLock<()>>);

impl UnderWay {
    /// A share for a call beginning; none once the session ended.
    fn begin(&self) -> Option<tokio::sync::OwnedRwLockReadGuard<()>> {
        self.0.clone().try_read_owned().ok()
    }

    /// Waits for every call begun to end, and says so on standard error
    /// (the AI app's log) when one still runs.
    async fn ended(&self) {
        if self.0.try_write().is_err() {
            eprintln!(
                "dcplugin mcp: the session ended; waiting for the calls under way to end with their journal lines"
            );
        }
        let _all = self.0.write().await;
    }
}

impl Server {
    /// The turn of one client request: no turn id, so each call is a turn
    /// of its own (the client's model runs its own loop). R3 actions are
    /// offered, and asked about, only when the client can put the question
    /// to the player. The tools' arguments are sent whole (§17's short form
    /// is for the companion's AI on this PC): `--ai` says where the
    /// client's model runs, not what it is, and the client shows and
    /// checks them with its own code.
    fn turn(&self, peer: &Peer<RoleServer>) -> Turn {
        Turn { can_confirm: can_ask(peer), schema: Some(Schema::Full), ..Turn::new(Source::Mcp, self.model) }
    }

    /// The tools as the client lists them.
    async fn tools(&self, peer: &Peer<RoleServer>) -> Result<Vec<Tool>, ErrorData> {
        let offer = self.host.offer(self.turn(peer)).await.map_err(|e| ErrorData::internal_error(e.message, None))?;
        Ok(tools_of(&offer))
    }

    /// Tells the client whenever the tool list changes, whoever changed
    /// the profile. Runs as long as the session.
    async fn follow(&self, peer: Peer<RoleServer>) {
        let mut listed = self.tools(&peer).await.ok();
        loop {
            tokio::time::sleep(FOLLOW_EVERY).await;
            let now = self.tools(&peer).await.ok();
            if now.is_some() && now != listed {
                listed = now;
                if peer.notify_tool_list_changed().await.is_err() {
                    return;
                }
            }
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
            .with_server_info(Implementation::new("dcplugin", env!("CARGO_PKG_VERSION")))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    /// Only the versions opened by `initialize`: on them the server may ask
    /// the client a question (elicitation) in the middle of a call, which
    /// R3's confirmation needs.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::LATEST_WITH_INITIALIZE))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools(&context.peer).await?))
    }

    /// A request rmcp could not read as one it knows: a method this server
    /// serves with params that are not its own is invalid params (-32602),
    /// said with what is wrong; any other is a method not found (-32601).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let wrong = if request.method == CallToolRequestMethod::VALUE {
            request.params_as::<CallToolRequestParams>().err()
        } else if request.method == ListToolsRequestMethod::VALUE {
            request.params_as::<PaginatedRequestParams>().err()
        } else {
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method, None));
        };
        let why = wrong.map_or_else(|| "its params are missing".to_owned(), |e| format!("its params are wrong: {e}"));
        Err(ErrorData::invalid_params(format!("{}: {why}", request.method), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // MCP: a cancelled request gets no response, so the error is never read.
        let cancelled = || ErrorData::internal_error("the client cancelled the call", None);
        let share = if context.ct.is_cancelled() { None } else { self.under_way.begin() };
        let Some(share) = share else { return Err(cancelled()) };
        let stop = context.ct.clone();
        let server = self.clone();
        let call = tokio::spawn(async move {
            let outcome = server.call(request, context).await;
            drop(share);
            outcome
        });
        // The cancel first: the call goes on as a task of its own, to its
        // journal line, and its result is no one's.
        tokio::select! {
            biased;
            () = stop.cancelled() => Err(cancelled()),
            called = call => {
                called.map(Into::into).map_err(|e| ErrorData::internal_error(format!("the call's task failed: {e}"), None))
            }
        }
    }
}

impl Server {
    /// One `tools/call` through the host, to its end.
    async fn call(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> CallToolResult {
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let turn = Turn { client: context.client_info().map(|info| client_of(&info)), ..self.turn(&context.peer) };
        let called = if turn.can_confirm {
            let ask = Arc::new(Elicit { call: context });
            self.host.call_asking(turn, &request.name, args, Some(ask)).await.map(|tried| tried.outcome)
        } else {
            self.host.call(turn, &request.name, args).await
        };
        match called {
            Ok(outcome) => result_of(outcome),
            // The host itself failed (its store, its runtime): the model is
            // told so, with the host's code, as a result it can explain.
            Err(e) => CallToolResult::error(vec![ContentBlock::text(format!("{}: {}", e.code.as_str(), e.message))]),
        }
    }
}

/// The AI app as its calls' journal lines name it: its `initialize`'s
/// `clientInfo`, the title meant for people when it gives one, else its
/// name, and its version. The client's own text: the journal cleans and
/// cuts it (`dcp_store::journal::client_name`).
fn client_of(info: &Implementation) -> String {
    let name = info.title.as_deref().filter(|t| !t.trim().is_empty()).unwrap_or(&info.name);
    format!("{name} {}", info.version)
}

/// Whether the client announced it can ask its user a question (form
/// elicitation).
fn can_ask(peer: &Peer<RoleServer>) -> bool {
    peer.supported_elicitation_modes().contains(&rmcp::service::ElicitationMode::Form)
}

/// The offer's tools with their annotations from the level (§12): R0 and
/// R1 only read; R2 changes something that can be undone; R3 cannot be
/// undone. An action reaching a web service works in an open world; one
/// reaching a program on this PC does not.
fn tools_of(offer: &Offer) -> Vec<Tool> {
    offer
        .tools
        .iter()
        .map(|t| {
            let schema = match &t.parameters {
                serde_json::Value::Object(schema) => schema.clone(),
                _ => serde_json::Map::new(),
            };
            let annotations = match t.level {
                Level::R0 | Level::R1 => ToolAnnotations::new().read_only(true),
                Level::R2 => ToolAnnotations::new().read_only(false).destructive(false),
                Level::R3 | Level::R4 => ToolAnnotations::new().read_only(false).destructive(true),
            };
            Tool::new(t.name.clone(), t.description.clone(), schema).with_annotations(annotations.open_world(t.web))
        })
        .collect()
}

/// A call's outcome as the client reads it: the framed answer, or the §22
/// text of a failure or refusal with `isError`.
fn result_of(outcome: CallOutcome) -> CallToolResult {
    let text = vec![ContentBlock::text(outcome.for_ai)];
    match outcome.outcome {
        JournalOutcome::Done => CallToolResult::success(text),
        _ => CallToolResult::error(text),
    }
}

/// Asks the player through the client (elicitation) before an R3 request
/// is sent: the question shows exactly what a yes sends, secrets as
/// `[secret]`. Only an accept sends it; a decline, a cancel, an error or no
/// answer within the host's time sends nothing. The question belongs to
/// the call that asked it: once the client cancels that call it is a no,
/// unasked if it was not yet asked, withdrawn if it was (issue 32).
struct Elicit {
    /// The `tools/call` being answered: its peer, and its cancellation.
    call: RequestContext<RoleServer>,
}

impl Ask for Elicit {
    fn confirm(&self, question: Question) -> Answer<'_> {
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: question_text(&question),
            requested_schema: ElicitationSchema::new(BTreeMap::new()),
        };
        Box::pin(async move {
            // Cancelled while its request was prepared: nothing to ask.
            if self.call.ct.is_cancelled() {
                return Decision::Declined;
            }
            let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
            let Ok(asked) = self.call.peer.send_cancellable_request(request, PeerRequestOptions::no_options()).await
            else {
                return Decision::Declined;
            };
            let mut open = Open { peer: self.call.peer.clone(), id: Some(asked.id.clone()), why: NOT_ANSWERED };
            // The cancel first: an accept read after the call's cancel is
            // an answer to a question that no longer stands.
            tokio::select! {
                biased;
                () = self.call.ct.cancelled() => {
                    open.why = CALL_CANCELLED;
                    Decision::Declined
                }
                answer = asked.await_response() => {
                    open.answered();
                    match answer {
                        Ok(ClientResult::ElicitResult(answer)) if answer.action == ElicitationAction::Accept => {
                            Decision::Confirmed
                        }
                        _ => Decision::Declined,
                    }
                }
            }
        })
    }

    /// The host's wait (shortened in a test build, see
    /// [`super::chat::answer_within`]); when it ends, this question's
    /// future is dropped and [`Open`] withdraws it from the client.
    fn within(&self) -> Duration {
        super::chat::answer_within()
    }
}

/// Why an elicitation is withdrawn (`notifications/cancelled`'s reason):
/// its call was cancelled by the client.
const CALL_CANCELLED: &str = "the call was cancelled";

/// The other reason: the host stopped waiting for the answer, its 60 s
/// over, or the question no longer standing (its plugin changed).
const NOT_ANSWERED: &str = "no answer in time, or the question no longer stands: nothing was sent";

/// An elicitation the client has not answered. Dropped unanswered (the
/// call cancelled, or the host done waiting: no answer within 60 s, issue
/// 34), it is withdrawn: the client gets `notifications/cancelled` for it,
/// with why, so its app closes the question, and a late answer finds no
/// one waiting for it.
struct Open {
    peer: Peer<RoleServer>,
    /// The elicitation's request id while it is unanswered.
    id: Option<RequestId>,
    /// Why it is withdrawn, if it is.
    why: &'static str,
}

impl Open {
    fn answered(mut self) {
        self.id = None;
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current()) else {
            return;
        };
        let peer = self.peer.clone();
        let withdrawn = CancelledNotificationParam::new(Some(id), Some(self.why.to_owned()));
        drop(runtime.spawn(async move { peer.notify_cancelled(withdrawn).await }));
    }
}

/// The R3 question: the plugin, the action's hint, and the request a yes
/// sends, line by line (method and URL, each header, the body).
fn question_text(question: &Question) -> String {
    let request = &question.request;
    let mut text = format!(
        "{} wants to: {} (serious action, confirmed every time). Send exactly this?\n{} {}\n",
        question.plugin_name, question.hint, request.method, request.url
    );
    for (name, value) in &request.headers {
        text.push_str(&format!("{name}: {value}\n"));
    }
    if let Some(body) = &request.body {
        text.push_str(&format!("\n{body}\n"));
    }
    text
}
