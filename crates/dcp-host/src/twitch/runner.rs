//! One chat connection's life: connect through dcp-net, send
//! [`dcp_twitch::hello`], read lines (answer `PING`, give chat and
//! moderation to the gate, take the join as Connected), and when the
//! connection ends, wait as [`dcp_twitch::Backoff`] says and connect again,
//! until a notice refuses the login or the join. A line that does not
//! parse is skipped, unprinted: nothing a viewer wrote is ever logged.

use super::lines::{Lines, NoLine};
use super::{ChatCode, ChatState, Shared, TWITCH_HOST, TWITCH_PORT};
use dcp_net::NetError;
use dcp_twitch::{Backoff, Message};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;

/// No line for this long and the connection is taken for dead: Twitch
/// sends a `PING` about every 5 minutes.
pub(super) const SILENT: Duration = Duration::from_secs(6 * 60);

/// One connection's particulars.
pub(super) struct Run {
    pub(super) client: dcp_net::Client,
    pub(super) channel: String,
    /// Which start of the chat this is ([`super::Live`]'s generation).
    pub(super) generation: u64,
    /// [`SILENT`], shorter in tests.
    pub(super) silent: Duration,
}

/// Connects the channel again and again; returns only after a refusal.
pub(super) async fn run(shared: Arc<Shared>, run: Run) {
    let Run { client, channel, generation, silent } = run;
    let mut backoff = Backoff::new();
    loop {
        let (code, up_for) = match client.connect_tls(TWITCH_HOST, TWITCH_PORT).await {
            Ok(mut stream) => {
                let opened = Instant::now();
                let code = converse(&shared, &mut stream, &channel, generation, silent).await;
                (code, opened.elapsed())
            }
            Err(NetError::Tls) => (ChatCode::Tls, Duration::ZERO),
            Err(_) => (ChatCode::Network, Duration::ZERO),
        };
        if code == ChatCode::Refused {
            shared.update(generation, |live| {
                live.state = ChatState::Off;
                live.channel = None;
                live.code = Some(code);
                live.retry_in_secs = None;
            });
            return;
        }
        let wait = backoff.next_wait(up_for, code == ChatCode::Reconnect);
        shared.update(generation, |live| {
            live.state = ChatState::Reconnecting;
            live.code = Some(code);
            live.retry_in_secs = Some(wait.as_secs());
        });
        tokio::time::sleep(wait).await;
    }
}

/// Reads one connection until it ends; returns why.
async fn converse(
    shared: &Shared,
    stream: &mut (impl AsyncRead + AsyncWrite + Unpin),
    channel: &str,
    generation: u64,
    silent: Duration,
) -> ChatCode {
    // The channel was checked when it was saved; a refusal is the same for it.
    let Ok(hello) = dcp_twitch::hello(channel) else { return ChatCode::Refused };
    if stream.write_all(hello.as_bytes()).await.is_err() {
        return ChatCode::Closed;
    }
    let mut lines = Lines::default();
    let mut joined = false;
    loop {
        let line = match tokio::time::timeout(silent, lines.next(&mut *stream)).await {
            Err(_) => return ChatCode::Silent,
            Ok(Err(NoLine::Closed | NoLine::TooLong)) => return ChatCode::Closed,
            Ok(Err(NoLine::Failed)) => return ChatCode::Network,
            Ok(Ok(line)) => line,
        };
        let Ok(message) = dcp_twitch::parse(&line) else { continue };
        match message {
            Message::Ping(ping) => {
                if stream.write_all(ping.pong().as_bytes()).await.is_err() {
                    return ChatCode::Closed;
                }
            }
            Message::Reconnect => return ChatCode::Reconnect,
            Message::Notice { msg_id, .. } if refuses(joined, msg_id.as_deref()) => return ChatCode::Refused,
            Message::Other { command } if !joined && (command == "JOIN" || command == "ROOMSTATE") => {
                joined = true;
                shared.update(generation, |live| {
                    live.state = ChatState::Connected;
                    live.code = None;
                    live.retry_in_secs = None;
                });
            }
            message @ (Message::Privmsg(_) | Message::ClearMsg { .. } | Message::ClearChat { .. }) => {
                shared.update(generation, |live| {
                    let now = live.now();
                    live.gate.offer(&message, now);
                });
                shared.wake.notify_one();
            }
            Message::Notice { .. } | Message::Other { .. } => {}
        }
    }
}

/// Whether a notice refuses the connection: before the join, any notice
/// (Twitch sends one only for a failed login or a refused join, such as
/// "Login unsuccessful" or `msg_channel_suspended`); after it, only those
/// saying the channel is gone or this login banned.
fn refuses(joined: bool, msg_id: Option<&str>) -> bool {
    !joined || matches!(msg_id, Some("msg_channel_suspended" | "msg_banned" | "tos_ban"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twitch::Chat;
    use tokio::io::{AsyncBufReadExt, BufReader, DuplexStream};

    /// `converse` with a server that sends `lines`, then ends the connection.
    async fn conversation(lines: &[u8]) -> (ChatCode, Vec<String>) {
        let chat = Chat::new(tokio::sync::broadcast::channel(16).0);
        let (mut ours, server): (DuplexStream, DuplexStream) = tokio::io::duplex(64 * 1024);
        let (read, mut write) = tokio::io::split(server);
        write.write_all(lines).await.expect("written");
        write.shutdown().await.expect("ended");
        // Silent is a failure here: a test that sees it waited 5 s, not 6 min.
        let code = converse(&chat.shared, &mut ours, "streamer", 0, Duration::from_secs(5)).await;
        drop(ours);
        let mut sent = Vec::new();
        let mut read = BufReader::new(read).lines();
        while let Ok(Some(line)) = read.next_line().await {
            sent.push(line);
        }
        (code, sent)
    }

    #[tokio::test]
    async fn issue36_a_notice_before_the_join_refuses_the_login() {
        let (code, sent) = conversation(b":tmi.twitch.tv NOTICE * :Login unsuccessful\r\n").await;
        assert_eq!(code, ChatCode::Refused);
        assert_eq!(sent[1], "NICK justinfan12345", "{sent:?}");
    }

    #[tokio::test]
    async fn issue36_after_the_join_only_a_notice_that_the_channel_is_gone_refuses() {
        let joined = ":justinfan12345!justinfan12345@justinfan12345.tmi.twitch.tv JOIN #streamer\r\n";
        let slow = "@msg-id=slow_on :tmi.twitch.tv NOTICE #streamer :This room is now in slow mode.\r\n";
        let (code, _) = conversation(format!("{joined}{slow}").as_bytes()).await;
        assert_eq!(code, ChatCode::Closed, "read on until the end");
        let gone =
            "@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #streamer :This channel has been suspended.\r\n";
        let (code, _) = conversation(format!("{joined}{gone}").as_bytes()).await;
        assert_eq!(code, ChatCode::Refused);
    }

    #[tokio::test]
    async fn issue36_a_ping_is_answered_and_a_line_over_the_cap_closes() {
        let long = format!(":v!v@v PRIVMSG #streamer :{}\r\n", "a".repeat(dcp_twitch::irc::MAX_LINE_BYTES));
        let (code, sent) = conversation(format!("PING :tmi.twitch.tv\r\n{long}PING :never\r\n").as_bytes()).await;
        assert_eq!(code, ChatCode::Closed);
        assert_eq!(sent.last().map(String::as_str), Some("PONG :tmi.twitch.tv"), "{sent:?}");
    }
}
