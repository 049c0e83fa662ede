//! The Twitch chat (issue 36), without any network: a connection sends
//! [`irc::hello`]'s lines first, then feeds the lines it reads into
//! [`irc::parse`] and sends back what it is told to (the `PONG` of a
//! `PING`); the [`gate::ChatGate`] decides which viewer
//! messages become the companion's turns and hands them out as facts
//! ([`gate::ViewerTurn`]), counting every message it drops by reason.
//!
//! * [`irc`]: one Twitch IRC line (IRCv3 tags, prefix, command, params) read
//!   into a [`irc::Message`], hostile input refused with a typed error.
//! * [`gate`]: the prefix or mention, the cleaning, the per-viewer
//!   cooldown, the global limit, the waiting queue, the ignore list, the
//!   pause switch and the moderators' deletions.
//! * [`backoff`]: how long a connection waits before it tries again.
//!
//! *Architecture invariant:* no I/O and no clock of its own: time comes in
//! as an argument, so every limit is tested with the time a test chooses.

#![deny(missing_docs)]

pub mod backoff;
pub mod gate;
pub mod irc;

pub use backoff::Backoff;
pub use gate::{typed_prefix, ChatGate, DropReason, GateConfig, Offered, ViewerTurn};
pub use irc::{hello, parse, typed_login, LineError, Message, Privmsg};
