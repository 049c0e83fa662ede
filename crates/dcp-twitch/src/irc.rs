//! One line of Twitch's IRC interface read into a [`Message`]: IRCv3 tags
//! (`@key=value;…`, values unescaped), the prefix (`:nick!user@host`), the
//! command and its parameters. Only what the chat needs is kept: a viewer's
//! `PRIVMSG`, the server's `PING` (whose `PONG` the connection sends),
//! `RECONNECT`, the moderators' `CLEARMSG` and `CLEARCHAT`, `NOTICE`; every
//! other command (`001`, `JOIN`, `CAP`, `USERSTATE`…) is [`Message::Other`].
//! [`hello`] gives the lines a connection sends first.
//!
//! The server is read as hostile: a line longer than [`MAX_LINE_BYTES`], not
//! UTF-8, holding a CR, LF or NUL inside, with a command or a login that is
//! not Twitch's shape, is refused with a [`LineError`], never a panic. So a
//! parsed message's text never holds a line break, and a `PONG` built from
//! a `PING` is always exactly one line. The ids kept (a message's `id`, a
//! viewer's `user-id`, a notice's `msg-id`, a `CLEARMSG`'s
//! `target-msg-id`) are tag values, which IRCv3 escapes may fill with any
//! character, a line break included: only ids of Twitch's shape are kept
//! (an odd one is dropped, or refuses the `CLEARMSG` it is the point of),
//! so an id never carries a control character to a print or the journal.

use dcp_format::text::one_line;

/// The longest line read, without its CR LF: 8 KiB. IRCv3 lets the tags
/// alone take 8191 bytes; a real Twitch `PRIVMSG` (a dozen tags, an
/// `emotes` list, 500 characters of text) stays well below, and a
/// connection's reader can refuse a longer line before holding it whole.
pub const MAX_LINE_BYTES: usize = 8192;

/// Why a line was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Longer than [`MAX_LINE_BYTES`].
    #[error("the line is longer than {MAX_LINE_BYTES} bytes")]
    TooLong,
    /// Not UTF-8.
    #[error("the line is not UTF-8")]
    NotUtf8,
    /// A CR, LF or NUL inside the line (IRC forbids them there).
    #[error("the line holds a line break or a NUL byte")]
    ForbiddenByte,
    /// No command, or one that is neither letters nor a 3-digit number.
    #[error("the line has no valid command")]
    BadCommand,
    /// A message the chat needs lacks a part it cannot do without.
    #[error("{command} without its {part}")]
    Missing {
        /// The command, as IRC spells it.
        command: &'static str,
        /// What it lacks: `sender`, `channel`, `text`, `target-msg-id`.
        part: &'static str,
    },
    /// A sender's login that is not Twitch's shape (ASCII letters, digits,
    /// `_`, at most 25).
    #[error("the sender's login is not a Twitch login")]
    BadLogin,
    /// An id the message is about that is not Twitch's shape.
    #[error("{command}'s {part} is not a Twitch id")]
    BadId {
        /// The command, as IRC spells it.
        command: &'static str,
        /// The tag: `target-msg-id`.
        part: &'static str,
    },
}

/// What one line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A chat message.
    Privmsg(Privmsg),
    /// The server checks the connection is alive: send [`Ping::pong`].
    Ping(Ping),
    /// The server is about to close the connection: connect again.
    Reconnect,
    /// A moderator deleted one message.
    ClearMsg {
        /// The `id` tag of the deleted message.
        target_msg_id: String,
    },
    /// A moderator banned or timed out a viewer (`login`), or cleared the
    /// whole chat (`None`).
    ClearChat {
        /// The viewer's login, lowercase.
        login: Option<String>,
    },
    /// A notice from the server (a refused join, a failed login…).
    Notice {
        /// Twitch's `msg-id` tag, the notice's kind (`msg_channel_suspended`…):
        /// lowercase ASCII letters, digits and `_`, else none.
        msg_id: Option<String>,
        /// Its text on one line, hidden characters removed.
        text: String,
    },
    /// Any other command; the chat does not need it.
    Other {
        /// The command: letters or a 3-digit number.
        command: String,
    },
}

/// A viewer's chat message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Privmsg {
    /// The channel, without its `#`.
    pub channel: String,
    /// The sender's login (from the prefix), lowercase ASCII.
    pub login: String,
    /// The `display-name` tag, as Twitch sent it (unescaped).
    pub display_name: Option<String>,
    /// The `user-id` tag: digits, else none.
    pub user_id: Option<String>,
    /// The `id` tag, what a `CLEARMSG` names: a UUID's characters (hex
    /// digits and `-`), else none.
    pub msg_id: Option<String>,
    /// The text as sent: never holds CR, LF or NUL, not otherwise cleaned.
    pub text: String,
    /// A moderator (`moderator` badge or `mod=1`).
    pub moderator: bool,
    /// The channel's owner (`broadcaster` badge).
    pub broadcaster: bool,
}

/// A `PING`, whose answer echoes its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ping {
    token: String,
}

impl Ping {
    /// The line to send back, CR LF included.
    pub fn pong(&self) -> String {
        if self.token.is_empty() {
            "PONG\r\n".to_owned()
        } else {
            format!("PONG :{}\r\n", self.token)
        }
    }
}

/// The nick of Twitch's anonymous read-only login: `justinfan` and digits
/// (no password, no account; the chat is read, never written).
pub const ANONYMOUS_NICK: &str = "justinfan12345";

/// The lines a new connection sends, CR LF each: ask for the `tags` and
/// `commands` capabilities (ids, names, badges; `CLEARMSG`, `CLEARCHAT`,
/// `RECONNECT`), log in anonymously, join `channel`. The channel as the
/// player types it (any case, with or without `#`) must be a Twitch login
/// ([`LineError::BadLogin`] otherwise), so nothing the player types can
/// add a command to these lines.
pub fn hello(channel: &str) -> Result<String, LineError> {
    let channel = typed_login(channel)?;
    Ok(format!("CAP REQ :twitch.tv/tags twitch.tv/commands\r\nNICK {ANONYMOUS_NICK}\r\nJOIN #{channel}\r\n"))
}

/// A Twitch login as the player types it (a channel, a viewer to ignore):
/// spaces around, one leading `#` or `@` and any case allowed; lowercase
/// out, or [`LineError::BadLogin`] when it is not 1 to 25 ASCII letters,
/// digits or `_`.
pub fn typed_login(typed: &str) -> Result<String, LineError> {
    let typed = typed.trim();
    checked_login(typed.strip_prefix(['#', '@']).unwrap_or(typed))
}

/// Reads one line, with or without its CR LF.
pub fn parse(line: &[u8]) -> Result<Message, LineError> {
    let line = line.strip_suffix(b"\n").map_or(line, |l| l.strip_suffix(b"\r").unwrap_or(l));
    if line.len() > MAX_LINE_BYTES {
        return Err(LineError::TooLong);
    }
    if line.iter().any(|b| matches!(b, b'\r' | b'\n' | 0)) {
        return Err(LineError::ForbiddenByte);
    }
    let line = std::str::from_utf8(line).map_err(|_| LineError::NotUtf8)?;
    let raw = Raw::split(line)?;
    match raw.command {
        "PRIVMSG" => privmsg(&raw).map(Message::Privmsg),
        "PING" => Ok(Message::Ping(Ping { token: raw.params.last().copied().unwrap_or_default().to_owned() })),
        "RECONNECT" => Ok(Message::Reconnect),
        "CLEARMSG" => {
            let target_msg_id =
                raw.tag("target-msg-id").ok_or(LineError::Missing { command: "CLEARMSG", part: "target-msg-id" })?;
            if !is_msg_id(&target_msg_id) {
                return Err(LineError::BadId { command: "CLEARMSG", part: "target-msg-id" });
            }
            Ok(Message::ClearMsg { target_msg_id })
        }
        "CLEARCHAT" => {
            let login = raw.params.get(1).filter(|l| !l.is_empty()).map(|l| checked_login(l)).transpose()?;
            Ok(Message::ClearChat { login })
        }
        "NOTICE" => Ok(Message::Notice {
            msg_id: raw
                .tag("msg-id")
                .filter(|id| is_shaped(id, |b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')),
            text: one_line(raw.params.last().copied().unwrap_or_default()),
        }),
        command => Ok(Message::Other { command: command.to_owned() }),
    }
}

fn privmsg(raw: &Raw<'_>) -> Result<Privmsg, LineError> {
    let missing = |part| LineError::Missing { command: "PRIVMSG", part };
    let nick =
        raw.prefix.and_then(|p| p.split(['!', '@']).next()).filter(|n| !n.is_empty()).ok_or(missing("sender"))?;
    let channel = raw.params.first().ok_or(missing("channel"))?;
    let text = raw.params.get(1..).and_then(<[_]>::last).ok_or(missing("text"))?;
    let badges = raw.tag("badges").unwrap_or_default();
    let has_badge = |name: &str| badges.split(',').any(|b| b.split('/').next() == Some(name));
    Ok(Privmsg {
        channel: channel.trim_start_matches('#').to_owned(),
        login: checked_login(nick)?,
        display_name: raw.tag("display-name"),
        user_id: raw.tag("user-id").filter(|id| is_shaped(id, |b| b.is_ascii_digit())),
        msg_id: raw.tag("id").filter(|id| is_msg_id(id)),
        text: (*text).to_owned(),
        moderator: has_badge("moderator") || raw.tag("mod").as_deref() == Some("1"),
        broadcaster: has_badge("broadcaster"),
    })
}

/// A Twitch login, lowercased: 1 to 25 ASCII letters, digits or `_`.
fn checked_login(login: &str) -> Result<String, LineError> {
    let fits = (1..=25).contains(&login.len()) && login.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    fits.then(|| login.to_ascii_lowercase()).ok_or(LineError::BadLogin)
}

/// The longest id kept (a UUID takes 36).
const ID_BYTES: usize = 64;

/// 1 to [`ID_BYTES`] bytes, each one `allowed`.
fn is_shaped(id: &str, allowed: impl Fn(u8) -> bool) -> bool {
    (1..=ID_BYTES).contains(&id.len()) && id.bytes().all(allowed)
}

/// A message id: a UUID's characters, lowercase hex digits and `-`.
fn is_msg_id(id: &str) -> bool {
    is_shaped(id, |b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-')
}

/// A line cut into its parts, tag values still escaped.
struct Raw<'a> {
    tags: Option<&'a str>,
    prefix: Option<&'a str>,
    command: &'a str,
    params: Vec<&'a str>,
}

impl<'a> Raw<'a> {
    fn split(line: &'a str) -> Result<Self, LineError> {
        let mut rest = line;
        let word = |rest: &mut &'a str| {
            let (w, r) = rest.split_once(' ').unwrap_or((rest, ""));
            *rest = r.trim_start_matches(' ');
            w
        };
        let tags = rest.starts_with('@').then(|| &word(&mut rest)[1..]);
        let prefix = rest.starts_with(':').then(|| &word(&mut rest)[1..]);
        let command = word(&mut rest);
        let is_command = command.bytes().all(|b| b.is_ascii_alphabetic())
            || (command.len() == 3 && command.bytes().all(|b| b.is_ascii_digit()));
        if command.is_empty() || !is_command {
            return Err(LineError::BadCommand);
        }
        let mut params = Vec::new();
        while !rest.is_empty() {
            if let Some(trailing) = rest.strip_prefix(':') {
                params.push(trailing);
                break;
            }
            params.push(word(&mut rest));
        }
        Ok(Raw { tags, prefix, command, params })
    }

    /// A tag's unescaped value; an empty value is no value, and of a key
    /// given twice the last counts (IRCv3 message-tags).
    fn tag(&self, key: &str) -> Option<String> {
        let value = self.tags?.rsplit(';').map(|t| t.split_once('=').unwrap_or((t, ""))).find(|(k, _)| *k == key)?.1;
        (!value.is_empty()).then(|| unescape(value))
    }
}

/// IRCv3's tag value escapes: `\:` `;`, `\s` space, `\\` `\`, `\r` CR,
/// `\n` LF; a backslash before any other character is dropped, and so is a
/// trailing one (the specification's rule, so a bad escape is read, not
/// refused: the values kept are cleaned where they are shown).
fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(':') => out.push(';'),
            Some('s') => out.push(' '),
            Some('r') => out.push('\r'),
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}
