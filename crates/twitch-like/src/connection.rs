//! The accept loop and one task per connection: the TLS handshake, then
//! lines read (each recorded, answered as Twitch answers it) and the
//! handle's commands written, in one task, so a line sent after a `JOIN`
//! was answered reaches the client after the `JOIN`'s answer.

use std::collections::HashSet;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::wire::{self, SERVER};
use crate::{Happening, Out, Shared, RECONNECT_GRACE};

/// The longest line read, without its CR LF, as the app's reader (IRCv3's
/// 8 KiB); a longer one closes the connection.
const MAX_LINE_BYTES: usize = 8192;

/// The capabilities Twitch grants; a request naming another is refused (`NAK`) whole, as IRCv3 says.
const CAPABILITIES: &[&str] = &["twitch.tv/tags", "twitch.tv/commands", "twitch.tv/membership"];

/// Accepts until `stopped`; leaving drops the runtime's tasks, every connection with them.
pub(crate) async fn serve(
    listener: std::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
    shared: Arc<Shared>,
    stopped: oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
    let accepting = async {
        loop {
            let Ok((tcp, _)) = listener.accept().await else { continue };
            let _ = tcp.set_nodelay(true);
            // Registered before the handshake, so nothing the handle sends after this accept is lost.
            let (out, outs) = mpsc::unbounded_channel();
            let mut number = 0;
            shared.update(
                |state| {
                    state.connections += 1;
                    number = state.connections;
                    state.outs.push(out);
                },
                None,
            );
            let _ = shared.happenings.send(Happening::Connected(number));
            let (acceptor, shared) = (acceptor.clone(), shared.clone());
            tokio::spawn(async move {
                if let Ok(stream) = acceptor.accept(tcp).await {
                    Connection { shared: shared.clone(), nick: None, joined: HashSet::new() }.run(stream, outs).await;
                }
                shared.update(|_| {}, Some(Happening::Closed(number)));
            });
        }
    };
    tokio::select! {
        () = accepting => {}
        _ = stopped => {}
    }
}

/// One client as the server knows it.
struct Connection {
    shared: Arc<Shared>,
    /// Its nick once welcomed.
    nick: Option<String>,
    /// The channels it joined, without `#`.
    joined: HashSet<String>,
}

/// What reading a line leads to.
enum After {
    Continue,
    Close,
}

impl Connection {
    async fn run<S: AsyncRead + AsyncWrite + Unpin>(mut self, stream: S, mut outs: mpsc::UnboundedReceiver<Out>) {
        let (mut reader, mut writer) = tokio::io::split(stream);
        let mut pending = Vec::new();
        let mut chunk = [0u8; 4096];
        let mut closing_at: Option<Instant> = None;
        loop {
            tokio::select! {
                read = reader.read(&mut chunk) => {
                    let Ok(n @ 1..) = read else { break };
                    pending.extend_from_slice(&chunk[..n]);
                    while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                        let line: Vec<u8> = pending.drain(..=end).collect();
                        let line = line.strip_suffix(b"\n").and_then(|l| l.strip_suffix(b"\r").or(Some(l)));
                        let line = String::from_utf8_lossy(line.unwrap_or_default()).into_owned();
                        if line.len() > MAX_LINE_BYTES {
                            return;
                        }
                        let (replies, after) = self.answer(&line);
                        if write(&mut writer, &replies).await.is_err() {
                            return;
                        }
                        if let After::Close = after {
                            let _ = writer.shutdown().await;
                            return;
                        }
                    }
                    // A line still without its end that is already too long: Twitch's cap, not a buffer's growth.
                    if pending.len() > MAX_LINE_BYTES + 1 {
                        return;
                    }
                }
                out = outs.recv() => match out {
                    Some(Out::Line { channel, line }) => {
                        let wanted = channel.is_none_or(|channel| self.joined.contains(&channel));
                        if wanted && write(&mut writer, &[line]).await.is_err() {
                            return;
                        }
                    }
                    Some(Out::Reconnect) => {
                        if write(&mut writer, &[format!(":{SERVER} RECONNECT")]).await.is_err() {
                            return;
                        }
                        closing_at.get_or_insert(Instant::now() + RECONNECT_GRACE);
                    }
                    // Dropping the stream closes the socket: no TLS close_notify, as a cut network.
                    Some(Out::Drop) | None => return,
                },
                () = sleep_until(closing_at), if closing_at.is_some() => break,
            }
        }
        let _ = writer.shutdown().await;
    }

    /// Records `line` and gives Twitch's answer to it.
    fn answer(&mut self, line: &str) -> (Vec<String>, After) {
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let command = command.to_ascii_uppercase();
        let argument = rest.trim_start_matches(':').trim();
        let mut joined_channels = Vec::new();
        let mut pong = false;
        let mut replies = Vec::new();
        let mut after = After::Continue;
        match command.as_str() {
            "CAP" => replies.extend(cap(rest)),
            // Anonymous logins send none or any; no token is ever checked here.
            "PASS" => {}
            "NICK" => {
                let nick = argument.to_ascii_lowercase();
                if is_anonymous(&nick) {
                    replies.extend(wire::welcome(&nick));
                    self.nick = Some(nick);
                } else {
                    replies.push(format!(":{SERVER} NOTICE * :Login authentication failed"));
                    after = After::Close;
                }
            }
            "JOIN" => {
                // Before a login Twitch answers nothing; so does this server.
                if let Some(nick) = &self.nick {
                    for channel in argument.split(',').map(|c| c.trim_start_matches('#').to_ascii_lowercase()) {
                        replies.extend(wire::joined(nick, &channel));
                        self.joined.insert(channel.clone());
                        joined_channels.push(channel);
                    }
                }
            }
            "PART" => {
                if let Some(nick) = &self.nick {
                    for channel in argument.split(',').map(|c| c.trim_start_matches('#').to_ascii_lowercase()) {
                        if self.joined.remove(&channel) {
                            replies.push(format!(":{} PART #{channel}", wire::user_prefix(nick)));
                        }
                    }
                }
            }
            "PING" => replies.push(format!(":{SERVER} PONG {SERVER} :{argument}")),
            "PONG" => pong = true,
            // An anonymous login cannot chat: Twitch drops its messages without a word.
            "PRIVMSG" => {}
            _ => {
                let nick = self.nick.as_deref().unwrap_or("*");
                replies.push(format!(":{SERVER} 421 {nick} {command} :Unknown command"));
            }
        }
        let line = line.to_owned();
        self.shared.update(
            |state| {
                state.received.push(line);
                state.pongs += usize::from(pong);
                for channel in &joined_channels {
                    *state.joins.entry(channel.clone()).or_default() += 1;
                }
            },
            pong.then_some(Happening::Pong),
        );
        for channel in joined_channels {
            let _ = self.shared.happenings.send(Happening::Joined(channel));
        }
        (replies, after)
    }
}

/// `CAP LS` lists Twitch's capabilities; `CAP REQ :a b` is acknowledged
/// when Twitch has them all, refused whole otherwise; `CAP END` needs no answer.
fn cap(rest: &str) -> Option<String> {
    let (sub, wanted) = rest.split_once(' ').unwrap_or((rest, ""));
    let wanted = wanted.trim_start_matches(':').trim();
    match sub.to_ascii_uppercase().as_str() {
        "LS" => Some(format!(":{SERVER} CAP * LS :{}", CAPABILITIES.join(" "))),
        "REQ" => {
            let known = wanted.split_whitespace().all(|cap| CAPABILITIES.contains(&cap));
            let verdict = if known { "ACK" } else { "NAK" };
            Some(format!(":{SERVER} CAP * {verdict} :{wanted}"))
        }
        _ => None,
    }
}

/// Twitch's anonymous read-only login: `justinfan` and digits.
fn is_anonymous(nick: &str) -> bool {
    nick.strip_prefix("justinfan").is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

/// The lines, CR LF each, in one write.
async fn write<W: AsyncWrite + Unpin>(writer: &mut W, lines: &[String]) -> std::io::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    let bytes: String = lines.iter().map(|line| format!("{line}\r\n")).collect();
    writer.write_all(bytes.as_bytes()).await?;
    writer.flush().await
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
