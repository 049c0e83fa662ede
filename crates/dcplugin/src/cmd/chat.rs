//! `dcplugin chat`: talking with the companion from a terminal or a script
//! (issue 22). A thin shell over [`dcp_companion::Companion`]: each line of
//! standard input is one player turn (or `--once TEXT` one turn), every
//! [`TurnEvent`] is printed as it happens (`--json`: one object per line,
//! the public contract of docs/cli.md; else a readable chat whose answer
//! streams), and an R3 action's question is asked on the terminal or
//! answered in advance (`--confirm`).
//!
//! While developer mode is on (and not with `--once`), chat runs the event
//! door as `serve` does, tells it when the companion listens (between the
//! player's turns) and says each event turn the door hands over. Turns
//! never overlap: player lines and event turns are taken one at a time by
//! one loop, and the door hears "answering" while one runs.
//!
//! In the readable chat on a terminal, chat starts by saying it is ready:
//! the AI it talks to (the model, where it runs), how to stop, and, once the
//! door says it, whether events reach it (listening on 127.0.0.1:PORT, the
//! port taken, or closed; issue 34). A failure is printed `CODE: message`
//! with a `hint:` line, as `ai test` prints it.
//!
//! An R3 question whose time ran out is said to have expired, and the next
//! line typed, if it is a yes or a no (`y`, `yes`, `n`, `no`), is taken for
//! a late answer to it: the terminal answers it and the AI never gets it
//! (issue 34). Only that next line: anything else typed first ends the
//! guard, and is a turn as any line is; so does a new question asked
//! first. A question withdrawn otherwise (the player stopped the turn, its
//! plugin changed) is said withdrawn, and arms no guard: the player saw it
//! go.
//!
//! With `--twitch CHANNEL` (issue 36), chat also connects (and saves) the
//! player's Twitch chat: the host hands over a viewer's message addressed
//! to the companion only while the companion listens (told as the door is
//! told), and chat says it as a turn of its own, between the player's:
//! `--json` a `viewer` line then the turn's lines, the readable chat
//! `NAME (Twitch chat): TEXT` then the answer. A line the player typed is
//! taken first when both wait. While the chat is connected every turn is
//! live (stream mode, §12), and on a terminal chat says when the
//! connection changes (connected, reconnecting and why). At the end chat
//! hangs up; the channel stays saved.
//!
//! Each turn is the engine's stream of its events, printed as they come.
//! Ctrl-C (issue 33) stops the running turn by cancelling its token: its
//! words so far stay, marked `(stopped)` (`--json`: its `end` line says
//! `"stopped": true`), and an R3 question it opened is withdrawn. A second
//! Ctrl-C during the same turn, or one while no turn runs, quits as the end
//! of standard input does (exit 0).

use super::hints::fix_for_code;
use super::host::say_failure;
use crate::choice::Confirm;
use crate::output::print_json;
use crate::shown::{self, line, outln, write_made_safe, Stream, To};
use dcp_companion::{CancellationToken, Companion, Said, ToolOutcome, TurnCode, TurnEvent, TurnStream};
use dcp_host::events::HostEvent;
use dcp_host::{
    Answer, ApiError, Ask, BackgroundOptions, ChatNotice, ChatStatus, CompanionState, Connection, Decision, DoorState,
    Host, Notice, Question, SaidEvent, Source, ViewerTurn,
};
use std::borrow::Cow;
use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{mpsc, Mutex};

/// `dcplugin chat`'s flags.
#[derive(clap::Args)]
pub struct ChatArgs {
    /// Run this one turn and exit (exit 1 when the AI could not be reached or answered with an error).
    #[arg(long, value_name = "TEXT")]
    once: Option<String>,
    /// Who speaks: each line of standard input (or --once) is a turn of this source.
    #[arg(long, default_value = "keyboard", value_parser = crate::choice::some(&[Source::Voice, Source::Keyboard, Source::Twitch]))]
    source: Source,
    /// The player is live on Twitch (stream mode).
    #[arg(long)]
    live: bool,
    /// An R3 action's question: asked on the terminal, or answered yes or no in advance. Default: ask when standard input is a terminal, else no.
    #[arg(long, value_parser = crate::choice::of::<Confirm>())]
    confirm: Option<Confirm>,
    /// The event door's port (default 8440; for tests).
    #[arg(long, default_value_t = dcp_host::DEFAULT_DOOR_PORT, value_name = "N")]
    door_port: u16,
    /// Also the player's Twitch chat: connect (and save) this channel; its viewers' messages addressed to the companion are said between the player's turns, and every turn is live (stream mode).
    #[arg(long, value_name = "CHANNEL", conflicts_with = "once")]
    twitch: Option<String>,
}

impl ChatArgs {
    /// The port the host is opened with.
    pub fn door_port(&self) -> u16 {
        self.door_port
    }
}

/// The lines of standard input, read by a thread: the player's turns and
/// the answers to R3 questions come from the same lines, taken by whoever
/// waits for one (the chat loop between turns, the asker during a turn).
type Lines = Arc<Mutex<mpsc::UnboundedReceiver<String>>>;

/// `dcplugin chat`: exit 0 when standard input ends or Ctrl-C quits; with
/// `--once`, 1 when the turn failed (or was stopped); 1 when no AI is set.
pub fn run(host: &Host, args: ChatArgs, json: bool) -> anyhow::Result<ExitCode> {
    let source = args.source;
    let connection = match host.block_on(host.ai_connection()) {
        Ok(connection) => connection,
        Err(e) => return Ok(refused(&e, json)),
    };
    // Saved and connecting from here on; a name that is no Twitch login is refused before anything runs.
    if let Some(channel) = &args.twitch {
        if let Err(e) = host.block_on(host.twitch_connect(channel)) {
            return Ok(refused(&e, json));
        }
    }
    let twitch = args.twitch.is_some();
    let lines = read_lines();
    let screen = Screen::default();
    let late = Late::default();
    let terminal = || Arc::new(Terminal { lines: lines.clone(), json, screen: screen.clone(), late: late.clone() });
    let ask: Arc<dyn Ask> = match args.confirm {
        Some(Confirm::Yes) => Arc::new(InAdvance(Decision::Confirmed)),
        Some(Confirm::No) => Arc::new(InAdvance(Decision::Declined)),
        Some(Confirm::Ask) => terminal(),
        None if std::io::stdin().is_terminal() => terminal(),
        None => Arc::new(InAdvance(Decision::Declined)),
    };
    // A person at a terminal is greeted, and told of the door; a script's output stays its turns'.
    let greet = !json && args.once.is_none() && std::io::stdin().is_terminal();
    let ready = greet.then(|| ready_line(&connection));
    let companion = Companion::new(host.clone(), connection);
    let mut chat = Chat { companion, host: host.clone(), ask, json, source, live: args.live, screen };
    // Heard from here on: Ctrl-C no longer ends chat at once.
    let mut interrupts = host.block_on(async { Interrupts::listen() });
    if let Some(text) = args.once {
        let ok = host.block_on(chat.say(text, &mut interrupts));
        return Ok(if ok == Some(true) { ExitCode::SUCCESS } else { ExitCode::from(super::REFUSED) });
    }
    let dev_mode = host.block_on(host.switches()).map(|s| s.dev_mode).unwrap_or(false);
    if let Some(ready) = ready {
        outln!("{ready}");
        if !dev_mode {
            outln!("event door: closed: developer mode is off, so programs on this PC cannot send events to this chat");
        }
    }
    let mut host_events = host.subscribe();
    let background =
        if dev_mode { Some(Arc::new(host.start_background(BackgroundOptions { listening: true })?)) } else { None };
    // The door and the Twitch chat hear when the companion answers and listens again.
    let (door, chat_host) = (background.clone(), twitch.then(|| host.clone()));
    if door.is_some() || chat_host.is_some() {
        chat.companion.set_presence(Box::new(move |state| {
            if let Some(door) = &door {
                door.set_companion(state);
            }
            if let Some(host) = &chat_host {
                host.twitch_companion(state);
            }
        }));
    }
    if twitch {
        host.twitch_companion(CompanionState::Listening);
    }
    let mut chat_said = None;
    host.block_on(async {
        loop {
            let next = {
                let mut waiting = lines.lock().await;
                tokio::select! {
                    // The player's line first when a chat turn waits too.
                    biased;
                    line = waiting.recv() => Next::Line(line),
                    () = interrupts.next() => Next::Line(None),
                    event = host_events.recv(), if background.is_some() || twitch => match event {
                        Ok(HostEvent::Door { notice: Notice::Turn { message, said, .. } }) => {
                            Next::EventTurn(message, said)
                        }
                        Ok(HostEvent::Door { notice: Notice::Door { state } }) => Next::Door(state),
                        Ok(HostEvent::Twitch { notice: ChatNotice::Turn { viewer } }) => Next::Viewer(viewer),
                        Ok(HostEvent::Twitch { notice: ChatNotice::State { status } }) => Next::Chat(status),
                        Err(RecvError::Closed) => Next::Line(None),
                        _ => Next::Other,
                    },
                }
            };
            match next {
                Next::Line(None) => break,
                Next::Line(Some(line)) if line.trim().is_empty() => {}
                // Only the line right after a question expired.
                Next::Line(Some(line)) if late.take() && is_yes_or_no(&line) => {
                    let to = if json { To::Stderr } else { To::Stdout };
                    write_made_safe(to, &format!("{}\n", shown::question(&[LATE_ANSWER.to_owned()], false)));
                }
                Next::Line(Some(line)) => {
                    if chat.say(line, &mut interrupts).await.is_none() {
                        break;
                    }
                }
                Next::EventTurn(message, events) => {
                    if chat.event_turn(message, events, &mut interrupts).await.is_none() {
                        break;
                    }
                }
                Next::Viewer(viewer) => {
                    if chat.viewer_turn(viewer, &mut interrupts).await.is_none() {
                        break;
                    }
                }
                // The readable chat on a terminal says whether events reach it.
                Next::Door(state) if greet => outln!("event door: {}", door_line(&state).await),
                // And how the Twitch chat's connection changes (not its counts).
                Next::Chat(status) if greet => {
                    let words = super::twitch::state_words(&status);
                    if chat_said.as_ref() != Some(&words) {
                        outln!("twitch chat: {words}");
                        chat_said = Some(words);
                    }
                }
                Next::Door(_) | Next::Chat(_) | Next::Other => {}
            }
        }
    });
    if twitch {
        // The channel stays saved: the window and the next chat --twitch connect it.
        let _ = host.block_on(host.twitch_hang_up());
    }
    // The presence closure holds the door: once the companion is gone the
    // door is stopped cleanly, its port free when chat exits.
    drop(chat);
    if let Some(background) = background.and_then(Arc::into_inner) {
        host.block_on(background.stop());
    }
    Ok(ExitCode::SUCCESS)
}

/// A failure before any turn (no AI set, a channel that is no Twitch
/// login): `--json` an `error` line with what fixes it, else `CODE:
/// message` and a `hint:`; exit 1.
fn refused(e: &ApiError, json: bool) -> ExitCode {
    let hint = fix_for_code(e.code);
    if json {
        // What fixes it ends the message, as it always did; `hint` (issue 34) says it alone.
        let message = match &hint {
            Some(hint) => format!("{}; run: {hint}", e.message),
            None => e.message.clone(),
        };
        print_error_line(&TurnEvent::Error { code: e.code.into(), message }, hint);
    } else {
        say_failure(e.code.as_str(), &e.message, hint.as_deref());
    }
    ExitCode::from(super::REFUSED)
}

/// The readable chat's first line (issue 34): ready, the AI it talks to
/// (the model, where it runs, its URL: the profile's, printed cleaned), how
/// to stop an answer and how to quit.
fn ready_line(connection: &Connection) -> String {
    format!(
        "ready: talking to {} at {} ({}). Type a message and press Enter; Ctrl-C stops an answer, Ctrl-D quits.",
        line(connection.model()),
        line(connection.url().as_str()),
        crate::words::place_words(connection.place())
    )
}

/// What the door's state means for this chat (issue 34): whether the
/// events of programs on this PC reach it.
async fn door_line(state: &DoorState) -> String {
    let words = super::events::door_words(state).await;
    match state {
        DoorState::Listening { .. } => format!("{words}: programs on this PC can send their events to this chat"),
        DoorState::PortTaken { .. } | DoorState::Closed { .. } => {
            format!("{words}; events from programs on this PC will not reach this chat")
        }
    }
}

/// A turn's `error` line with `--json`: the line as it always was, and
/// `hint`, the command that fixes it, when there is one (issue 34).
fn print_error_line(error: &TurnEvent, hint: Option<String>) {
    match (serde_json::to_value(error), hint) {
        (Ok(mut line), Some(hint)) => {
            line["hint"] = hint.into();
            print_json(&line);
        }
        _ => print_json(error),
    }
}

/// The fix for a turn's error, as `ai test` gives it; none for a stop.
fn turn_hint(code: TurnCode) -> Option<String> {
    match code {
        TurnCode::Host(code) => fix_for_code(code),
        TurnCode::Engine(_) => None,
    }
}

/// Prints a turn's events as they come, Ctrl-C cancelling `stop`: whether
/// it ended with an answer, or none when a second Ctrl-C came before the
/// stopped turn ended (chat quits; the stream dropped ends the turn).
async fn play(
    mut turn: TurnStream<'_>,
    stop: &CancellationToken,
    printer: &mut Printer,
    interrupts: &mut Interrupts,
) -> Option<bool> {
    let mut stopped = false;
    loop {
        tokio::select! {
            biased;
            event = turn.next() => match event {
                Some(event) => printer.print(&event),
                None => return Some(matches!(turn.ended(), Some(Ok(_)))),
            },
            () = interrupts.next() => {
                if stopped {
                    return None;
                }
                stop.cancel();
                stopped = true;
            }
        }
    }
}

/// Each Ctrl-C once, from chat's start to its end: the handler is in place
/// when [`Interrupts::listen`] returns, and a press between two waits for
/// one is kept for the next, so none is lost or ends chat at once.
struct Interrupts(Option<Signal>);

#[cfg(unix)]
type Signal = tokio::signal::unix::Signal;
#[cfg(windows)]
type Signal = tokio::signal::windows::CtrlC;

impl Interrupts {
    /// Starts hearing Ctrl-C (within the runtime). If the system refuses
    /// the handler, Ctrl-C keeps its default: chat ends at once.
    fn listen() -> Interrupts {
        #[cfg(unix)]
        let heard = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt());
        #[cfg(windows)]
        let heard = tokio::signal::windows::ctrl_c();
        Interrupts(heard.ok())
    }

    /// The next Ctrl-C; never, when they cannot be heard.
    async fn next(&mut self) {
        let heard = match &mut self.0 {
            Some(signal) => signal.recv().await.is_some(),
            None => false,
        };
        if !heard {
            std::future::pending::<()>().await;
        }
    }
}

/// What the chat loop takes next.
enum Next {
    /// A line of standard input; none once it ended (or Ctrl-C quit).
    Line(Option<String>),
    /// The door handed over an event turn: its message and its events.
    EventTurn(String, Vec<SaidEvent>),
    /// The door's state changed (it opened, its port is taken, it closed).
    Door(DoorState),
    /// The Twitch chat handed over a viewer's message (issue 36).
    Viewer(ViewerTurn),
    /// The Twitch chat's status changed.
    Chat(ChatStatus),
    /// A host event chat does not say.
    Other,
}

/// Standard input's lines, as they come; the channel closes when it ends.
fn read_lines() -> Lines {
    let (send, receive) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    Arc::new(Mutex::new(receive))
}

/// The companion and how its turns are printed.
struct Chat {
    companion: Companion,
    /// Whether the Twitch chat is connected (stream mode) when a turn starts.
    host: Host,
    ask: Arc<dyn Ask>,
    json: bool,
    source: Source,
    live: bool,
    screen: Screen,
}

impl Chat {
    /// One player turn, printed as it runs: whether it ended with an
    /// answer; none when Ctrl-C quit ([`play`]).
    async fn say(&mut self, text: String, interrupts: &mut Interrupts) -> Option<bool> {
        let mut printer = Printer::new(self.json, self.screen.clone());
        // Live while the Twitch chat is connected (§12), or when the player says so.
        let said = Said { source: self.source, live: self.live || self.host.stream_mode(), text };
        let stop = CancellationToken::new();
        let turn = self.companion.say(said, Some(self.ask.clone()), stop.clone());
        play(turn, &stop, &mut printer, interrupts).await
    }

    /// One turn of the Twitch chat the host handed over, printed as it runs.
    async fn viewer_turn(&mut self, viewer: ViewerTurn, interrupts: &mut Interrupts) -> Option<bool> {
        let mut printer = Printer::new(self.json, self.screen.clone());
        let stop = CancellationToken::new();
        let turn = self.companion.viewer_turn(viewer, stop.clone());
        play(turn, &stop, &mut printer, interrupts).await
    }

    /// One event turn the door handed over, printed as it runs.
    async fn event_turn(
        &mut self,
        message: String,
        events: Vec<SaidEvent>,
        interrupts: &mut Interrupts,
    ) -> Option<bool> {
        let mut printer = Printer::new(self.json, self.screen.clone());
        let stop = CancellationToken::new();
        let turn = self.companion.event_turn(message, events, stop.clone());
        play(turn, &stop, &mut printer, interrupts).await
    }
}

/// What the readable chat has printed on standard output: a line of the
/// answer may be open, or its start held back (`shown`). Shared by the
/// turns' printers and the R3 question, which starts on a fresh line.
type Screen = Arc<std::sync::Mutex<Stream>>;

/// Prints a turn's events: JSON lines, or the readable chat, where every
/// text from outside (the model's, a plugin's, an event's) goes through
/// `shown` (issue 32).
struct Printer {
    json: bool,
    /// The answer's words were printed as they streamed.
    streamed: bool,
    screen: Screen,
    /// The turn's `error`, said with its `end`, which tells whether it
    /// was a stop: said `(stopped)` after the words so far instead.
    error: Option<(TurnCode, String)>,
}

impl Printer {
    fn new(json: bool, screen: Screen) -> Printer {
        Printer { json, streamed: false, screen, error: None }
    }

    fn print(&mut self, event: &TurnEvent) {
        if self.json {
            match event {
                TurnEvent::Error { code, .. } => print_error_line(event, turn_hint(*code)),
                _ => print_json(event),
            }
            return;
        }
        match event {
            TurnEvent::Turn { .. } => {}
            // A viewer's name and words, from outside: on this one line.
            TurnEvent::Viewer { name, text } => {
                self.end_line();
                outln!("{} (Twitch chat): {}", line(name), line(text));
            }
            TurnEvent::End { stopped: true, .. } => self.stopped(),
            TurnEvent::End { stopped: false, .. } => {
                if let Some((code, message)) = self.error.take() {
                    self.end_line();
                    say_failure(code.as_str(), &message, turn_hint(code).as_deref());
                }
            }
            TurnEvent::Delta { text } => {
                self.streamed = true;
                let safe = self.screen().piece(text);
                write_made_safe(To::Stdout, &safe);
            }
            TurnEvent::Tool { tool, outcome, code, reason, family, plugin, hint, .. } => {
                self.end_line();
                // A tool the AI made up is named as it wrote it: on this one line.
                let plugin = plugin.as_deref().unwrap_or(tool);
                let why: Cow<'_, str> = match (reason, code) {
                    (Some(reason), _) => reason.as_str().into(),
                    (None, Some(code)) => code.as_str(),
                    (None, None) => "no reason given".into(),
                };
                let outcome = match (outcome, code, family) {
                    (ToolOutcome::Done, ..) => "done".to_owned(),
                    // Words first, then the code for a search or a report.
                    (ToolOutcome::Failed, Some(code), Some(family)) => {
                        format!("failed: {} ({code})", crate::words::failure_words(*family))
                    }
                    (other, ..) => format!("{}: {why}", other.as_str()),
                };
                let hint = match hint.as_deref() {
                    Some(hint) if !hint.is_empty() => format!(" ({})", line(hint)),
                    _ => String::new(),
                };
                outln!("  [{}{hint}] {outcome}", line(plugin));
            }
            TurnEvent::Confirm { method, url, decision, .. } => {
                self.end_line();
                outln!("  serious action {decision}: {} {}", line(method), line(url));
            }
            TurnEvent::Reply { text, cut } => {
                let streamed = std::mem::take(&mut self.streamed);
                let mut screen = self.screen();
                let mut safe = if streamed { String::new() } else { screen.piece(text) };
                safe.push_str(&screen.finish());
                write_made_safe(To::Stdout, &safe);
                // Issue 34: a cut answer is not taken for a whole one.
                if *cut {
                    outln!("(the answer was cut: it reached the length limit)");
                }
            }
            // The program's words, not the AI's framing of them.
            TurnEvent::Event { plugin, event, title, details, held, .. } => {
                self.end_line();
                let details = details.as_deref().map(|d| format!(": \"{}\"", line(d))).unwrap_or_default();
                // The only reason an event is held from the AI (§13, issue 32).
                let held = if held.is_some() { " (not said to the online AI: kept on this PC)" } else { "" };
                outln!("event {}/{}: {}{details}{held}", line(plugin), line(event), line(title));
            }
            TurnEvent::NoTools { server } => {
                self.end_line();
                let lines = crate::words::no_tools_lines(Some(*server), Some(server.tool_model()));
                for (i, words) in lines.iter().enumerate() {
                    let said =
                        if i == 0 { format!("{} says {words}", server.name()) } else { words.trim_start().to_owned() };
                    outln!("  ({said})");
                }
            }
            TurnEvent::LeftOut { turns, plugins } => {
                self.end_line();
                let plugins: Vec<String> = plugins.iter().map(|p| line(p).to_string()).collect();
                let (turns, used) =
                    if *turns == 1 { ("1 earlier turn", "it") } else { (&*format!("{turns} earlier turns"), "they") };
                outln!(
                    "  {turns} left out for the online AI: {used} used a plugin kept on this PC ({})",
                    plugins.join(", ")
                );
            }
            TurnEvent::Error { code, message } => self.error = Some((*code, message.clone())),
        }
    }

    fn screen(&self) -> std::sync::MutexGuard<'_, Stream> {
        self.screen.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A stopped turn: the words so far stay, `(stopped)` ends their line
    /// (or stands on its own when none were streamed).
    fn stopped(&mut self) {
        self.error = None;
        let streamed = std::mem::take(&mut self.streamed);
        let mut screen = self.screen();
        let mut safe = if streamed { String::new() } else { screen.end_line() };
        safe.push_str(&screen.piece(if streamed { " (stopped)" } else { "(stopped)" }));
        safe.push_str(&screen.finish());
        write_made_safe(To::Stdout, &safe);
    }

    /// Ends an answer's streamed line before a line of its own.
    fn end_line(&mut self) {
        self.streamed = false;
        let safe = self.screen().end_line();
        write_made_safe(To::Stdout, &safe);
    }
}

/// `--confirm yes|no`: every R3 question answered in advance.
struct InAdvance(Decision);

impl Ask for InAdvance {
    fn confirm(&self, _question: Question) -> Answer<'_> {
        let decision = self.0;
        Box::pin(async move { decision })
    }
}

/// The only answer that sends an R3 request (issue 32): typed in full, so
/// that a line meant for something else (a `y` to the model's own
/// question) cannot be it. Compared trimmed, in any case.
const YES: &str = "yes";

/// The question's last line, its prompt.
const PROMPT: &str = "Type yes to send it, anything else cancels:";

/// `--confirm ask`: the question printed (on standard error with
/// `--json`), the answer read from standard input. Only a line read after
/// the question was fully shown answers it: what was typed before (lines
/// waiting in the queue as it is asked, and on a terminal what it holds
/// unread once it is shown) is dropped, the queued lines said. Only [`YES`] sends; anything else, or the input's
/// end, is a no.
struct Terminal {
    lines: Lines,
    json: bool,
    screen: Screen,
    /// Armed when a question's time ran out.
    late: Late,
}

impl Terminal {
    /// The question's lines: who asks, exactly what a yes sends, the prompt.
    fn lines_of(question: &Question) -> Vec<String> {
        let request = &question.request;
        let mut lines = vec![
            format!("{} wants to: {} (serious action, confirmed every time)", question.plugin_name, question.hint),
            format!("  {} {}", request.method, request.url),
        ];
        if let Some(body) = &request.body {
            lines.push(format!("  {body}"));
        }
        lines.push(PROMPT.to_owned());
        lines
    }
}

impl Ask for Terminal {
    fn confirm(&self, question: Question) -> Answer<'_> {
        // Before the host starts its wait: a question dropped this long
        // after is one whose time ran out.
        let asked = Instant::now();
        // A new question is what the next line answers: an earlier one's expiry no longer guards it.
        self.late.take();
        Box::pin(async move {
            // A script reading --json lines gets only the contract's lines on stdout.
            let (to, terminal) = if self.json {
                (To::Stderr, std::io::stderr().is_terminal())
            } else {
                (To::Stdout, std::io::stdout().is_terminal())
            };
            // On a fresh line, apart from whatever the model's words left open.
            let mut shown = if self.json {
                String::new()
            } else {
                self.screen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).end_line()
            };
            shown.push_str(&shown::question(&Terminal::lines_of(&question), terminal));
            // The queue is emptied before the question shows: a script's
            // answer written once it sees the prompt is never taken for a
            // line typed before it (issue 33).
            let mut lines = self.lines.lock().await;
            let ignored = std::iter::from_fn(|| lines.try_recv().ok()).count();
            write_made_safe(to, &shown);
            discard_unread();
            if ignored > 0 {
                let said = match ignored {
                    1 => "1 line typed before this question was ignored.".to_owned(),
                    n => format!("{n} lines typed before this question were ignored."),
                };
                write_made_safe(to, &format!("\n{}", shown::question(&[said, PROMPT.to_owned()], false)));
            }
            let mut open = Unanswered { to: Some(to), asked, within: self.within(), late: self.late.clone() };
            let decision = match lines.recv().await {
                Some(answer) if answer.trim().eq_ignore_ascii_case(YES) => Decision::Confirmed,
                _ => Decision::Declined,
            };
            open.to = None;
            decision
        })
    }

    fn within(&self) -> Duration {
        answer_within()
    }
}

/// How long an R3 question waits for its answer: the host's
/// [`dcp_host::ANSWER_WITHIN`]. A test build (the `test-net` feature) may
/// shorten it with `DCPLUGIN_TEST_ANSWER_MS`, so that a test sees a
/// question expire without waiting a minute.
pub(super) fn answer_within() -> Duration {
    #[cfg(feature = "test-net")]
    if let Some(ms) = std::env::var("DCPLUGIN_TEST_ANSWER_MS").ok().and_then(|ms| ms.parse().ok()) {
        return Duration::from_millis(ms);
    }
    dcp_host::ANSWER_WITHIN
}

/// Said when a question is withdrawn before its answer: the turn was
/// stopped or out of time, or the call was judged again (issue 33).
const WITHDRAWN: &str = "Question withdrawn: nothing was sent.";

/// Said when a question's time ran out (issue 34): nobody declined it.
const EXPIRED: &str = "No answer in time: the question expired, nothing was sent.";

/// Said instead of sending the AI a yes or a no typed right after a
/// question expired (issue 34).
const LATE_ANSWER: &str = "That question had expired: nothing was sent, and this answer was not passed to the AI. \
                           Ask again if you still want it.";

/// A question waiting for its answer: dropped while it waits (the engine
/// or the host stopped waiting), it says [`EXPIRED`] once its time ran
/// out (and arms [`Late`]), else [`WITHDRAWN`], with the mark of the
/// question's lines, on a line of its own where the question went.
struct Unanswered {
    /// Where the question went, while it waits.
    to: Option<To>,
    /// When it was asked, and how long it may wait.
    asked: Instant,
    within: Duration,
    late: Late,
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some(to) = self.to.take() {
            let expired = self.asked.elapsed() >= self.within;
            let said = if expired { EXPIRED } else { WITHDRAWN };
            write_made_safe(to, &format!("\n{}\n", shown::question(&[said.to_owned()], false).trim_end()));
            self.late.0.store(expired, Ordering::SeqCst);
        }
    }
}

/// Whether the next line typed may be a late answer to a question that
/// expired (issue 34): armed by [`Unanswered`], taken by the chat loop with
/// the next line that is not blank, whatever it is, or by the next question.
#[derive(Clone, Default)]
struct Late(Arc<AtomicBool>);

impl Late {
    /// Whether it was armed; disarmed either way.
    fn take(&self) -> bool {
        self.0.swap(false, Ordering::SeqCst)
    }
}

/// A line that reads as a yes or a no to a question: `y`, `yes`, `n`,
/// `no`, in any case, spaces around.
fn is_yes_or_no(line: &str) -> bool {
    ["y", "yes", "n", "no"].iter().any(|answer| line.trim().eq_ignore_ascii_case(answer))
}

/// Discards what the terminal holds typed but not yet read once the
/// question is shown (a line begun, or ended a moment ago; tcflush
/// TCIFLUSH, through rustix: `unsafe` is forbidden here).
#[cfg(unix)]
fn discard_unread() {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        let _ = rustix::termios::tcflush(&stdin, rustix::termios::QueueSelector::IFlush);
    }
}

#[cfg(not(unix))]
fn discard_unread() {}
