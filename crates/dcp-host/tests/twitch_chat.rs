//! The Twitch chat in the engine (issue 36, §12) against the Twitch-like
//! IRC server on loopback: the host reaches Twitch's real name and port
//! through the network filter's test hooks (`DCPLUGIN_TEST_*`, read when the
//! host opens, as every test-net build reads them), joins the channel, and
//! reports on its event stream. Tests wait for notices, never a fixed time.

#![allow(clippy::unwrap_used)]

use dcp_host::events::HostEvent;
use dcp_host::{
    ChatChange, ChatCode, ChatNotice, ChatState, ChatStatus, CompanionState, ErrorCode, Host, HostCode, HostOptions,
    ViewerTurn, TWITCH_HOST, TWITCH_PORT,
};
use dcp_twitch::GateConfig;
use dcp_vault::testing::MemoryKeyStore;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast::Receiver;
use twitch_like::{Happening, TwitchLike};

/// How long a test waits for a notice before failing.
const PATIENCE: Duration = Duration::from_secs(30);

/// The variables are the process's: one host opens at a time while they
/// point at its server (the host's client reads them when it opens).
static ENV: Mutex<()> = Mutex::new(());

struct Chat {
    server: TwitchLike,
    host: Host,
    events: Receiver<HostEvent>,
    _dir: tempfile::TempDir,
}

/// A Twitch-like server and a host whose chat reaches it, with `limits`
/// for the next connection (no gap between turns unless a test wants one).
async fn chat_with(limits: GateConfig) -> Chat {
    let server = TwitchLike::start().await.unwrap();
    let env = server.env();
    chat_for(server, env, limits)
}

/// A host whose client reads `env`.
fn chat_for(server: TwitchLike, env: Vec<(String, String)>, limits: GateConfig) -> Chat {
    let dir = tempfile::tempdir().unwrap();
    let host = {
        let _env = ENV.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for (key, value) in env {
            std::env::set_var(key, value);
        }
        Host::open(HostOptions {
            profile: Some(dir.path().join("profile")),
            key_store: Some(Arc::new(MemoryKeyStore::new())),
            runtime: Some(tokio::runtime::Handle::current()),
            ..HostOptions::default()
        })
        .unwrap()
    };
    host.set_twitch_limits(limits);
    let events = host.subscribe();
    Chat { server, host, events, _dir: dir }
}

fn no_gap() -> GateConfig {
    GateConfig { gap: Duration::ZERO, ..GateConfig::default() }
}

impl Chat {
    /// Connects `channel` and waits until it is joined.
    async fn connected(&mut self, channel: &str) -> ChatStatus {
        let status = self.host.twitch_connect(channel).await.unwrap();
        assert_eq!(status.state, ChatState::Connecting);
        assert!(status.stream_mode, "stream mode from the first moment");
        self.state(|s| s.state == ChatState::Connected).await
    }

    /// The next State notice matching `wanted` (a Turn on the way fails the test).
    async fn state(&mut self, wanted: impl Fn(&ChatStatus) -> bool) -> ChatStatus {
        loop {
            match self.notice().await {
                ChatNotice::State { status } if wanted(&status) => return status,
                ChatNotice::State { .. } => {}
                ChatNotice::Turn { viewer } => panic!("a turn nobody expected: {viewer:?}"),
            }
        }
    }

    /// The next Turn notice; State notices on the way are skipped.
    async fn turn(&mut self) -> ViewerTurn {
        loop {
            if let ChatNotice::Turn { viewer } = self.notice().await {
                return viewer;
            }
        }
    }

    async fn notice(&mut self) -> ChatNotice {
        loop {
            let event = tokio::time::timeout(PATIENCE, self.events.recv()).await.expect("a notice in time").unwrap();
            if let HostEvent::Twitch { notice } = event {
                return notice;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_connect_joins_twitchs_real_name_and_port_anonymously() {
    let mut chat = chat_with(no_gap()).await;
    let status = chat.connected("#Streamer").await;
    assert_eq!(status.channel.as_deref(), Some("streamer"));
    assert_eq!(status.settings.channel.as_deref(), Some("streamer"), "saved in the profile");
    assert_eq!((status.host.as_str(), status.port), (TWITCH_HOST, TWITCH_PORT));
    assert_eq!((TWITCH_HOST, TWITCH_PORT), ("irc.chat.twitch.tv", 6697));
    assert!(status.stream_mode && chat.host.stream_mode());
    chat.server.joined("streamer").await;
    let received = chat.server.received();
    assert!(received.iter().any(|l| l == "CAP REQ :twitch.tv/tags twitch.tv/commands"), "{received:?}");
    assert!(received.iter().any(|l| l.starts_with("NICK justinfan")), "{received:?}");
    assert!(received.iter().any(|l| l == "JOIN #streamer"), "{received:?}");
    assert!(!received.iter().any(|l| l.starts_with("PASS")), "no account, no token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_a_viewers_turn_is_handed_over_only_while_the_companion_listens() {
    // A message waits 1 s at most: one that runs out was never handed over.
    let mut chat = chat_with(GateConfig { max_wait: Duration::from_secs(1), ..no_gap() }).await;
    chat.connected("streamer").await;
    // The companion sleeps until it says otherwise.
    chat.server.say("streamer", "alice", "Alice", "!ask anyone awake?");
    let status = chat.state(|s| s.dropped.waited_too_long == 1).await;
    assert_eq!(status.said, 0);
    chat.server.say("streamer", "bob", "Bob", "!ask what's 20 euros in yen?");
    chat.state(|s| s.waiting == 1).await;
    chat.host.twitch_companion(CompanionState::Listening);
    let turn = chat.turn().await;
    assert_eq!((turn.login.as_str(), turn.display_name.as_str()), ("bob", "Bob"));
    assert_eq!(turn.text, "what's 20 euros in yen?");
    chat.state(|s| s.said == 1 && s.waiting == 0).await;
    // Answered; then the player types: a chat turn never interrupts them.
    chat.host.twitch_companion(CompanionState::Listening);
    chat.host.twitch_companion(CompanionState::UserTyping);
    chat.server.say("streamer", "carol", "Carol", "!ask and in pounds?");
    let status = chat.state(|s| s.dropped.waited_too_long == 2).await;
    assert_eq!(status.said, 1);
    chat.host.twitch_companion(CompanionState::Listening);
    chat.server.say("streamer", "dave", "Dave", "!ask and in dollars?");
    assert_eq!(chat.turn().await.login, "dave");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_a_turn_handed_over_counts_as_answered_until_the_companion_listens_again() {
    let mut chat = chat_with(GateConfig { max_wait: Duration::from_secs(1), ..no_gap() }).await;
    chat.connected("streamer").await;
    chat.host.twitch_companion(CompanionState::Listening);
    chat.server.say("streamer", "alice", "Alice", "!ask one");
    assert_eq!(chat.turn().await.login, "alice");
    // No new state from the companion: it is still answering alice, so
    // bob's message waits until it runs out.
    chat.server.say("streamer", "bob", "Bob", "!ask two");
    let status = chat.state(|s| s.dropped.waited_too_long == 1).await;
    assert_eq!(status.said, 1);
    chat.host.twitch_companion(CompanionState::Listening);
    chat.server.say("streamer", "carol", "Carol", "!ask three");
    assert_eq!(chat.turn().await.login, "carol");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_a_flood_meets_the_cooldown_and_the_queue() {
    let limits = GateConfig { cooldown: Duration::from_secs(3600), waiting: 2, ..no_gap() };
    let mut chat = chat_with(limits).await;
    chat.connected("streamer").await;
    chat.server.say("streamer", "alice", "Alice", "!ask one");
    chat.server.say("streamer", "alice", "Alice", "!ask again");
    chat.server.say("streamer", "bob", "Bob", "!ask two");
    chat.server.say("streamer", "carol", "Carol", "!ask three");
    chat.server.say("streamer", "dave", "Dave", "not for the companion");
    let status = chat.state(|s| s.dropped.cooldown == 1 && s.dropped.queue_full == 1).await;
    assert_eq!(status.waiting, 2);
    chat.host.twitch_companion(CompanionState::Listening);
    assert_eq!(chat.turn().await.login, "alice");
    chat.host.twitch_companion(CompanionState::Listening);
    assert_eq!(chat.turn().await.login, "bob");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_a_message_deleted_or_a_viewer_banned_before_its_turn_is_dropped() {
    let mut chat = chat_with(no_gap()).await;
    chat.connected("streamer").await;
    let deleted = chat.server.say("streamer", "alice", "Alice", "!ask something rude");
    chat.server.say("streamer", "bob", "Bob", "!ask spam");
    chat.server.say("streamer", "carol", "Carol", "!ask a fair question");
    chat.state(|s| s.waiting == 3).await;
    chat.server.delete("streamer", &deleted);
    chat.server.ban("streamer", "bob");
    let status = chat.state(|s| s.dropped.deleted == 1 && s.dropped.viewer_cleared == 1).await;
    assert_eq!(status.waiting, 1);
    chat.host.twitch_companion(CompanionState::Listening);
    assert_eq!(chat.turn().await.login, "carol");
    chat.server.say("streamer", "dave", "Dave", "!ask late");
    chat.state(|s| s.waiting == 1).await;
    chat.server.clear("streamer");
    let status = chat.state(|s| s.dropped.chat_cleared == 1).await;
    assert_eq!((status.waiting, status.said), (0, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_reconnect_at_once_when_twitch_asks_and_after_a_drop_with_the_backoff() {
    let mut chat = chat_with(no_gap()).await;
    chat.connected("streamer").await;
    chat.server.reconnect();
    let down = chat.state(|s| s.state == ChatState::Reconnecting).await;
    assert_eq!((down.code, down.retry_in_secs), (Some(ChatCode::Reconnect), Some(0)));
    assert!(down.stream_mode, "still on while reconnecting");
    chat.state(|s| s.state == ChatState::Connected).await;
    chat.server.joined_times("streamer", 2).await;
    chat.server.drop_all();
    let down = chat.state(|s| s.state == ChatState::Reconnecting).await;
    assert_eq!((down.code, down.retry_in_secs), (Some(ChatCode::Closed), Some(1)));
    let up = chat.state(|s| s.state == ChatState::Connected).await;
    assert_eq!((up.code, up.retry_in_secs), (None, None));
    chat.server.joined_times("streamer", 3).await;
    assert_eq!(chat.server.connections(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_a_silent_connection_is_taken_for_dead_and_opened_again() {
    let mut chat = chat_with(no_gap()).await;
    // The server says nothing after the join unless a test drives it.
    chat.host.set_twitch_silence(Duration::from_millis(300));
    chat.connected("streamer").await;
    let down = chat.state(|s| s.state == ChatState::Reconnecting).await;
    assert_eq!((down.code, down.retry_in_secs), (Some(ChatCode::Silent), Some(1)));
    chat.state(|s| s.state == ChatState::Connected).await;
    chat.server.joined_times("streamer", 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_a_failed_connect_says_why_and_is_tried_again() {
    // Another server's CA: the certificate is not trusted.
    let server = TwitchLike::start().await.unwrap();
    let other = TwitchLike::start().await.unwrap();
    let env = with_ca(server.env(), &other);
    let mut chat = chat_for(server, env, no_gap());
    assert_eq!(chat.host.twitch_connect("streamer").await.unwrap().state, ChatState::Connecting);
    let down = chat.state(|s| s.state == ChatState::Reconnecting).await;
    assert_eq!((down.code, down.retry_in_secs, down.stream_mode), (Some(ChatCode::Tls), Some(1), true));
    let again = chat.state(|s| s.state == ChatState::Reconnecting && s.retry_in_secs == Some(2)).await;
    assert_eq!(again.code, Some(ChatCode::Tls));
    assert_eq!(chat.server.joins(), 0);

    // Nobody listening where Twitch's address leads: the network.
    let gone = TwitchLike::start().await.unwrap();
    let env = with_ca(gone.env(), &other);
    drop(gone);
    let mut chat = chat_for(other, env, no_gap());
    chat.host.twitch_connect("streamer").await.unwrap();
    let down = chat.state(|s| s.state == ChatState::Reconnecting).await;
    assert_eq!((down.code, down.retry_in_secs), (Some(ChatCode::Network), Some(1)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_a_ping_is_answered() {
    let mut chat = chat_with(no_gap()).await;
    chat.connected("streamer").await;
    chat.server.ping();
    chat.server.ponged(1).await;
    assert!(chat.server.received().iter().any(|l| l == "PONG :tmi.twitch.tv"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_a_channel_that_is_not_a_twitch_login_is_bad_input() {
    let chat = chat_with(no_gap()).await;
    for bad in ["", "two words", "streamer\r\nPRIVMSG #x :hi", "twitch.tv/streamer", &"s".repeat(26)] {
        let err = chat.host.twitch_connect(bad).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Host(HostCode::BadInput), "{bad:?}");
    }
    let status = chat.host.twitch_status().await.unwrap();
    assert_eq!((status.state, status.settings.channel), (ChatState::Off, None));
    assert!(!chat.host.stream_mode());
    assert_eq!(chat.server.connections(), 0, "nothing was sent anywhere");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_disconnect_ends_the_connection_and_forgets_the_channel() {
    let mut chat = chat_with(no_gap()).await;
    let mut happenings = chat.server.happenings();
    chat.connected("streamer").await;
    let status = chat.host.twitch_disconnect().await.unwrap();
    assert_eq!((status.state, status.channel, status.settings.channel), (ChatState::Off, None, None));
    assert!(!status.stream_mode && !chat.host.stream_mode());
    chat.state(|s| s.state == ChatState::Off).await;
    closed(&mut happenings).await;
    // Nothing saved: resuming connects nothing.
    assert_eq!(chat.host.twitch_resume().await.unwrap().state, ChatState::Off);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_connecting_another_channel_replaces_the_connection() {
    let mut chat = chat_with(no_gap()).await;
    let mut happenings = chat.server.happenings();
    chat.connected("first").await;
    // Connecting the same channel again keeps the connection.
    assert_eq!(chat.host.twitch_connect("#FIRST").await.unwrap().state, ChatState::Connected);
    let status = chat.connected("second").await;
    assert_eq!((status.channel.as_deref(), status.settings.channel.as_deref()), (Some("second"), Some("second")));
    chat.server.joined("second").await;
    closed(&mut happenings).await;
    assert_eq!(chat.server.connections(), 2);
    chat.host.twitch_companion(CompanionState::Listening);
    chat.server.say("first", "alice", "Alice", "!ask from the old channel");
    chat.server.say("second", "bob", "Bob", "!ask from the new one");
    assert_eq!(chat.turn().await.login, "bob");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_hang_up_keeps_the_channel_for_resume() {
    let mut chat = chat_with(no_gap()).await;
    let mut happenings = chat.server.happenings();
    chat.connected("streamer").await;
    let status = chat.host.twitch_hang_up().await.unwrap();
    assert_eq!((status.state, status.settings.channel.as_deref()), (ChatState::Off, Some("streamer")));
    closed(&mut happenings).await;
    assert_eq!(chat.host.twitch_resume().await.unwrap().state, ChatState::Connecting);
    chat.state(|s| s.state == ChatState::Connected).await;
    chat.server.joined_times("streamer", 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_a_host_dropped_closes_its_connection() {
    let mut chat = chat_with(no_gap()).await;
    let mut happenings = chat.server.happenings();
    chat.connected("streamer").await;
    let Chat { server, host, events, _dir } = chat;
    drop((host, events));
    closed(&mut happenings).await;
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_paused_turns_are_dropped_the_chat_and_stream_mode_stay() {
    let mut chat = chat_with(no_gap()).await;
    chat.connected("streamer").await;
    let status = chat.host.twitch_settings(ChatChange::Paused(true)).await.unwrap();
    assert!(status.settings.paused);
    chat.host.twitch_companion(CompanionState::Listening);
    chat.server.say("streamer", "alice", "Alice", "!ask anyone?");
    let status = chat.state(|s| s.dropped.paused == 1).await;
    assert_eq!((status.state, status.stream_mode, status.said), (ChatState::Connected, true, 0));
    chat.host.twitch_settings(ChatChange::Paused(false)).await.unwrap();
    chat.server.say("streamer", "bob", "Bob", "!ask now?");
    assert_eq!(chat.turn().await.login, "bob");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_the_prefix_and_the_ignore_list_apply_while_connected() {
    let mut chat = chat_with(no_gap()).await;
    chat.connected("streamer").await;
    chat.host.twitch_settings(ChatChange::Prefix("?bot".into())).await.unwrap();
    let status = chat.host.twitch_settings(ChatChange::Ignore("@Troll".into())).await.unwrap();
    assert_eq!(
        (status.settings.prefix.as_str(), status.settings.ignored.as_slice()),
        ("?bot", &["troll".to_owned()][..])
    );
    let err = chat.host.twitch_settings(ChatChange::Prefix("two words".into())).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Host(HostCode::BadInput));
    chat.host.twitch_companion(CompanionState::Listening);
    chat.server.say("streamer", "alice", "Alice", "!ask the old prefix");
    chat.server.say("streamer", "troll", "Troll", "?bot hello");
    chat.server.say("streamer", "bob", "Bob", "?BOT the new prefix");
    let turn = chat.turn().await;
    assert_eq!((turn.login.as_str(), turn.text.as_str()), ("bob", "the new prefix"));
    assert_eq!(chat.host.twitch_status().await.unwrap().dropped.ignored, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue36_a_notice_refusing_the_channel_ends_the_chat_without_retrying() {
    let mut chat = chat_with(no_gap()).await;
    chat.connected("streamer").await;
    chat.server
        .send_raw("@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #streamer :This channel has been suspended.");
    let status = chat.state(|s| s.state == ChatState::Off).await;
    assert_eq!((status.code, status.channel), (Some(ChatCode::Refused), None));
    assert!(!status.stream_mode && !chat.host.stream_mode());
    assert_eq!(status.settings.channel.as_deref(), Some("streamer"), "the player's choice stays saved");
}

/// `env` trusting `server`'s CA instead.
fn with_ca(env: Vec<(String, String)>, server: &TwitchLike) -> Vec<(String, String)> {
    let ca = ("DCPLUGIN_TEST_CA".to_owned(), server.ca_path().display().to_string());
    env.into_iter().map(|(k, v)| if k == ca.0 { ca.clone() } else { (k, v) }).collect()
}

/// Waits until the server saw a connection end.
async fn closed(happenings: &mut tokio::sync::broadcast::Receiver<Happening>) {
    loop {
        let happening = tokio::time::timeout(PATIENCE, happenings.recv()).await.expect("closed in time").unwrap();
        if matches!(happening, Happening::Closed(_)) {
            return;
        }
    }
}
