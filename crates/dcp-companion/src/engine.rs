//! [`Companion`]: one conversation with the companion's AI, turn by turn
//! (§3 "A tool call", §12, §16). A turn asks the host what it offers (the
//! player's words and the tools called so far in the conversation pick
//! the tools when not all fit, §17), sends the AI the system message, the
//! conversation and the offered tools, streams the answer, runs each tool
//! call the AI asks for through the host (courtier, BUSY, the Twitch
//! chat's one call, stream mode, the 5 steps, R3's question) and sends the
//! results back, until the AI answers.
//!
//! The conversation lives as long as the value: nothing is written anywhere
//! else, so §16's "never kept in the companion's memory" holds by
//! construction.
//!
//! A turn is a [`TurnStream`] of its [`TurnEvent`]s (issue 33, the shape
//! of an agent loop that streams its events with a cancellation token):
//! the turn runs as the shell reads the stream, so it never runs ahead of
//! what the shell has taken, and the shell stops it from anywhere with the
//! [`CancellationToken`] it passed, or by dropping the stream.
//!
//! A turn of the player's Twitch chat ([`Companion::viewer_turn`], issue
//! 36) is a player's turn of source twitch whose words the AI reads framed
//! as a viewer's (`viewer.rs`): the host's rules for the chat (R0 only, one
//! call) apply to it as to any turn of that source.
//!
//! A turn always ends (issue 32): within [`TURN_SECONDS`] whatever the AI
//! sends (each answer also has its own limit, `dcp_ai::Limits::answer`),
//! or at once when a shell stops it. Either drops the turn where it is:
//! the answer being read is cut, no request or call follows, and a call
//! already sent runs to its end in the host with its journal line (a task
//! of the host's, `Host::call_asking`). The turn's messages are then taken
//! back out of the conversation, as on any error.

use crate::event::{args_text, EngineCode, NoToolsNote, Said, TurnCode, TurnEvent};
use crate::kept::{heard, Ledger};
use crate::prompt::system_message;
use crate::step::{Action, Asked, Steps};
use crate::viewer::viewer_message;
use dcp_ai::{AiError, ChatRequest, Connection, Message, Place, Reply, StreamItem, ToolCall, ToolSpec};
use dcp_call::offer::Shown;
use dcp_format::language::Language;
use dcp_format::limits::{STEPS_PER_TURN, TURN_SECONDS};
use dcp_format::model::in_language;
use dcp_host::{
    Answer, ApiError, Ask, CompanionState, Decision, ErrorCode, EventReason, Host, Question, SaidEvent, Source, Turn,
    ViewerTurn,
};
use futures_core::Stream;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::time::{sleep_until, Instant};
use tokio_util::sync::CancellationToken;

/// Where a turn's events go, as they happen: the stream's queue.
type Out<'a> = &'a mut (dyn FnMut(TurnEvent) + Send);

/// Told when the companion starts and stops answering (the door's
/// listening, §16).
pub type Presence = Box<dyn Fn(CompanionState) + Send + Sync>;

/// Why a turn could not end with an answer.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    /// The AI could not be reached or answered badly.
    #[error(transparent)]
    Ai(#[from] AiError),
    /// The host failed (not a refusal: refusals go back to the AI).
    #[error(transparent)]
    Host(#[from] ApiError),
    /// A shell stopped the turn (its token cancelled, or its stream dropped).
    #[error("the turn was stopped")]
    Stopped,
}

impl TurnError {
    /// The error's code: the AI's (`ai_not_listening`, `ai_turn_too_long`
    /// for a turn past [`TURN_SECONDS`], …), the host's, or `stopped`.
    pub fn code(&self) -> TurnCode {
        match self {
            TurnError::Ai(e) => ErrorCode::Ai(e.ai_code()).into(),
            TurnError::Host(e) => e.code.into(),
            TurnError::Stopped => TurnCode::Engine(EngineCode::Stopped),
        }
    }
}

/// A turn as it runs: its answer, or why it has none.
type TurnFuture<'a> = Pin<Box<dyn Future<Output = Result<String, TurnError>> + Send + 'a>>;

/// A running turn, as the stream of its events: the last one `end`, after
/// `error` when it failed. The turn moves on as the stream is read (the
/// events wait in between, none is lost); cancelling the token given to
/// [`Companion::say`] or [`Companion::event_turn`] ends it at once with
/// [`TurnError::Stopped`], its last events still read. Dropped before its
/// end, the stream stops the turn the same way: the conversation is left
/// as a stopped turn leaves it, the presence listening again.
pub struct TurnStream<'a> {
    /// The turn, until it ended.
    turn: Option<TurnFuture<'a>>,
    /// Its events, queued by the turn as it is polled.
    events: mpsc::Receiver<TurnEvent>,
    /// The turn's stop.
    stop: CancellationToken,
    /// The turn was polled: dropped unfinished, it has something to undo.
    started: bool,
    /// How it ended, once it did.
    ended: Option<Result<String, TurnError>>,
}

impl<'a> TurnStream<'a> {
    /// The stream of the turn `run` makes, given where its events go.
    fn of<F>(stop: CancellationToken, run: impl FnOnce(mpsc::Sender<TurnEvent>) -> F) -> TurnStream<'a>
    where
        F: Future<Output = Result<String, TurnError>> + Send + 'a,
    {
        let (to, events) = mpsc::channel();
        TurnStream { turn: Some(Box::pin(run(to))), events, stop, started: false, ended: None }
    }

    /// The next event; none once the turn ended and every event was read.
    /// Cancel-safe: an event is taken only when returned.
    pub async fn next(&mut self) -> Option<TurnEvent> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// How the turn ended (its answer, or why it has none), once it did.
    pub fn ended(&self) -> Option<&Result<String, TurnError>> {
        self.ended.as_ref()
    }

    /// Reads the turn to its end, each event to `each` as it comes (a shell
    /// that forwards every line, as the window does): how it ended.
    pub async fn finish(mut self, mut each: impl FnMut(TurnEvent)) -> Result<String, TurnError> {
        while let Some(event) = self.next().await {
            each(event);
        }
        // Always there once the stream ended.
        self.ended.take().unwrap_or(Err(TurnError::Stopped))
    }
}

impl Stream for TurnStream<'_> {
    type Item = TurnEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<TurnEvent>> {
        let this = self.get_mut();
        // The events the turn queued first: it only queues while polled here.
        if let Ok(event) = this.events.try_recv() {
            return Poll::Ready(Some(event));
        }
        if let Some(turn) = this.turn.as_mut() {
            this.started = true;
            if let Poll::Ready(ended) = turn.as_mut().poll(cx) {
                this.turn = None;
                this.ended = Some(ended);
            }
        }
        match this.events.try_recv() {
            Ok(event) => Poll::Ready(Some(event)),
            Err(_) if this.turn.is_none() => Poll::Ready(None),
            Err(_) => Poll::Pending,
        }
    }
}

impl Drop for TurnStream<'_> {
    /// A turn dropped unfinished is stopped, and polled once more so that
    /// it ends as a stopped turn does: the stop is the first thing its
    /// `select!` looks at, and what follows it (the conversation mended,
    /// the presence told) does not wait. Outside a runtime nothing can be
    /// polled: the turn is only dropped.
    fn drop(&mut self) {
        let Some(mut turn) = self.turn.take() else { return };
        self.stop.cancel();
        if self.started && tokio::runtime::Handle::try_current().is_ok() {
            let _ = turn.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        }
    }
}

/// The companion: a host, the AI connection and the conversation so far.
pub struct Companion {
    host: Host,
    connection: Connection,
    conversation: Vec<Message>,
    /// What each turn of the conversation touched (§13, issue 32).
    kept: Ledger,
    presence: Option<Presence>,
    turn_limit: Duration,
    /// Whether this conversation was told its model cannot use tools (issue 34).
    no_tools: NoToolsNote,
}

/// A turn as the engine runs it: what the host is told of it, and who may
/// be asked to confirm.
struct Running {
    turn: Turn,
    tools: bool,
    ask: Option<Arc<dyn Ask>>,
    /// The plugins whose events the turn says, by slug.
    said: Vec<String>,
    /// Cancelled when the shell stops the turn (a child of its token), and
    /// also when the turn ends otherwise than by its answer (its deadline):
    /// an R3 question still open is then withdrawn, since the call,
    /// finished by the host after the turn lets go of it, would
    /// otherwise still send on a late yes (issue 32).
    over: CancellationToken,
}

impl Companion {
    /// A companion with an empty conversation.
    pub fn new(host: Host, connection: Connection) -> Companion {
        Companion {
            host,
            connection,
            conversation: Vec::new(),
            kept: Ledger::default(),
            presence: None,
            turn_limit: Duration::from_secs(TURN_SECONDS),
            no_tools: NoToolsNote::default(),
        }
    }

    /// The same companion whose turns may last `limit` instead of
    /// [`TURN_SECONDS`].
    pub fn with_turn_limit(mut self, limit: Duration) -> Companion {
        self.turn_limit = limit;
        self
    }

    /// Talks to the AI through `connection` from the next turn on, keeping
    /// the conversation (the player changed the AI settings).
    pub fn set_connection(&mut self, connection: Connection) {
        self.connection = connection;
        self.no_tools.forget();
    }

    /// Forgets the conversation.
    pub fn new_conversation(&mut self) {
        self.conversation.clear();
        self.kept.clear();
        self.no_tools.forget();
    }

    /// The conversation so far (no system message: it is made anew for each
    /// request from what is offered then).
    pub fn conversation(&self) -> &[Message] {
        &self.conversation
    }

    /// Who hears when the companion answers and listens again: the shell
    /// connects it to the door (`Background::set_companion`).
    pub fn set_presence(&mut self, presence: Presence) {
        self.presence = Some(presence);
    }

    /// One turn of the player (or the Twitch chat): their words, the tool
    /// steps, the answer. R3 actions are offered, and asked through `ask`,
    /// only when there is someone to ask. Cancelling `stop` ends it.
    pub fn say(&mut self, said: Said, ask: Option<Arc<dyn Ask>>, stop: CancellationToken) -> TurnStream<'_> {
        let over = stop.child_token();
        TurnStream::of(stop, move |to| async move {
            let mut out = queue(to);
            let turn = self.spoken(&said, ask.is_some());
            let running = Running { turn, tools: true, ask, said: Vec::new(), over };
            out(TurnEvent::Turn { id: turn_id(&running.turn), source: said.source, text: said.text.clone() });
            self.run(running, said.text, &mut out).await
        })
    }

    /// A turn of the player's Twitch chat (§12, issue 36): source twitch,
    /// live, nobody asked to confirm, so the host offers R0 actions only
    /// and its courtier refuses any other (`twitch_level`) and a second
    /// call in the turn (`twitch_quota`, shared with the built-in tools).
    /// The lines start with `viewer` (the name and words as the player is
    /// shown them), then `turn`; the AI reads the words framed as untrusted
    /// chat in the player's language (`viewer.rs`). Cancelling `stop` ends it.
    pub fn viewer_turn(&mut self, viewer: ViewerTurn, stop: CancellationToken) -> TurnStream<'_> {
        let over = stop.child_token();
        TurnStream::of(stop, move |to| async move {
            let mut out = queue(to);
            let said = Said { source: Source::Twitch, live: true, text: viewer.text };
            let turn = self.spoken(&said, false);
            out(TurnEvent::Viewer { name: viewer.display_name.clone(), text: said.text.clone() });
            out(TurnEvent::Turn { id: turn_id(&turn), source: said.source, text: said.text.clone() });
            let language = match self.host.switches().await {
                Ok(switches) => switches.language,
                Err(e) => return Err(ended(TurnError::Host(e), &mut out)),
            };
            let message = viewer_message(language, &viewer.display_name, &said.text);
            self.run(Running { turn, tools: true, ask: None, said: Vec::new(), over }, message, &mut out).await
        })
    }

    /// The turn of words said (by the player, or a viewer): what they are
    /// about picks the tools when not all fit (§17).
    fn spoken(&self, said: &Said, can_confirm: bool) -> Turn {
        Turn {
            words: said.text.clone(),
            used: used(&self.conversation),
            ..self.turn(said.source, said.live, can_confirm)
        }
    }

    /// An event turn (§16): the door's `message` (already in the player's
    /// language and framed as unchecked information), for the `events` it
    /// says, each shown to the player as its title and the program's words. No tools are offered; a call the AI asks for anyway is
    /// refused by the courtier (`not_requested`). The event and the answer
    /// stay in the conversation. An online AI is not told the events of a
    /// plugin kept on this PC (§13, issue 32): each is shown as `held`, and
    /// with none left no request is made (the answer is empty).
    pub fn event_turn(&mut self, message: String, events: Vec<SaidEvent>, stop: CancellationToken) -> TurnStream<'_> {
        let over = stop.child_token();
        TurnStream::of(stop, move |to| async move {
            let mut out = queue(to);
            self.run_event_turn(message, events, over, &mut out).await
        })
    }

    async fn run_event_turn(
        &mut self,
        message: String,
        events: Vec<SaidEvent>,
        over: CancellationToken,
        out: Out<'_>,
    ) -> Result<String, TurnError> {
        let turn = self.turn(Source::Event, false, false);
        let heard = match heard(&self.host, self.connection.place(), message, events).await {
            Ok(heard) => heard,
            Err(e) => return Err(ended(TurnError::Host(e), out)),
        };
        let held = heard.held.into_iter().map(|e| TurnEvent::held_event_line(e, EventReason::CloudBlocked));
        let Some(message) = heard.message else {
            TurnEvent::event_turn_lines(turn_id(&turn), "", Vec::new()).chain(held).for_each(&mut *out);
            out(TurnEvent::End { steps: 0, stopped: false });
            return Ok(String::new());
        };
        let said = heard.said.iter().map(|e| e.plugin.clone()).collect();
        TurnEvent::event_turn_lines(turn_id(&turn), &message, heard.said).chain(held).for_each(&mut *out);
        self.run(Running { turn, tools: false, ask: None, said, over }, message, out).await
    }

    fn turn(&self, source: Source, live: bool, can_confirm: bool) -> Turn {
        let model = self.connection.place();
        Turn { live, id: Some(new_turn_id()), can_confirm, ..Turn::new(source, model) }
    }

    /// Runs a turn, until its answer, an error, its deadline or a stop; on
    /// any but the answer the turn's messages are taken back out of the
    /// conversation, which stays a valid transcript (every tool call
    /// answered).
    async fn run(&mut self, running: Running, text: String, out: Out<'_>) -> Result<String, TurnError> {
        self.tell(CompanionState::Answering);
        let start = self.conversation.len();
        self.conversation.push(Message::User { content: text });
        self.kept.begin(start, running.said.iter().cloned());
        let mut steps = Steps::new(one_per_step(&self.connection));
        let stop = running.over.clone();
        let deadline = Instant::now() + self.turn_limit;
        let too_long = AiError::TurnTooLong { url: self.connection.url().as_str().to_owned(), limit: self.turn_limit };
        // The steps dropped where they are: see the module's doc.
        let result = tokio::select! {
            biased;
            () = stop.cancelled() => Err(TurnError::Stopped),
            () = sleep_until(deadline) => Err(too_long.into()),
            result = self.steps(&running, &mut steps, out) => result,
        };
        let result = result.map(|(text, cut)| {
            out(TurnEvent::Reply { text: text.clone(), cut });
            text
        });
        match &result {
            Ok(_) => {}
            Err(e) => {
                running.over.cancel();
                self.conversation.truncate(start);
                self.kept.abandon();
                out(TurnEvent::Error { code: e.code(), message: e.to_string() });
            }
        }
        out(TurnEvent::End { steps: steps.used(), stopped: matches!(result, Err(TurnError::Stopped)) });
        self.tell(CompanionState::Listening);
        result
    }

    /// Requests until the AI answers without calling a tool: up to
    /// [`STEPS_PER_TURN`] offering tools, then one asking for the answer
    /// only. Calls asked for when no tools were offered still go to the
    /// host, which refuses them (not_requested, step_limit) so the AI is
    /// told why and can say it; past [`STEPS_PER_TURN`] + 1 requests the
    /// turn ends with what the AI said last. An answer cut at its length
    /// limit ends the turn, cut (issue 34): its calls are not run, as its
    /// last one may be half sent (arguments that happen to parse, or none
    /// yet), and the conversation keeps only its text.
    async fn steps(&mut self, running: &Running, steps: &mut Steps, out: Out<'_>) -> Result<(String, bool), TurnError> {
        let mut last = String::new();
        // The offer and the language are read once, for the turn's first
        // step: a turn lasts seconds, and each call is judged by the
        // courtier against the plugins as they are when it runs, so a
        // plugin switched off mid-turn is refused, not called.
        let mut first = running.turn.clone();
        first.step = Some(steps.used() + 1);
        let mut offer = self.host.offer(first).await?;
        let language = self.host.switches().await?.language;
        let names = Names { shown: std::mem::take(&mut offer.shown), language };
        let offered: Vec<ToolSpec> = offer
            .tools
            .iter()
            .map(|t| ToolSpec {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.parameters.clone(),
            })
            .collect();
        if let Some(line) = self.no_tools.line(&self.connection, running.tools && !offered.is_empty()).await {
            out(line);
        }
        for _ in 0..=STEPS_PER_TURN {
            let offering = running.tools && steps.tools_allowed();
            let mut turn = running.turn.clone();
            turn.step = Some(steps.used() + 1);
            let tools = if offering { offered.clone() } else { Vec::new() };
            let mut messages = vec![Message::System { content: system_message(&offer, language, offering) }];
            messages.extend(self.carried(out).await?);
            let request = ChatRequest { messages, tools, one_tool_per_step: one_per_step(&self.connection) };
            let reply = self.stream(&request, out).await?;
            let calls = if reply.cut { Vec::new() } else { reply.tool_calls };
            self.conversation.push(Message::Assistant {
                content: (!reply.text.is_empty()).then(|| reply.text.clone()),
                tool_calls: calls.clone(),
            });
            if calls.is_empty() {
                return Ok((reply.text, reply.cut));
            }
            let step = steps.used() + 1;
            // The plan has one action per call, in order.
            for (action, call) in steps.plan(calls.iter().map(asked).collect()).into_iter().zip(&calls) {
                let shown = call.arguments.not_json().map(args_text);
                self.act(running, &turn, (step, &names), (action, shown), out).await?;
            }
            last = reply.text;
        }
        Ok((last, false))
    }

    /// One call of a step: run through the host, or answered by the engine.
    /// Its line names the action as the player is shown it (`names`), and
    /// shows its arguments as sent when they were not JSON (`args_text`).
    async fn act(
        &mut self,
        running: &Running,
        turn: &Turn,
        (step, names): (u32, &Names),
        (action, args_text): (Action, Option<String>),
        out: Out<'_>,
    ) -> Result<(), TurnError> {
        let (id, tool, args, outcome, code, reason, sent, for_ai) = match action {
            Action::Answer { id, name, args, outcome, code, reason, text } => {
                (id, name, args, outcome, code, reason, None, text)
            }
            Action::Run { id, name, args } => {
                let asking = running.ask.as_ref().map(|ask| {
                    Arc::new(Recorder { ask: ask.clone(), asked: Mutex::new(None), over: running.over.clone() })
                });
                let asker = asking.clone().map(|recorder| recorder as Arc<dyn Ask>);
                let tried = self.host.call_asking(turn.clone(), &name, args.clone(), asker).await?;
                let asked = asking.and_then(|r| r.asked.lock().unwrap_or_else(PoisonError::into_inner).take());
                if let (Some(decision), Some((method, url))) = (tried.confirmation, asked) {
                    let (plugin, hint) = names.of(&name);
                    out(TurnEvent::Confirm { tool: name.clone(), method, url, decision, plugin, hint });
                }
                let o = tried.outcome;
                self.kept.called(&name, o.outcome);
                (id, name, args, o.outcome, o.code, o.reason, tried.sent, o.for_ai)
            }
        };
        let (plugin, hint) = names.of(&tool);
        let family = code.map(|code| code.family());
        let content = for_ai.clone();
        out(TurnEvent::Tool { step, tool, args, outcome, code, reason, sent, for_ai, family, plugin, hint, args_text });
        self.conversation.push(Message::Tool { tool_call_id: id, content });
        Ok(())
    }

    /// The conversation as the next request carries it to the AI: on this
    /// PC all of it; online, without the earlier turns that touched a
    /// plugin kept on this PC (`kept.rs`), said first as a `left_out` line.
    async fn carried(&mut self, out: Out<'_>) -> Result<Vec<Message>, TurnError> {
        let kept = self.host.kept_on_pc().await?;
        let (carried, left_out) = self.kept.carried(&self.conversation, self.connection.place(), &kept);
        left_out.into_iter().for_each(out);
        Ok(carried)
    }

    /// Sends `request` and passes each streamed piece to `out`.
    async fn stream(&self, request: &ChatRequest, out: Out<'_>) -> Result<Reply, TurnError> {
        let mut stream = self.connection.chat(request).await?;
        while let Some(item) = stream.next().await {
            match item? {
                StreamItem::Delta(text) => out(TurnEvent::Delta { text }),
                StreamItem::Done(reply) => return Ok(reply),
            }
        }
        Err(AiError::BadAnswer {
            url: self.connection.url().as_str().to_owned(),
            detail: "the answer ended before it was complete".into(),
        }
        .into())
    }

    fn tell(&self, state: CompanionState) {
        if let Some(presence) = &self.presence {
            presence(state);
        }
    }
}

/// The shell's asker, noting what the player was shown (method and URL,
/// secrets already `[secret]`) for the turn's `confirm` line: the request
/// asked about, whether or not it was then sent.
/// Once the turn is over (stopped, out of time), the question is
/// withdrawn: a no, and the shell's asker dropped, which closes its dialog.
struct Recorder {
    ask: Arc<dyn Ask>,
    asked: Mutex<Option<(String, String)>>,
    over: CancellationToken,
}

impl Ask for Recorder {
    fn confirm(&self, question: Question) -> Answer<'_> {
        let shown = (question.request.method.to_owned(), question.request.url.clone());
        *self.asked.lock().unwrap_or_else(PoisonError::into_inner) = Some(shown);
        let answer = self.ask.confirm(question);
        Box::pin(async move {
            tokio::select! {
                biased;
                () = self.over.cancelled() => Decision::Declined,
                decision = answer => decision,
            }
        })
    }

    fn within(&self) -> Duration {
        self.ask.within()
    }
}

/// How a turn's tool lines name an action (issue 33): its plugin's name
/// and its hint in the player's language, from the turn's offer.
struct Names {
    shown: BTreeMap<String, Shown>,
    language: Language,
}

impl Names {
    /// The plugin's name and the hint of `tool`; none for a tool the AI made up.
    fn of(&self, tool: &str) -> (Option<String>, Option<String>) {
        match self.shown.get(tool) {
            Some(shown) => (Some(shown.plugin.clone()), in_language(&shown.hint, self.language).map(str::to_owned)),
            None => (None, None),
        }
    }
}

/// Where a turn's events go: the queue its stream reads. A stream gone
/// (dropped mid-turn) takes no more.
fn queue(to: mpsc::Sender<TurnEvent>) -> impl FnMut(TurnEvent) + Send {
    move |event| {
        let _ = to.send(event);
    }
}

/// A turn that could not start: its `error` and `end` lines said, the error.
fn ended(error: TurnError, out: Out<'_>) -> TurnError {
    out(TurnEvent::Error { code: error.code(), message: error.to_string() });
    out(TurnEvent::End { steps: 0, stopped: false });
    error
}

/// An AI on this PC is asked for one tool per step (§3).
fn one_per_step(connection: &Connection) -> bool {
    connection.place() == Place::Pc
}

/// The tools the AI called in `conversation`, by full name, each once.
fn used(conversation: &[Message]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for message in conversation {
        if let Message::Assistant { tool_calls, .. } = message {
            for call in tool_calls {
                if !names.contains(&call.name) {
                    names.push(call.name.clone());
                }
            }
        }
    }
    names
}

fn asked(call: &ToolCall) -> Asked {
    Asked { id: call.id.clone(), name: call.name.clone(), args: call.arguments.parse() }
}

fn turn_id(turn: &Turn) -> String {
    turn.id.clone().unwrap_or_default()
}

/// A turn id unique in this profile's journal across runs: the time, then a
/// counter for turns started in the same instant.
fn new_turn_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros());
    format!("turn-{now:x}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}
