//! The lines the server writes, shaped as Twitch writes them (the
//! reference: Twitch's "Chat and Chatbots" IRC pages): IRCv3 tags in
//! Twitch's order (sorted by key), values escaped, the server's prefix
//! `tmi.twitch.tv` and a viewer's `login!login@login.tmi.twitch.tv`. Ids
//! that Twitch gives (a message's UUID, the numeric user and room ids) are
//! made here: a fresh UUID per message, numbers derived from the login so
//! one viewer keeps one id.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::Role;

/// The server's own prefix name.
pub(crate) const SERVER: &str = "tmi.twitch.tv";

/// A message's `id`: a random version-4 UUID, as Twitch's.
pub(crate) fn message_id() -> String {
    let mut bytes = [0u8; 16];
    // The system's random source is there on every test machine; without it no id could be made at all.
    getrandom::fill(&mut bytes).expect("twitch-like: the system's random source failed");
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// Twitch's numeric id of a user or a room, stable for a login (FNV-1a,
/// cut to 9 digits as Twitch's ids of that age are).
fn numeric_id(login: &str) -> String {
    let hash = login.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    (100_000_000 + hash % 900_000_000).to_string()
}

/// `tmi-sent-ts`: milliseconds since 1970.
fn sent_ts() -> String {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis()).to_string()
}

/// IRCv3's tag value escapes: `;` `\:`, space `\s`, `\` `\\`, CR `\r`, LF `\n`.
pub(crate) fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            ';' => out.push_str("\\:"),
            ' ' => out.push_str("\\s"),
            '\\' => out.push_str("\\\\"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// `@k=v;k=v` with the values escaped, in the order given (sorted by key, as Twitch sends them).
fn tags(pairs: &[(&str, &str)]) -> String {
    let joined: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={}", escape(v))).collect();
    format!("@{}", joined.join(";"))
}

/// A viewer's prefix: `login!login@login.tmi.twitch.tv`.
pub(crate) fn user_prefix(login: &str) -> String {
    format!("{login}!{login}@{login}.{SERVER}")
}

/// What a `say` sends.
pub(crate) struct Said<'a> {
    pub channel: &'a str,
    pub login: &'a str,
    pub display_name: &'a str,
    pub text: &'a str,
    pub id: &'a str,
    pub role: Role,
}

/// A viewer's `PRIVMSG` with the tags Twitch sends on every chat message.
pub(crate) fn privmsg(said: &Said<'_>) -> String {
    let Said { channel, login, display_name, text, id, role } = *said;
    let (badges, flag, user_type) = match role {
        Role::Viewer => ("", "0", ""),
        Role::Moderator => ("moderator/1", "1", "mod"),
    };
    let (room_id, user_id, ts) = (numeric_id(channel), numeric_id(login), sent_ts());
    let color = format!("#{:06X}", numeric_id(login).parse::<u32>().unwrap_or_default() & 0x00ff_ffff);
    let tags = tags(&[
        ("badge-info", ""),
        ("badges", badges),
        ("color", &color),
        ("display-name", display_name),
        ("emotes", ""),
        ("first-msg", "0"),
        ("flags", ""),
        ("id", id),
        ("mod", flag),
        ("returning-chatter", "0"),
        ("room-id", &room_id),
        ("subscriber", "0"),
        ("tmi-sent-ts", &ts),
        ("turbo", "0"),
        ("user-id", &user_id),
        ("user-type", user_type),
    ]);
    format!("{tags} :{} PRIVMSG #{channel} :{text}", user_prefix(login))
}

/// A moderator deleted one message: `CLEARMSG`, naming its sender and
/// quoting its text as Twitch does (empty for an id never said here).
pub(crate) fn clearmsg(channel: &str, login: &str, text: &str, msg_id: &str) -> String {
    let tags = tags(&[
        ("login", login),
        ("room-id", &numeric_id(channel)),
        ("target-msg-id", msg_id),
        ("tmi-sent-ts", &sent_ts()),
    ]);
    format!("{tags} :{SERVER} CLEARMSG #{channel} :{text}")
}

/// A viewer banned (`seconds` none) or timed out: `CLEARCHAT #channel :login`.
pub(crate) fn clearchat_user(channel: &str, login: &str, seconds: Option<u64>) -> String {
    let (room_id, user_id, ts) = (numeric_id(channel), numeric_id(login), sent_ts());
    let duration = seconds.map(|s| s.to_string());
    let mut pairs = Vec::with_capacity(4);
    if let Some(duration) = &duration {
        pairs.push(("ban-duration", duration.as_str()));
    }
    pairs.extend([("room-id", room_id.as_str()), ("target-user-id", &user_id), ("tmi-sent-ts", &ts)]);
    format!("{} :{SERVER} CLEARCHAT #{channel} :{login}", tags(&pairs))
}

/// The whole chat cleared: `CLEARCHAT #channel` without a login.
pub(crate) fn clearchat_all(channel: &str) -> String {
    let tags = tags(&[("room-id", &numeric_id(channel)), ("tmi-sent-ts", &sent_ts())]);
    format!("{tags} :{SERVER} CLEARCHAT #{channel}")
}

/// What Twitch answers a `JOIN`: the echo, the names list (only oneself:
/// Twitch lists no one without the membership capability) and the room's settings.
pub(crate) fn joined(nick: &str, channel: &str) -> [String; 4] {
    let room = tags(&[
        ("emote-only", "0"),
        ("followers-only", "-1"),
        ("r9k", "0"),
        ("room-id", &numeric_id(channel)),
        ("slow", "0"),
        ("subs-only", "0"),
    ]);
    [
        format!(":{} JOIN #{channel}", user_prefix(nick)),
        format!(":{nick}.{SERVER} 353 {nick} = #{channel} :{nick}"),
        format!(":{nick}.{SERVER} 366 {nick} #{channel} :End of /NAMES list"),
        format!("{room} :{SERVER} ROOMSTATE #{channel}"),
    ]
}

/// Twitch's welcome after `NICK`, word for word.
pub(crate) fn welcome(nick: &str) -> [String; 7] {
    [
        format!(":{SERVER} 001 {nick} :Welcome, GLHF!"),
        format!(":{SERVER} 002 {nick} :Your host is {SERVER}"),
        format!(":{SERVER} 003 {nick} :This server is rather new"),
        format!(":{SERVER} 004 {nick} :-"),
        format!(":{SERVER} 375 {nick} :-"),
        format!(":{SERVER} 372 {nick} :You are in a maze of twisty passages, all alike."),
        format!(":{SERVER} 376 {nick} :>"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_character_ircv3_names() {
        assert_eq!(escape(r"a b;c\d"), r"a\sb\:c\\d");
        assert_eq!(escape("x\r\ny"), r"x\r\ny");
    }

    #[test]
    fn a_message_id_is_a_version_4_uuid() {
        let id = message_id();
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [8, 4, 4, 4, 12]);
        assert!(parts[2].starts_with('4') && matches!(&parts[3][..1], "8" | "9" | "a" | "b"), "{id}");
        assert_ne!(id, message_id());
    }

    #[test]
    fn one_viewer_keeps_one_id() {
        assert_eq!(numeric_id("viewer"), numeric_id("viewer"));
        assert_ne!(numeric_id("viewer"), numeric_id("other"));
        assert_eq!(numeric_id("viewer").len(), 9);
    }
}
