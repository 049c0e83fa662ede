//! `dcplugin twitch-chat connect CHANNEL | disconnect | status` (issue 36):
//! the player's Twitch chat from a terminal or a script. A thin shell over
//! the host's chat (`Host::twitch_*`): the channel is saved in the profile,
//! and a check connects it in this process, waits for its first answer
//! (connected, or the first failure: reconnecting, a refusal) for at most
//! [`CHECK_WITHIN`], says it, and hangs up. The saved channel stays: the
//! window and `dcplugin chat --twitch` connect it.
//!
//! `--json` prints the host's [`ChatStatus`] as it is (the public contract
//! of docs/cli.md); a refusal (a name that is not a Twitch login) is
//! `{"ok": false, "code": "bad_input", …}`, exit 1. The readable words of a
//! state ([`state_words`]) are also chat's lines about its connection.
//! Everything printed in text passes `shown::line`: a channel and the
//! ignored logins are checked logins, but they come from the profile.

use super::ai::refused;
use crate::output::print_json;
use crate::shown::{errln, line, outln};
use dcp_host::events::HostEvent;
use dcp_host::{ApiResult, ChatCode, ChatNotice, ChatState, ChatStatus, Host};
use std::process::ExitCode;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::broadcast::Receiver;

/// The longest a check waits for the chat's first answer: a connection's
/// DNS, TCP and TLS are bounded by the network client's 20 s deadline, but
/// a failure is said by the host as soon as it happens (state reconnecting
/// with its code), so a check that has heard nothing by then says so.
pub const CHECK_WITHIN: Duration = Duration::from_secs(15);

/// What `twitch-chat` does.
#[derive(clap::Subcommand)]
pub enum TwitchChat {
    /// Save CHANNEL as the Twitch chat to read, and check that it connects (exit 0 connected, 1 not).
    Connect {
        /// The channel: its Twitch login, any case, an optional leading '#'.
        channel: String,
    },
    /// Forget the saved channel (exit 0).
    Disconnect,
    /// The chat's settings and, when a channel is saved, the same check as connect (exit 1 when it does not connect).
    ///
    /// With --json: the status object, {"channel", "state", "code", "retry_in_secs", "stream_mode",
    /// "settings", "waiting", "said", "dropped", "host", "port"}.
    Status,
}

/// `dcplugin twitch-chat …`.
pub fn run(host: &Host, what: TwitchChat, json: bool) -> ExitCode {
    // Each starts hearing the chat's notices right before its connection
    // starts: none of its own is missed, and none from before is taken for one.
    let (started, mut events) = match what {
        TwitchChat::Connect { channel } => {
            let events = host.subscribe();
            (host.block_on(host.twitch_connect(&channel)), events)
        }
        TwitchChat::Disconnect => match host.block_on(host.twitch_disconnect()) {
            Ok(status) => return said(&status, json, true),
            Err(e) => return refused(&e, json),
        },
        TwitchChat::Status => match host.block_on(host.twitch_status()) {
            Ok(status) if status.settings.channel.is_none() => return said(&status, json, true),
            Ok(_) => {
                let events = host.subscribe();
                (host.block_on(host.twitch_resume()), events)
            }
            Err(e) => return refused(&e, json),
        },
    };
    let status = match started {
        Ok(started) => host.block_on(first_answer(host, &mut events, started)),
        Err(e) => return refused(&e, json),
    };
    // A check only: the saved channel stays, this process lets go of it.
    if let Err(e) = host.block_on(host.twitch_hang_up()) {
        return refused(&e, json);
    }
    said(&status, json, status.state == ChatState::Connected)
}

/// Prints `status`; exit 0 when `ok`, else 1.
fn said(status: &ChatStatus, json: bool, ok: bool) -> ExitCode {
    if json {
        print_json(status);
    } else {
        for words in status_lines(status) {
            outln!("{words}");
        }
        if !ok {
            // A check still connecting when its time ran out.
            let late = if status.state == ChatState::Connecting {
                format!(": no answer from Twitch's chat within {} s", CHECK_WITHIN.as_secs())
            } else {
                String::new()
            };
            errln!("twitch chat: {}{late}", state_words(status));
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::REFUSED)
    }
}

/// The readable status: the saved channel, the connection, the chat's
/// switches, where it connects.
fn status_lines(status: &ChatStatus) -> Vec<String> {
    let settings = &status.settings;
    let mut lines = vec![match &settings.channel {
        Some(channel) => format!("channel: #{} (saved)", line(channel)),
        None => format!("channel: none saved (connect one: {} twitch-chat connect CHANNEL)", crate::me()),
    }];
    lines.push(format!("state: {}", state_words(status)));
    lines.push(format!("stream mode: {}", if status.stream_mode { "on" } else { "off" }));
    lines.push(format!(
        "chat turns: messages starting with {}{}",
        line(&settings.prefix),
        if settings.paused { " (paused)" } else { "" }
    ));
    let ignored: Vec<String> = settings.ignored.iter().map(|l| line(l).to_string()).collect();
    lines.push(format!("ignored: {}", if ignored.is_empty() { "nobody".to_owned() } else { ignored.join(", ") }));
    lines.push(format!("connects to: {}:{}", line(&status.host), status.port));
    lines
}

/// What the chat's connection is doing, in the player's words: also
/// `chat --twitch`'s line when it changes.
pub fn state_words(status: &ChatStatus) -> String {
    let channel = status.channel.as_deref().or(status.settings.channel.as_deref()).map(|c| line(c).to_string());
    let channel = channel.map_or_else(String::new, |c| format!(" #{c}"));
    match (status.state, status.code) {
        (ChatState::Off, None) => "not connected".to_owned(),
        (ChatState::Off, Some(code)) => code_words(code).to_owned(),
        (ChatState::Connecting, _) => format!("connecting to{channel}"),
        (ChatState::Connected, _) => format!("connected to{channel}"),
        (ChatState::Reconnecting, code) => {
            let retry = status.retry_in_secs.map_or_else(String::new, |s| format!(" in {s} s"));
            let why = code.map_or_else(String::new, |c| format!(": {}", code_words(c)));
            format!("reconnecting{retry}{why}")
        }
    }
}

/// Why the chat's connection is down, in the player's words, the code last.
fn code_words(code: ChatCode) -> &'static str {
    match code {
        ChatCode::Network => "could not reach Twitch's chat (network)",
        ChatCode::Tls => "the secure connection to Twitch's chat failed (tls)",
        ChatCode::Closed => "Twitch's chat closed the connection (closed)",
        ChatCode::Reconnect => "Twitch's chat asked to reconnect (reconnect)",
        ChatCode::Refused => "Twitch's chat refused to join this channel (refused)",
        ChatCode::Silent => "Twitch's chat went silent (silent)",
    }
}

/// The chat's first answer after `started` (a connection just begun):
/// connected, or its first failure, or still connecting after
/// [`CHECK_WITHIN`].
async fn first_answer(host: &Host, events: &mut Receiver<HostEvent>, started: ChatStatus) -> ChatStatus {
    let deadline = tokio::time::sleep(CHECK_WITHIN);
    tokio::pin!(deadline);
    let mut last = started;
    while last.state == ChatState::Connecting {
        last = tokio::select! {
            () = &mut deadline => return last,
            event = events.recv() => match event {
                Ok(HostEvent::Twitch { notice: ChatNotice::State { status } }) => status,
                Ok(_) => continue,
                // Notices missed: the host's status now says where it is.
                Err(RecvError::Lagged(_)) => current(host, last).await,
                Err(RecvError::Closed) => return last,
            },
        };
    }
    last
}

/// The host's status now; `last` if it cannot say.
async fn current(host: &Host, last: ChatStatus) -> ChatStatus {
    let now: ApiResult<ChatStatus> = host.twitch_status().await;
    now.unwrap_or(last)
}
