//! Which viewer messages become the companion's turns (issue 36, §12).
//!
//! A message is for the companion when it starts with the prefix (default
//! `!ask`, any case, then a space) or mentions the companion (`@Name`,
//! anywhere, any case). Its text is cleaned the way answers and the
//! journal's outside names are (`dcp_format::text::one_line`: line breaks
//! become spaces, controls, bidi and invisible characters go), spaces are
//! collapsed and it is cut to Twitch's 500 characters. Then, in this order:
//! the pause switch, the ignore list, an empty text, the viewer's cooldown,
//! a full queue each drop it, counted by [`DropReason`]. A message let in
//! waits in a small queue; the companion takes one when it is free
//! ([`ChatGate::next_turn`]), at most one every [`GateConfig::gap`], and a
//! message that waited longer than [`GateConfig::max_wait`] is dropped,
//! never said. A moderator's `CLEARMSG` or `CLEARCHAT` removes what waits.
//!
//! Time is an argument (`now`, from any monotonic origin the caller keeps,
//! as dcp-door's `Clock::now` gives it), so tests choose it and the gate
//! needs no clock type of its own.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use crate::irc::{Message, Privmsg};

/// Twitch's cap on a chat message, in characters.
pub const TEXT_CHARS: usize = 500;

/// Twitch's cap on a display name, in characters.
pub const NAME_CHARS: usize = 25;

/// The prefix when the player chose none.
pub const DEFAULT_PREFIX: &str = "!ask";

/// The player's choices and the limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateConfig {
    /// The prefix that addresses the companion (compared ignoring ASCII case).
    pub prefix: String,
    /// The companion's name, mentioned as `@name`; `None`: the prefix only.
    pub name: Option<String>,
    /// How long after a viewer's message is let in their next one is dropped.
    pub cooldown: Duration,
    /// The shortest time between two chat turns, whoever asks.
    pub gap: Duration,
    /// How many messages wait at most; one more is dropped.
    pub waiting: usize,
    /// How long a message may wait before it is dropped.
    pub max_wait: Duration,
}

impl Default for GateConfig {
    /// `!ask`, no name, 60 s per viewer, one turn every 10 s, 5 waiting for
    /// at most 60 s (see docs/decisions.md).
    fn default() -> Self {
        GateConfig {
            prefix: DEFAULT_PREFIX.to_owned(),
            name: None,
            cooldown: Duration::from_secs(60),
            gap: Duration::from_secs(10),
            waiting: 5,
            max_wait: Duration::from_secs(60),
        }
    }
}

/// The longest prefix the player may choose, in characters.
pub const PREFIX_CHARS: usize = 20;

/// A prefix as the player types it, if it may address the companion: 1 to
/// [`PREFIX_CHARS`] visible characters, no space (a viewer types it as the
/// first word), spaces around removed.
pub fn typed_prefix(typed: &str) -> Option<String> {
    let prefix = typed.trim();
    let visible = |c: char| !c.is_whitespace() && !dcp_format::text::is_hidden_char(c);
    ((1..=PREFIX_CHARS).contains(&prefix.chars().count()) && prefix.chars().all(visible)).then(|| prefix.to_owned())
}

/// A viewer's message that becomes a turn. Its JSON (the shells') leaves
/// the message id out: it only matters to the moderators' deletions here.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ViewerTurn {
    /// The viewer's login, lowercase.
    pub login: String,
    /// Their display name, cleaned and cut to [`NAME_CHARS`]; the login
    /// when Twitch gave none (or nothing visible).
    pub display_name: String,
    /// What they asked, prefix or mention removed, cleaned, at most
    /// [`TEXT_CHARS`] characters, never empty.
    pub text: String,
    /// The message's `id` tag.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub msg_id: Option<String>,
}

/// Why a message addressed to the companion was not said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// Chat turns are paused.
    Paused,
    /// The viewer is on the ignore list.
    Ignored,
    /// Nothing left once the prefix or mention and hidden characters are removed.
    Empty,
    /// The viewer's cooldown is running.
    Cooldown,
    /// The queue is full.
    QueueFull,
    /// It waited longer than [`GateConfig::max_wait`].
    WaitedTooLong,
    /// A moderator deleted it (`CLEARMSG`).
    Deleted,
    /// A moderator banned or timed out its viewer (`CLEARCHAT` with a login).
    ViewerCleared,
    /// A moderator cleared the chat (`CLEARCHAT` without a login).
    ChatCleared,
}

/// What [`ChatGate::offer`] did with a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// Waiting for its turn.
    Queued,
    /// A chat message not addressed to the companion.
    NotAddressed,
    /// Addressed to the companion, dropped.
    Dropped(DropReason),
    /// A moderator's message removed this many waiting messages.
    Removed {
        /// `Deleted`, `ViewerCleared` or `ChatCleared`.
        reason: DropReason,
        /// How many (0 when none of them waited).
        count: usize,
    },
    /// Not a chat or moderation message: the connection's business.
    NotChat,
}

/// One waiting message.
#[derive(Debug)]
struct Waiting {
    turn: ViewerTurn,
    since: Duration,
}

/// The gate between the chat and the companion's turns.
#[derive(Debug)]
pub struct ChatGate {
    config: GateConfig,
    paused: bool,
    ignored: HashSet<String>,
    /// When each viewer's last message was let in (only those whose cooldown may still run).
    let_in: HashMap<String, Duration>,
    /// When the last turn was handed out.
    last_turn: Option<Duration>,
    queue: VecDeque<Waiting>,
    dropped: HashMap<DropReason, u64>,
}

impl ChatGate {
    /// Open, nobody ignored, nothing waiting.
    pub fn new(config: GateConfig) -> Self {
        ChatGate {
            config,
            paused: false,
            ignored: HashSet::new(),
            let_in: HashMap::new(),
            last_turn: None,
            queue: VecDeque::new(),
            dropped: HashMap::new(),
        }
    }

    /// Pauses or resumes chat turns; pausing drops what waits (counted
    /// [`DropReason::Paused`]), so nothing stale is said on resuming.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
        if paused {
            let count = self.queue.len();
            self.queue.clear();
            self.count(DropReason::Paused, count);
        }
    }

    /// Changes the prefix that addresses the companion (what waits stays:
    /// it was addressed when it came).
    pub fn set_prefix(&mut self, prefix: &str) {
        prefix.clone_into(&mut self.config.prefix);
    }

    /// Replaces the ignore list: logins, any case, with or without `@`.
    /// What an ignored viewer has waiting is dropped too (counted
    /// [`DropReason::Ignored`]): the player ignores them from now on.
    pub fn set_ignored<I: IntoIterator<Item = S>, S: AsRef<str>>(&mut self, logins: I) {
        self.ignored =
            logins.into_iter().map(|l| l.as_ref().trim().trim_start_matches('@').to_ascii_lowercase()).collect();
        let ignored = std::mem::take(&mut self.ignored);
        self.remove(DropReason::Ignored, |t| ignored.contains(&t.login));
        self.ignored = ignored;
    }

    /// Reads one message of the chat at `now`.
    pub fn offer(&mut self, message: &Message, now: Duration) -> Offered {
        self.expire(now);
        match message {
            Message::Privmsg(m) => self.chat(m, now),
            Message::ClearMsg { target_msg_id } => {
                self.remove(DropReason::Deleted, |t| t.msg_id.as_deref() == Some(target_msg_id.as_str()))
            }
            Message::ClearChat { login: Some(login) } => self.remove(DropReason::ViewerCleared, |t| t.login == *login),
            Message::ClearChat { login: None } => self.remove(DropReason::ChatCleared, |_| true),
            _ => Offered::NotChat,
        }
    }

    /// The next turn, if the companion may take one at `now`: the oldest
    /// waiting message, once [`GateConfig::gap`] has passed since the last.
    pub fn next_turn(&mut self, now: Duration) -> Option<ViewerTurn> {
        self.expire(now);
        if self.last_turn.is_some_and(|last| now.saturating_sub(last) < self.config.gap) {
            return None;
        }
        let turn = self.queue.pop_front()?.turn;
        self.last_turn = Some(now);
        Some(turn)
    }

    /// How many messages wait.
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// How many messages were dropped for `reason` since the gate was made.
    pub fn dropped(&self, reason: DropReason) -> u64 {
        self.dropped.get(&reason).copied().unwrap_or(0)
    }

    fn chat(&mut self, m: &Privmsg, now: Duration) -> Offered {
        let Some(text) = self.addressed(&cleaned(&m.text)) else {
            return Offered::NotAddressed;
        };
        let refusal = if self.paused {
            Some(DropReason::Paused)
        } else if self.ignored.contains(&m.login) {
            Some(DropReason::Ignored)
        } else if text.is_empty() {
            Some(DropReason::Empty)
        } else if self.let_in.get(&m.login).is_some_and(|at| now.saturating_sub(*at) < self.config.cooldown) {
            Some(DropReason::Cooldown)
        } else if self.queue.len() >= self.config.waiting {
            Some(DropReason::QueueFull)
        } else {
            None
        };
        if let Some(reason) = refusal {
            self.count(reason, 1);
            return Offered::Dropped(reason);
        }
        let cooldown = self.config.cooldown;
        self.let_in.retain(|_, at| now.saturating_sub(*at) < cooldown);
        self.let_in.insert(m.login.clone(), now);
        let name: String =
            m.display_name.as_deref().map(cleaned).unwrap_or_default().chars().take(NAME_CHARS).collect();
        let display_name = if name.is_empty() { m.login.clone() } else { name };
        let turn = ViewerTurn { login: m.login.clone(), display_name, text, msg_id: m.msg_id.clone() };
        self.queue.push_back(Waiting { turn, since: now });
        Offered::Queued
    }

    /// The text after the prefix, or without the mention, cut to
    /// [`TEXT_CHARS`]; `None` when the message is not for the companion.
    fn addressed(&self, text: &str) -> Option<String> {
        let prefix = &self.config.prefix;
        let after_prefix = text
            .get(..prefix.len())
            .filter(|p| !prefix.is_empty() && p.eq_ignore_ascii_case(prefix))
            .map(|_| &text[prefix.len()..]);
        let rest = match after_prefix {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => rest.trim().to_owned(),
            _ => {
                let name: String = self.config.name.as_deref()?.split_whitespace().collect();
                let is_mention = |w: &str| {
                    w.strip_prefix('@').is_some_and(|n| {
                        !name.is_empty()
                            && n.trim_end_matches([',', ':', ';', '.', '!', '?']).eq_ignore_ascii_case(&name)
                    })
                };
                if !text.split(' ').any(is_mention) {
                    return None;
                }
                text.split(' ').filter(|w| !is_mention(w)).collect::<Vec<_>>().join(" ")
            }
        };
        Some(rest.chars().take(TEXT_CHARS).collect())
    }

    /// Drops what waited longer than [`GateConfig::max_wait`] at `now`
    /// (counted [`DropReason::WaitedTooLong`]); [`ChatGate::offer`] and
    /// [`ChatGate::next_turn`] do it first, a caller with neither to do
    /// calls it to keep [`ChatGate::waiting`] true.
    pub fn expire(&mut self, now: Duration) {
        let max_wait = self.config.max_wait;
        let before = self.queue.len();
        self.queue.retain(|w| now.saturating_sub(w.since) <= max_wait);
        self.count(DropReason::WaitedTooLong, before - self.queue.len());
    }

    fn remove(&mut self, reason: DropReason, matches: impl Fn(&ViewerTurn) -> bool) -> Offered {
        let before = self.queue.len();
        self.queue.retain(|w| !matches(&w.turn));
        let count = before - self.queue.len();
        self.count(reason, count);
        Offered::Removed { reason, count }
    }

    fn count(&mut self, reason: DropReason, count: usize) {
        if count > 0 {
            *self.dropped.entry(reason).or_default() += count as u64;
        }
    }
}

/// Outside text on one visible line (the engine's one cleaning), its
/// spaces collapsed.
fn cleaned(text: &str) -> String {
    dcp_format::text::one_line(text).split_whitespace().collect::<Vec<_>>().join(" ")
}
