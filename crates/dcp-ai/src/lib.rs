//! The companion's AI connection (spec §3, §13, §17): one client of the
//! OpenAI-compatible Chat Completions wire format, the format spoken by
//! the AI servers of a PC ([`PcServer`]) and the online services of §13.
//!
//! *Architecture invariant:* this crate is the only code that opens a
//! socket to the AI. Where the AI runs is decided by its URL, never by a
//! switch ([`judge_ai_url`]): a loopback host is [`Place::Pc`]; anything
//! else is [`Place::Online`], `https` on a public address only, resolved
//! and pinned through the network filter's own resolver and address rule
//! (`dcp_net::Client::resolve_public`, `dcp_net::address::is_public`), so
//! "kept on this PC" (§13) cannot be broken by a name that points home.
//!
//! What a request goes through ([`Connection`]):
//!
//! 1. The URL was judged once, when the [`AiUrl`] was made (pure, no I/O).
//! 2. For an online AI the host name is resolved, every answer must be
//!    public, and the connection is pinned to exactly those addresses.
//! 3. The request is sent with no proxy, no cookies, no redirect followed
//!    (a 3xx is [`AiError::Redirect`]), the key only as
//!    `Authorization: Bearer …` and only to that URL's host.
//! 4. A chat answer is read as server-sent events ([`sse`]) and assembled
//!    ([`assemble`]) into text pieces and whole tool calls, tolerating what
//!    small models and their servers do (§17).
//!
//! Whether the model can use tools is asked of the server of this PC in
//! its own API ([`Connection::tool_support`]; issue 34), or, for the
//! player's test of an AI on this PC when the server does not say, by one
//! small chat request ([`Connection::probe_tools`]).
//!
//! Time limits ([`Limits`]): 120 s to the first byte (a model loaded cold
//! on a modest PC), then 30 s between two events of the answer (keep-alive
//! comments are no progress), and 180 s for a whole answer.
//!
//! The `test-net` feature forwards to dcp-net's test hooks: with
//! `DCPLUGIN_TEST_DNS`, `DCPLUGIN_TEST_CONNECT` and `DCPLUGIN_TEST_CA`, an
//! "online" AI is reached on loopback TLS exactly as plugin requests are.

#![deny(missing_docs)]

pub mod assemble;
mod capabilities;
mod connection;
mod discover;
mod error;
mod known;
mod probe;
pub mod sse;
mod url;
mod wire;

pub use capabilities::ToolSupport;
pub use connection::{ChatStream, Connection, Limits, StreamItem};
pub use discover::{discover, discover_at, Found};
pub use error::{AiCode, AiError};
pub use known::{KnownServer, PcServer};
pub use probe::{PROBE_LIMIT, PROBE_TOKENS};
pub use url::{judge_ai_url, AiUrl};
pub use wire::{ChatRequest, Message, RawArgs, Reply, ToolCall, ToolSpec};

/// Where the companion's AI runs, decided by its URL (§13): a loopback
/// host is this PC, anything else online.
pub use dcp_format::place::Place;
