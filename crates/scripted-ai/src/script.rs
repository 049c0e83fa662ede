//! What the server answers, written in advance: the script. The same types
//! are read from JSON by the binary (serde, snake_case), so a test in another
//! process writes exactly what a Rust test builds.
//!
//! JSON spelling, for the binary's `--script FILE`:
//! `{"models": {"list": ["llama3.1"]}, "turns": [{"stream": [{"raw": {..}}, "pause", {"delay_ms": 20},
//! {"comment": "ping"}, {"calls": {"count": 200, "name": "x__y", "arguments": "{\"n\":{n}}"}}, {"keep_alive": 1000}]},
//! {"status": [400, {"error": {"message": ".."}}]}, {"redirect": "https://elsewhere/v1"}, "hang"]}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The model name the builders put in their chunks and [`Script::with_turns`] lists.
pub const MODEL: &str = "scripted";

/// The whole script: the answer to `GET /v1/models`, and one step per
/// `POST /v1/chat/completions`, taken in order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Script {
    /// Every `GET /v1/models` answers this (it is not used up). Empty list when omitted in JSON.
    #[serde(default = "ModelsReply::empty")]
    pub models: ModelsReply,
    /// The n-th chat request gets `turns[n]`; past the end, a 500 naming the request (see `server`).
    #[serde(default)]
    pub turns: Vec<Step>,
}

impl Script {
    /// A script whose model list is `[MODEL]`.
    pub fn with_turns(turns: Vec<Step>) -> Script {
        Script { models: ModelsReply::List(vec![MODEL.to_owned()]), turns }
    }
}

/// The answer to `GET /v1/models`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelsReply {
    /// 200 in OpenAI's shape: `{"object":"list","data":[{"id":..,"object":"model",..}]}`.
    List(Vec<String>),
    /// This status with an OpenAI-shaped error body.
    Status(u16),
    /// This status with exactly this JSON body (another service's shape, a broken answer).
    Body(u16, Value),
    /// The request is read and never answered (a client's time limit).
    Hang,
}

impl ModelsReply {
    fn empty() -> ModelsReply {
        ModelsReply::List(Vec::new())
    }
}

/// The answer to one chat request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// 200 `text/event-stream`: each chunk as it comes, then `data: [DONE]`.
    Stream(Vec<Chunk>),
    /// This status with this JSON body (a service's error).
    Status(u16, Value),
    /// 302 with this `Location` (a client must not follow it).
    Redirect(String),
    /// The request is read and never answered (a client's time limit).
    Hang,
}

impl Step {
    /// The same stream with [`Chunk::Pause`] after its first `n` chunks, so a
    /// test sees those arrive before it lets the rest go
    /// ([`crate::ScriptedAi::release`]). Other steps are returned as they are.
    pub fn pause_after(self, n: usize) -> Step {
        match self {
            Step::Stream(mut chunks) => {
                chunks.insert(n.min(chunks.len()), Chunk::Pause);
                Step::Stream(chunks)
            }
            other => other,
        }
    }
}

/// One piece of a stream.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Chunk {
    /// `data: <this JSON>` (what the builders make; any odd shape a test needs).
    Raw(Value),
    /// `data: <this text>` verbatim: a payload that is not JSON.
    Data(String),
    /// Nothing is sent until the test calls [`crate::ScriptedAi::release`] (once per pause).
    Pause,
    /// Nothing is sent for this many milliseconds (for the binary, where no test holds a gate).
    DelayMs(u64),
    /// The connection is cut here: no more chunks and no `[DONE]`.
    Cut,
    /// `: <this text>`, a comment line (a keep-alive), then a blank line.
    Comment(String),
    /// `: ping` every this many milliseconds, forever: the stream never
    /// ends (a server keeping a connection alive, issue 32). The chunks
    /// after it are never sent.
    KeepAlive(u64),
    /// `count` tool calls, one event each, as OpenAI opens a call: `index`
    /// n, id `call_<n>`, `name`, and `arguments` with every `{n}` replaced
    /// by n (so the calls differ). Made as they are sent: 100,000 calls
    /// cost no script (issue 32).
    Calls {
        /// How many calls.
        count: usize,
        /// The tool name of each.
        name: String,
        /// The arguments text of each, `{n}` replaced by its number.
        arguments: String,
    },
}
