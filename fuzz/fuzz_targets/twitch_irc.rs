//! Feeds arbitrary bytes, cut into lines at LF, to the Twitch chat's IRC
//! reading and its gate (issue 36). Nothing may panic, and: a line longer
//! than the cap is refused; a PRIVMSG's text never holds CR, LF or NUL and
//! its login is Twitch's shape; a PONG is exactly one line; every turn the
//! gate hands out has a text of 1 to 500 characters and a display name of
//! 1 to 25, neither holding a hidden character (controls, bidi, invisible);
//! every id kept (a message's, a viewer's, a notice's, a CLEARMSG's target)
//! is of Twitch's shape, so none carries a control character.

#![no_main]

use std::time::Duration;

use dcp_format::text::is_hidden_char;
use dcp_twitch::gate::{NAME_CHARS, TEXT_CHARS};
use dcp_twitch::irc::{LineError, MAX_LINE_BYTES};
use dcp_twitch::{parse, ChatGate, GateConfig, Message};
use libfuzzer_sys::fuzz_target;

/// 1 to 64 bytes, each one `allowed`.
fn shaped(id: &Option<String>, allowed: fn(u8) -> bool) -> bool {
    id.as_ref().is_none_or(|id| (1..=64).contains(&id.len()) && id.bytes().all(allowed))
}

fn message_id(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-'
}

fn visible(text: &str, max: usize) -> bool {
    let chars = text.chars().count();
    (1..=max).contains(&chars) && !text.chars().any(is_hidden_char)
}

fuzz_target!(|data: &[u8]| {
    let mut gate = ChatGate::new(GateConfig { name: Some("Nova".into()), ..GateConfig::default() });
    for (i, line) in data.split_inclusive(|b| *b == b'\n').enumerate() {
        let now = Duration::from_secs(i as u64 * 7);
        let message = parse(line);
        if line.len() > MAX_LINE_BYTES + 2 {
            assert_eq!(message, Err(LineError::TooLong));
        }
        match &message {
            Ok(Message::Privmsg(m)) => {
                assert!(!m.text.contains(['\r', '\n', '\0']), "a line break in {:?}", m.text);
                assert!((1..=25).contains(&m.login.len()), "login {:?}", m.login);
                assert!(m.login.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'));
                assert!(shaped(&m.msg_id, message_id), "id {:?}", m.msg_id);
                assert!(shaped(&m.user_id, |b| b.is_ascii_digit()), "user id {:?}", m.user_id);
            }
            Ok(Message::ClearMsg { target_msg_id }) => {
                assert!(shaped(&Some(target_msg_id.clone()), message_id), "target {target_msg_id:?}");
            }
            Ok(Message::Notice { msg_id, .. }) => {
                let notice_id = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_';
                assert!(shaped(msg_id, notice_id), "notice id {msg_id:?}");
            }
            Ok(Message::Ping(ping)) => {
                let pong = ping.pong();
                assert!(pong.ends_with("\r\n") && pong.matches(['\r', '\n']).count() == 2, "{pong:?}");
            }
            _ => {}
        }
        if let Ok(message) = message {
            gate.offer(&message, now);
        }
        if let Some(turn) = gate.next_turn(now) {
            assert!(visible(&turn.text, TEXT_CHARS), "text {:?}", turn.text);
            assert!(visible(&turn.display_name, NAME_CHARS), "name {:?}", turn.display_name);
        }
    }
});
