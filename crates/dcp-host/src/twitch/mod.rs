//! The Twitch chat in this process (issue 36, §12): the player's channel
//! joined on Twitch's IRC interface over TLS ([`TWITCH_HOST`]:[`TWITCH_PORT`],
//! through dcp-net, so the test-net hooks apply), its viewers' messages
//! let through dcp-twitch's gate and handed to the companion one at a time
//! while it listens.
//!
//! Two tasks of the host's runtime run a connection: the connection
//! ([`runner`]: connect, read lines, answer `PING`, reconnect with the
//! backoff) and the tick ([`Chat`]'s, every [`TICK`] or when woken) that
//! hands the next turn to a listening companion. Neither ever blocks the
//! host: every state they share sits behind one short lock, never held
//! across an await. Every change of what the player sees goes on the
//! host's stream as [`ChatNotice::State`], a turn as [`ChatNotice::Turn`].
//! A host dropped, or the chat hung up, aborts both tasks, which closes
//! the socket. Nothing a viewer wrote is ever printed or logged here.

mod lines;
mod runner;

use crate::dto::CompanionState;
use crate::events::HostEvent;
use crate::{ApiResult, Host};
use dcp_twitch::{ChatGate, DropReason, GateConfig};
use serde::Serialize;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::{broadcast, Notify};
use tokio::task::JoinHandle;
use tokio::time::Instant;

pub use dcp_store::{ChatChange, ChatSettings};
pub use dcp_twitch::ViewerTurn;

/// Twitch's IRC interface over TLS: the only place the chat connects.
pub const TWITCH_HOST: &str = "irc.chat.twitch.tv";
/// Its TLS port.
pub const TWITCH_PORT: u16 = 6697;

/// How often the tick looks for a turn to hand over (and for messages that
/// waited too long) when nothing wakes it sooner.
const TICK: Duration = Duration::from_millis(500);

/// How long a turn handed over counts as answered without the companion
/// saying it listens again: a turn's own limit.
const TURN: Duration = Duration::from_secs(dcp_format::limits::TURN_SECONDS);

/// The connection in this process, as the player sees it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatState {
    /// Not connected in this process.
    Off,
    /// The first connection is being opened.
    Connecting,
    /// The channel is joined: viewers' messages are read.
    Connected,
    /// The connection ended; it is tried again ([`ChatStatus::retry_in_secs`]).
    Reconnecting,
}

/// Why the connection is down (with Reconnecting), or why it stopped (with Off).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatCode {
    /// Twitch could not be reached (no network, the name not found).
    Network,
    /// The certificate or the TLS handshake failed.
    Tls,
    /// The server ended the connection, or sent a line over the cap.
    Closed,
    /// Twitch asked for a new connection (`RECONNECT`).
    Reconnect,
    /// A notice refused the login or the join (a suspended channel…): not tried again.
    Refused,
    /// No line for 6 minutes (Twitch pings every 5).
    Silent,
}

/// Messages addressed to the companion and not said, by reason, since connect.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ChatDropped {
    /// Chat turns were paused.
    pub paused: u64,
    /// The viewer is ignored.
    pub ignored: u64,
    /// Nothing left to ask.
    pub empty: u64,
    /// The viewer's cooldown was running.
    pub cooldown: u64,
    /// The queue was full.
    pub queue_full: u64,
    /// It waited too long.
    pub waited_too_long: u64,
    /// A moderator deleted it.
    pub deleted: u64,
    /// A moderator banned or timed out its viewer.
    pub viewer_cleared: u64,
    /// A moderator cleared the chat.
    pub chat_cleared: u64,
}

impl ChatDropped {
    fn of(gate: &ChatGate) -> ChatDropped {
        let n = |reason| gate.dropped(reason);
        ChatDropped {
            paused: n(DropReason::Paused),
            ignored: n(DropReason::Ignored),
            empty: n(DropReason::Empty),
            cooldown: n(DropReason::Cooldown),
            queue_full: n(DropReason::QueueFull),
            waited_too_long: n(DropReason::WaitedTooLong),
            deleted: n(DropReason::Deleted),
            viewer_cleared: n(DropReason::ViewerCleared),
            chat_cleared: n(DropReason::ChatCleared),
        }
    }
}

/// The chat in this process and its settings.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatStatus {
    /// This process's connection's channel; none when Off.
    pub channel: Option<String>,
    /// The connection's state.
    pub state: ChatState,
    /// Why it is down (Reconnecting) or stopped (Off after a refusal).
    pub code: Option<ChatCode>,
    /// With Reconnecting: the wait before this try.
    pub retry_in_secs: Option<u64>,
    /// §12 stream mode: on while the chat is connected in this process (any state but Off).
    pub stream_mode: bool,
    /// The settings kept in the profile.
    pub settings: ChatSettings,
    /// Messages waiting for their turn.
    pub waiting: u32,
    /// Chat turns handed to the companion since connect.
    pub said: u64,
    /// Messages dropped since connect, by reason.
    pub dropped: ChatDropped,
    /// Where the chat connects: [`TWITCH_HOST`].
    pub host: String,
    /// And on which port: [`TWITCH_PORT`].
    pub port: u16,
}

/// What the chat tells the shells ([`HostEvent::Twitch`]).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum ChatNotice {
    /// A change of the state, the settings or the counts.
    State {
        /// The chat now.
        status: ChatStatus,
    },
    /// A viewer's turn to say now: the companion was listening.
    Turn {
        /// Who asked what.
        viewer: ViewerTurn,
    },
}

/// The chat of one host: what its tasks share, and the tasks.
pub(crate) struct Chat {
    shared: Arc<Shared>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

/// What the host's methods and the chat's tasks share.
struct Shared {
    live: Mutex<Live>,
    /// Wakes the tick: a message let in, the companion or the settings changed.
    wake: Notify,
    events: broadcast::Sender<HostEvent>,
}

/// The chat now. One lock, never held across an await.
struct Live {
    /// Which connection may report: each start and stop counts one up, so
    /// a task stopped while it was between two awaits changes nothing.
    generation: u64,
    channel: Option<String>,
    state: ChatState,
    code: Option<ChatCode>,
    retry_in_secs: Option<u64>,
    settings: ChatSettings,
    /// The limits the next connection's gate gets (the prefix is the settings').
    limits: GateConfig,
    /// How long without a line the next connection is taken for dead.
    silent: Duration,
    gate: ChatGate,
    said: u64,
    companion: CompanionState,
    /// When a turn was last handed over, until the companion listens again.
    handed_at: Option<Instant>,
    /// The gate's time origin.
    origin: Instant,
    /// The last status sent, so only changes are.
    published: Option<ChatStatus>,
}

impl Live {
    fn status(&self) -> ChatStatus {
        ChatStatus {
            channel: self.channel.clone(),
            state: self.state,
            code: self.code,
            retry_in_secs: self.retry_in_secs,
            stream_mode: self.state != ChatState::Off,
            settings: self.settings.clone(),
            waiting: u32::try_from(self.gate.waiting()).unwrap_or(u32::MAX),
            said: self.said,
            dropped: ChatDropped::of(&self.gate),
            host: TWITCH_HOST.to_owned(),
            port: TWITCH_PORT,
        }
    }

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    /// The settings applied to the gate.
    fn apply(&mut self, settings: ChatSettings) {
        self.gate.set_prefix(&settings.prefix);
        self.gate.set_paused(settings.paused);
        self.gate.set_ignored(&settings.ignored);
        self.settings = settings;
    }

    /// The companion may take a chat turn: it listens, and the last turn
    /// handed over was answered (it said it listens since) or is older than a turn may last.
    fn ready(&self) -> bool {
        self.companion == CompanionState::Listening && self.handed_at.is_none_or(|at| at.elapsed() >= TURN)
    }
}

impl Shared {
    fn live(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends the status if it changed since the last one sent; returns it.
    fn publish(&self, live: &mut Live) -> ChatStatus {
        let status = live.status();
        if live.published.as_ref() != Some(&status) {
            live.published = Some(status.clone());
            let _ = self.events.send(HostEvent::Twitch { notice: ChatNotice::State { status: status.clone() } });
        }
        status
    }

    /// Changes the live state if `generation` is still the running one, then publishes.
    fn update(&self, generation: u64, change: impl FnOnce(&mut Live)) {
        let mut live = self.live();
        if live.generation == generation {
            change(&mut live);
            self.publish(&mut live);
        }
    }

    /// Hands the next turn over if the companion is ready for one;
    /// publishes the counts. False once the chat is off (a notice refused
    /// it): nothing more is handed over.
    fn tick(&self) -> bool {
        let mut live = self.live();
        if live.state == ChatState::Off {
            return false;
        }
        let now = live.now();
        // Messages that waited too long are dropped (and counted) even
        // while nobody takes a turn.
        live.gate.expire(now);
        if live.ready() {
            if let Some(viewer) = live.gate.next_turn(now) {
                live.said += 1;
                live.handed_at = Some(Instant::now());
                let _ = self.events.send(HostEvent::Twitch { notice: ChatNotice::Turn { viewer } });
            }
        }
        self.publish(&mut live);
        true
    }
}

impl Chat {
    pub(crate) fn new(events: broadcast::Sender<HostEvent>) -> Chat {
        let limits = GateConfig::default();
        let live = Live {
            generation: 0,
            channel: None,
            state: ChatState::Off,
            code: None,
            retry_in_secs: None,
            gate: ChatGate::new(limits.clone()),
            limits,
            silent: runner::SILENT,
            settings: ChatSettings::default(),
            said: 0,
            companion: CompanionState::Sleeping,
            handed_at: None,
            origin: Instant::now(),
            published: None,
        };
        Chat {
            shared: Arc::new(Shared { live: Mutex::new(live), wake: Notify::new(), events }),
            tasks: Mutex::default(),
        }
    }

    /// Connects `channel` (a checked login) unless this process is already
    /// connected to it; the settings applied either way.
    fn start(&self, runtime: &tokio::runtime::Handle, client: &dcp_net::Client, settings: ChatSettings) -> ChatStatus {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let mut live = self.shared.live();
        let Some(channel) = settings.channel.clone() else {
            live.apply(settings);
            return self.shared.publish(&mut live);
        };
        if live.state != ChatState::Off && live.channel.as_ref() == Some(&channel) {
            live.apply(settings);
            return self.shared.publish(&mut live);
        }
        for task in tasks.drain(..) {
            task.abort();
        }
        live.generation += 1;
        live.channel = Some(channel.clone());
        live.state = ChatState::Connecting;
        live.code = None;
        live.retry_in_secs = None;
        live.said = 0;
        live.gate = ChatGate::new(GateConfig { prefix: settings.prefix.clone(), ..live.limits.clone() });
        live.apply(settings);
        let run = runner::Run { client: client.clone(), channel, generation: live.generation, silent: live.silent };
        let status = self.shared.publish(&mut live);
        drop(live);
        let _runtime = runtime.enter();
        tasks.push(tokio::spawn(runner::run(self.shared.clone(), run)));
        tasks.push(tokio::spawn(tick(self.shared.clone())));
        status
    }

    /// Ends this process's connection (Off, no channel).
    fn stop(&self, settings: ChatSettings) -> ChatStatus {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        for task in tasks.drain(..) {
            task.abort();
        }
        let mut live = self.shared.live();
        live.generation += 1;
        live.channel = None;
        live.state = ChatState::Off;
        live.code = None;
        live.retry_in_secs = None;
        live.apply(settings);
        self.shared.publish(&mut live)
    }

    /// New settings, applied at once.
    fn settings(&self, settings: ChatSettings) -> ChatStatus {
        let mut live = self.shared.live();
        live.apply(settings);
        let status = self.shared.publish(&mut live);
        self.shared.wake.notify_one();
        status
    }

    fn set_companion(&self, state: CompanionState) {
        let mut live = self.shared.live();
        live.companion = state;
        if state == CompanionState::Listening {
            live.handed_at = None;
        }
        drop(live);
        self.shared.wake.notify_one();
    }

    fn stream_mode(&self) -> bool {
        self.shared.live().state != ChatState::Off
    }
}

impl Drop for Chat {
    /// The host is gone: its connection ends with it.
    fn drop(&mut self) {
        for task in self.tasks.get_mut().unwrap_or_else(PoisonError::into_inner).drain(..) {
            task.abort();
        }
    }
}

/// Hands turns over when the companion is ready, every [`TICK`] or when
/// woken, until the chat is off.
async fn tick(shared: Arc<Shared>) {
    while shared.tick() {
        tokio::select! {
            () = tokio::time::sleep(TICK) => {}
            () = shared.wake.notified() => {}
        }
    }
}

impl Host {
    /// Saves `channel` (a Twitch login, any case, an optional leading `#`)
    /// as the chat to connect and connects it in this process (replacing a
    /// connection to another channel); `bad_input` for a name that is not
    /// a Twitch login. Returns at once (Connecting); State notices follow.
    pub async fn twitch_connect(&self, channel: &str) -> ApiResult<ChatStatus> {
        let typed = channel.to_owned();
        let settings = self.read(move |s| Ok(s.set_chat_channel(Some(&typed))?)).await?;
        Ok(self.inner.chat.start(self.runtime(), &self.inner.client, settings))
    }

    /// Ends this process's connection and forgets the saved channel.
    pub async fn twitch_disconnect(&self) -> ApiResult<ChatStatus> {
        let settings = self.read(|s| Ok(s.set_chat_channel(None)?)).await?;
        Ok(self.inner.chat.stop(settings))
    }

    /// Connects the saved channel, if any (the window at start); already
    /// connected to it, only the settings are read again.
    pub async fn twitch_resume(&self) -> ApiResult<ChatStatus> {
        let settings = self.read(|s| Ok(s.chat_settings()?)).await?;
        Ok(self.inner.chat.start(self.runtime(), &self.inner.client, settings))
    }

    /// Ends this process's connection, keeping the saved channel (a check
    /// done, a shell ending).
    pub async fn twitch_hang_up(&self) -> ApiResult<ChatStatus> {
        let settings = self.read(|s| Ok(s.chat_settings()?)).await?;
        Ok(self.inner.chat.stop(settings))
    }

    /// The chat now, its settings read again from the profile (another
    /// process may have changed them).
    pub async fn twitch_status(&self) -> ApiResult<ChatStatus> {
        let settings = self.read(|s| Ok(s.chat_settings()?)).await?;
        Ok(self.inner.chat.settings(settings))
    }

    /// Changes a chat setting, kept in the profile and applied at once;
    /// `bad_input` for a bad prefix or login.
    pub async fn twitch_settings(&self, change: ChatChange) -> ApiResult<ChatStatus> {
        let settings = self.read(move |s| Ok(s.change_chat(&change)?)).await?;
        Ok(self.inner.chat.settings(settings))
    }

    /// What the companion does now: a chat turn is handed over
    /// ([`ChatNotice::Turn`]) only while it is Listening; after handing one
    /// the companion counts as answering until told Listening again (or a
    /// turn's limit, TURN_SECONDS, passed). Before any call: Sleeping.
    pub fn twitch_companion(&self, state: CompanionState) {
        self.inner.chat.set_companion(state);
    }

    /// §12 stream mode from the chat: true while this process's chat is
    /// connected (any state but Off).
    pub fn stream_mode(&self) -> bool {
        self.inner.chat.stream_mode()
    }

    /// Replaces the chat's limits (cooldown, gap, queue, wait) for the
    /// next connection: tests shorten them instead of waiting. Test builds only.
    #[cfg(feature = "test-net")]
    pub fn set_twitch_limits(&self, limits: GateConfig) {
        self.inner.chat.shared.live().limits = limits;
    }

    /// Replaces the 6 minutes without a line after which the next
    /// connection is taken for dead: tests shorten it. Test builds only.
    #[cfg(feature = "test-net")]
    pub fn set_twitch_silence(&self, silent: Duration) {
        self.inner.chat.shared.live().silent = silent;
    }
}
