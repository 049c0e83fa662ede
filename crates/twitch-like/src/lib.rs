//! Test support only (issue 36): a Twitch-like IRC server on loopback —
//! the one stand-in allowed for Twitch's chat where there is no internet.
//! It is a real server: TLS with a certificate for `irc.chat.twitch.tv`
//! signed by a CA made at start ([`TwitchLike::ca_pem`]), lines of
//! Twitch's IRC with Twitch's real tags. A client reaches it under Twitch's
//! own name and port through the network filter's test hooks
//! ([`TwitchLike::env`]).
//!
//! Each connection is answered as Twitch answers: `CAP REQ` acknowledged,
//! the anonymous read-only login (`NICK justinfan…`) welcomed (`001`…`376`;
//! any other nick refused with Twitch's "Login authentication failed"
//! notice, then closed), `JOIN` echoed with the names list and the room's
//! `ROOMSTATE`, `PART` echoed, a client's `PING` answered. Every line it
//! receives is recorded ([`TwitchLike::received`]); a line longer than
//! 8 KiB closes the connection. The test drives the chat: a viewer's
//! message ([`TwitchLike::say`]), a moderator's deletion, ban, timeout or
//! clear, Twitch's `PING` and `RECONNECT`, a dropped connection, any raw
//! line. The `twitch-like` binary does the same from its standard input
//! for tests that drive another process.
//!
//! ```no_run
//! # async fn example() {
//! let twitch = twitch_like::TwitchLike::start().await.expect("started");
//! // … the app connects with twitch.env() in its environment …
//! twitch.joined("streamer").await;
//! let id = twitch.say("streamer", "viewer", "Viewer", "!ask what's 20 euros in yen");
//! twitch.delete("streamer", &id);
//! # }
//! ```

mod connection;
mod wire;

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, oneshot, watch};

/// Twitch's chat host name, the name the server's certificate is for.
pub const HOST: &str = "irc.chat.twitch.tv";
/// Twitch's port for IRC over TLS.
pub const PORT: u16 = 6697;
/// The public address the test hooks give [`HOST`]; any public address
/// would do, the connect hook sends it to loopback.
const STAND_IN_ADDRESS: &str = "93.184.216.34";
/// How long the waits ([`TwitchLike::joined`], [`TwitchLike::ponged`]) wait before failing the test.
const WAIT_LIMIT: Duration = Duration::from_secs(30);
/// How long a connection sent `RECONNECT` stays open for its client to leave first.
const RECONNECT_GRACE: Duration = Duration::from_secs(1);

/// What happens on the server, as the binary prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happening {
    /// The n-th connection (from 1) was accepted.
    Connected(usize),
    /// A connection joined this channel (without its `#`).
    Joined(String),
    /// A `PONG` arrived.
    Pong,
    /// The n-th connection ended.
    Closed(usize),
}

impl std::fmt::Display for Happening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Happening::Connected(n) => write!(f, "connected {n}"),
            Happening::Joined(channel) => write!(f, "joined #{channel}"),
            Happening::Pong => f.write_str("pong"),
            Happening::Closed(n) => write!(f, "closed {n}"),
        }
    }
}

/// Why a message cannot be said: it would not be one Twitch line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadSay {
    /// The channel or the sender is not a Twitch login (ASCII letters, digits, `_`, 1 to 25).
    #[error("`{0}` is not a Twitch login (letters, digits, _; 1 to 25)")]
    NotALogin(String),
    /// The text holds a CR, LF or NUL (use [`TwitchLike::send_raw`] for a hostile line).
    #[error("the text holds a line break or a NUL byte")]
    NotOneLine,
}

/// Who says a message: a plain viewer or one of the channel's moderators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// No badge.
    Viewer,
    /// The `moderator/1` badge, `mod=1`, `user-type=mod`.
    Moderator,
}

/// A running Twitch-like server. Dropping it stops it and closes every connection.
pub struct TwitchLike {
    addr: SocketAddr,
    ca_pem: String,
    ca_dir: tempfile::TempDir,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TwitchLike {
    /// A server on a free port of 127.0.0.1 (one §15 does not reserve).
    pub async fn start() -> io::Result<TwitchLike> {
        TwitchLike::launch(None)
    }

    /// A server on this port of 127.0.0.1 (a free one when `None`), from a plain (non-async) caller.
    pub fn launch(port: Option<u16>) -> io::Result<TwitchLike> {
        let pki = scripted_ai::pki::TestPki::new(&[HOST]).map_err(io::Error::other)?;
        // No ALPN: Twitch offers none.
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(pki.tls().server_config()?));
        let ca_dir = tempfile::tempdir()?;
        std::fs::write(ca_dir.path().join("ca.pem"), &pki.ca_pem)?;
        let listener = scripted_ai::bind(port)?;
        let addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let shared = Arc::new(Shared::new());
        let (stop, stopped) = oneshot::channel();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let serving = shared.clone();
        let thread = std::thread::Builder::new()
            .name("twitch-like".into())
            .spawn(move || runtime.block_on(connection::serve(listener, acceptor, serving, stopped)))?;
        Ok(TwitchLike { addr, ca_pem: pki.ca_pem, ca_dir, shared, stop: Some(stop), thread: Some(thread) })
    }

    /// The port of 127.0.0.1 it listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The test CA's certificate (PEM): what a client trusts.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// The file holding [`Self::ca_pem`], removed with the server.
    pub fn ca_path(&self) -> PathBuf {
        self.ca_dir.path().join("ca.pem")
    }

    /// The network filter's test hooks that send Twitch's real name and
    /// port here: `DCPLUGIN_TEST_DNS`, `DCPLUGIN_TEST_CONNECT`, `DCPLUGIN_TEST_CA`.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("DCPLUGIN_TEST_DNS".into(), format!("{HOST}={STAND_IN_ADDRESS}")),
            ("DCPLUGIN_TEST_CONNECT".into(), format!("{STAND_IN_ADDRESS}:{PORT}={}", self.addr)),
            ("DCPLUGIN_TEST_CA".into(), self.ca_path().display().to_string()),
        ]
    }

    /// Returns once a connection joined `#channel` (any time since start);
    /// panics after 30 s.
    pub async fn joined(&self, channel: &str) {
        self.joined_times(channel, 1).await;
    }

    /// Returns once `#channel` was joined `n` times in all (a client that
    /// came back after a `RECONNECT` or a drop joins again); panics after 30 s.
    pub async fn joined_times(&self, channel: &str, n: usize) {
        let channel = channel.trim_start_matches('#').to_ascii_lowercase();
        self.wait(&format!("{n} JOINs of #{channel}"), |state| {
            state.joins.get(&channel).copied().unwrap_or_default() >= n
        })
        .await;
    }

    /// The JOINs seen so far, every channel and connection.
    pub fn joins(&self) -> usize {
        self.shared.state().joins.values().sum()
    }

    /// A viewer's chat message in `#channel`, with Twitch's tags, to every
    /// connection that joined it; returns the message's id (a UUID), what a
    /// deletion names. The text is sent as given (no 500-character cut: a
    /// test can check the client's). Panics where [`Self::try_say`] refuses.
    pub fn say(&self, channel: &str, login: &str, display_name: &str, text: &str) -> String {
        self.try_say(channel, login, display_name, text, Role::Viewer)
            .unwrap_or_else(|bad| panic!("twitch-like: say: {bad}"))
    }

    /// [`Self::say`] from a moderator (the `moderator/1` badge, `mod=1`, `user-type=mod`).
    pub fn say_as_mod(&self, channel: &str, login: &str, display_name: &str, text: &str) -> String {
        self.try_say(channel, login, display_name, text, Role::Moderator)
            .unwrap_or_else(|bad| panic!("twitch-like: say: {bad}"))
    }

    /// [`Self::say`] by a viewer of this role, or why it would not be one Twitch line.
    pub fn try_say(
        &self,
        channel: &str,
        login: &str,
        display_name: &str,
        text: &str,
        role: Role,
    ) -> Result<String, BadSay> {
        let channel = login_of(channel.trim_start_matches('#'))?;
        let login = login_of(login)?;
        if text.contains(['\r', '\n', '\0']) {
            return Err(BadSay::NotOneLine);
        }
        let id = wire::message_id();
        let line = wire::privmsg(&wire::Said { channel: &channel, login: &login, display_name, text, id: &id, role });
        self.shared.state().said.insert(id.clone(), (login, text.to_owned()));
        self.shared.send(Out::Line { channel: Some(channel), line });
        Ok(id)
    }

    /// Any line (CR LF added) to every connection, joined or not.
    pub fn send_raw(&self, line: &str) {
        self.shared.send(Out::Line { channel: None, line: line.to_owned() });
    }

    /// A moderator deletes the message `msg_id`: `CLEARMSG` naming its
    /// sender and quoting its text (as Twitch does; empty for an id this server never said).
    pub fn delete(&self, channel: &str, msg_id: &str) {
        let channel = channel_of(channel);
        let (login, text) = self.shared.state().said.get(msg_id).cloned().unwrap_or_default();
        let line = wire::clearmsg(&channel, &login, &text, msg_id);
        self.shared.send(Out::Line { channel: Some(channel), line });
    }

    /// A moderator bans `login`: `CLEARCHAT #channel :login` without `ban-duration`.
    pub fn ban(&self, channel: &str, login: &str) {
        let channel = channel_of(channel);
        let line = wire::clearchat_user(&channel, &login.to_ascii_lowercase(), None);
        self.shared.send(Out::Line { channel: Some(channel), line });
    }

    /// A moderator times `login` out for `seconds`: `CLEARCHAT` with `ban-duration`.
    pub fn timeout(&self, channel: &str, login: &str, seconds: u64) {
        let channel = channel_of(channel);
        let line = wire::clearchat_user(&channel, &login.to_ascii_lowercase(), Some(seconds));
        self.shared.send(Out::Line { channel: Some(channel), line });
    }

    /// A moderator clears the whole chat: `CLEARCHAT #channel` without a login.
    pub fn clear(&self, channel: &str) {
        let channel = channel_of(channel);
        let line = wire::clearchat_all(&channel);
        self.shared.send(Out::Line { channel: Some(channel), line });
    }

    /// `:tmi.twitch.tv RECONNECT` to every connection, each closed a moment
    /// later (at once if its client leaves first), as Twitch does before a restart.
    pub fn reconnect(&self) {
        self.shared.send(Out::Reconnect);
    }

    /// Every connection closed at once, without a word (no `RECONNECT`, no TLS close).
    pub fn drop_all(&self) {
        self.shared.send(Out::Drop);
    }

    /// `PING :tmi.twitch.tv` to every connection (Twitch's, about every 5 minutes).
    pub fn ping(&self) {
        self.send_raw(&format!("PING :{}", wire::SERVER));
    }

    /// Returns once `n` `PONG`s arrived in all; panics after 30 s.
    pub async fn ponged(&self, n: usize) {
        self.wait(&format!("{n} PONGs"), |state| state.pongs >= n).await;
    }

    /// Every line received, from every connection, in order (CR LF removed).
    pub fn received(&self) -> Vec<String> {
        self.shared.state().received.clone()
    }

    /// The connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.state().connections
    }

    /// What happens from now on ([`Happening`]), as the binary prints it.
    pub fn happenings(&self) -> broadcast::Receiver<Happening> {
        self.shared.happenings.subscribe()
    }

    async fn wait(&self, what: &str, done: impl Fn(&State) -> bool) {
        let mut changed = self.shared.changed.subscribe();
        let arrived = tokio::time::timeout(WAIT_LIMIT, changed.wait_for(|()| done(&self.shared.state()))).await;
        if !matches!(arrived, Ok(Ok(_))) {
            let state = self.shared.state();
            panic!(
                "twitch-like: waited {WAIT_LIMIT:?} for {what}; saw {} connections, JOINs {:?}, {} PONGs",
                state.connections, state.joins, state.pongs
            );
        }
    }
}

impl Drop for TwitchLike {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A Twitch login, lowercased: 1 to 25 ASCII letters, digits or `_`.
fn login_of(name: &str) -> Result<String, BadSay> {
    let fits = (1..=25).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    fits.then(|| name.to_ascii_lowercase()).ok_or_else(|| BadSay::NotALogin(name.to_owned()))
}

/// A channel as a test names it (any case, an optional `#`), as the connections keep it.
fn channel_of(channel: &str) -> String {
    channel.trim_start_matches('#').to_ascii_lowercase()
}

/// What the handle tells every connection.
#[derive(Debug, Clone)]
enum Out {
    /// A line, to the connections that joined `channel` (to all when `None`).
    Line { channel: Option<String>, line: String },
    /// Send `RECONNECT`, then close.
    Reconnect,
    /// Close now, without a word.
    Drop,
}

/// What the server saw, shared by the connections and the handle.
#[derive(Default)]
struct State {
    received: Vec<String>,
    /// JOINs per channel (without `#`).
    joins: HashMap<String, usize>,
    pongs: usize,
    connections: usize,
    /// One sender per open connection: a list rather than a broadcast
    /// channel, so a flood never loses a line to a lagging receiver.
    outs: Vec<mpsc::UnboundedSender<Out>>,
    /// The messages said, by id: (login, text), what a `CLEARMSG` quotes.
    said: HashMap<String, (String, String)>,
}

struct Shared {
    state: Mutex<State>,
    /// Bumped after every change of [`State`] a wait looks at.
    changed: watch::Sender<()>,
    happenings: broadcast::Sender<Happening>,
}

impl Shared {
    fn new() -> Shared {
        Shared { state: Mutex::default(), changed: watch::Sender::new(()), happenings: broadcast::channel(1024).0 }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panicking test thread cannot leave the state half-written: every change is whole.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Changes the state, then wakes the waits and tells the happening (if any).
    fn update(&self, change: impl FnOnce(&mut State), happening: Option<Happening>) {
        change(&mut self.state());
        self.changed.send_replace(());
        if let Some(happening) = happening {
            // No one listening (no binary) is fine.
            let _ = self.happenings.send(happening);
        }
    }

    /// To every open connection; the closed ones are forgotten.
    fn send(&self, out: Out) {
        self.state().outs.retain(|connection| connection.send(out.clone()).is_ok());
    }
}
