//! A turn: who asked, which AI answers, whether the player is live on
//! Twitch, and how many built-in tools are already offered (§3, §12, §13).

use serde::{Deserialize, Serialize};

/// Who started the turn (§12 "Who may trigger a tool").
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The player's voice.
    Voice,
    /// The player's keyboard.
    Keyboard,
    /// The Twitch chat.
    Twitch,
    /// The companion speaking on its own.
    Auto,
    /// An event from a program on the PC (§16).
    Event,
}

impl Source {
    /// Every source, as §12 lists who may start a turn.
    pub const ALL: [Source; 5] = [Source::Voice, Source::Keyboard, Source::Twitch, Source::Auto, Source::Event];

    /// Parses `voice`, `keyboard`, `twitch`, `auto` or `event`.
    pub fn parse(text: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// As the journal shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Voice => "voice",
            Source::Keyboard => "keyboard",
            Source::Twitch => "twitch",
            Source::Auto => "auto",
            Source::Event => "event",
        }
    }
}

/// Where the AI runs (§13).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    /// On this PC.
    Local,
    /// An online model's service.
    Online,
}

/// One turn.
#[derive(Debug, Clone, Serialize)]
pub struct Turn {
    /// Who asked.
    pub source: Source,
    /// Where the AI runs.
    pub model: Model,
    /// The player's Twitch chat is connected (stream mode, §12).
    pub live: bool,
    /// Built-in tools already offered (they come first, §17).
    pub builtin: usize,
    /// Calls with the same id belong to one turn (the chat's one call, the
    /// steps).
    pub id: Option<String>,
    /// The tool step of the turn this offer or call is in, counting from 1
    /// (§3: up to 5). `None`: the next step of the turn `id`, or the first.
    pub step: Option<u32>,
}
