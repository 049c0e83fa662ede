//! "Can this model use tools?" asked by trying (issue 34), when the server
//! of this PC does not say it in its own API ([`Connection::tool_support`]:
//! a server other than llama.cpp, Ollama and LM Studio, an older version of
//! one, LM Studio without `tool_use`).
//!
//! One Chat Completions request, not streamed, offering one harmless tool
//! (`probe`, no arguments) with `tool_choice` naming it, a one-line user
//! message and `max_tokens` [`PROBE_TOKENS`], within [`PROBE_LIMIT`], read
//! through the same limits as every answer (size, status, shape, the key
//! masked). Its answer means:
//!
//! - a tool call: the server passed the tool to the model and read its call
//!   back: **yes**;
//! - the server's refusal in the words already recognised as "this model
//!   cannot use tools" ([`AiError::NoTools`]: Ollama's "does not support
//!   tools", llama.cpp's "tools param requires --jinja"): **no**;
//! - text without a call: **unknown**. A server that drops `tools` without a
//!   word (llama.cpp with a template without tools) answers text, but so
//!   does a server that passes the tools and ignores `tool_choice` (Ollama
//!   does, and several others only honour `"auto"`) with a model that
//!   chose to talk. "No" would send a player away from a model that works;
//!   "unknown" is what the player was told without the probe, and the first
//!   turn's own answer shows the rest;
//! - anything else (a time limit, a 5xx, a wrong shape, an answer cut before
//!   a call): **unknown**.
//!
//! Nothing of the answer is kept or shown: only the yes, no or unknown.
//!
//! When: only for the player's explicit test of the AI (`Host::ai_test`: the
//! `ai test` command, the window's Test and AI settings), only for an AI on
//! this PC (an online AI's request may cost the player), only when the
//! server's own API gave no answer. Never from a turn: the engine's
//! once-a-conversation question is [`Connection::tool_support`] alone, and
//! a chat turn does not pay a model request for it.

use std::time::Duration;

use serde_json::json;

use crate::{AiError, Connection, Message, Place, StreamItem, ToolSpec};

/// How long the probe may take, from sending it to the end of its answer:
/// a server of this PC may first load the model from disk (seconds to tens
/// of seconds on a modest PC) before a few tokens; a quarter of a turn's
/// 120 s to the first byte ([`crate::Limits::DEFAULT`]), as the player
/// waits on the Test button. A slower model stays unknown.
pub const PROBE_LIMIT: Duration = Duration::from_secs(30);

/// The most tokens of the probe's answer: a call with no arguments takes
/// about 10 to 20 in the usual templates (Qwen's `<tool_call>` markup
/// included); a model that talks instead stops soon.
pub const PROBE_TOKENS: u32 = 32;

/// The one tool offered, named in `tool_choice`.
const PROBE_TOOL: &str = "probe";

impl Connection {
    /// Whether the model can use tools, learnt from one small chat request
    /// (see the module doc): `Some(true)` for a tool call, `Some(false)` for
    /// the server's "cannot use tools", `None` otherwise and for an online
    /// AI, which is never sent it.
    pub async fn probe_tools(&self) -> Option<bool> {
        if self.place() != Place::Pc {
            return None;
        }
        let tool = ToolSpec {
            name: PROBE_TOOL.to_owned(),
            description: "Say that tools work".to_owned(),
            parameters: json!({"type": "object", "properties": {}}),
        };
        let body = json!({
            "model": self.model(),
            "stream": false,
            "messages": [Message::User { content: "Call the probe tool.".to_owned() }],
            "tools": [tool],
            "tool_choice": {"type": "function", "function": {"name": PROBE_TOOL}},
            "max_tokens": PROBE_TOKENS,
        });
        let mut answer = match self.within(PROBE_LIMIT).chat_body(body.to_string().into_bytes()).await {
            Ok(answer) => answer,
            Err(error) => return refused(&error),
        };
        while let Some(item) = answer.next().await {
            match item {
                Ok(StreamItem::Delta(_)) => {}
                Ok(StreamItem::Done(reply)) => return (!reply.tool_calls.is_empty()).then_some(true),
                Err(error) => return refused(&error),
            }
        }
        None
    }
}

/// `Some(false)` when the server said the model cannot use tools; any
/// other failure says nothing.
fn refused(error: &AiError) -> Option<bool> {
    matches!(error, AiError::NoTools { .. }).then_some(false)
}
