//! Test support only (issue 22): a scripted OpenAI-compatible Chat
//! Completions server on loopback — the one stand-in allowed where no model
//! runs. It is a real HTTP/1.1 server with real server-sent events: a test
//! writes a [`Script`] (the model list, then one [`Step`] per chat request),
//! points the AI connection at [`ScriptedAi::url`], and afterwards checks
//! [`ScriptedAi::received`] (the tools offered, the tool messages, the
//! headers). The builders speak the three wire shapes small-model servers
//! use: [`openai`], [`ollama`] and [`llamacpp`]; [`Chunk::Raw`] covers any
//! odd case. What those servers answer outside `/v1` (what a model can do,
//! issue 34) is an [`Options::routes`] entry: [`llamacpp::props`],
//! [`ollama::show`], [`lmstudio::models`]. The `scripted-ai` binary serves
//! a script read from JSON for tests that drive another process.
//!
//! ```no_run
//! # async fn example() {
//! use scripted_ai::{openai, Script, ScriptedAi};
//! let ai = ScriptedAi::start(Script::with_turns(vec![
//!     openai::tool_calls(&[("call_1", "fx__convert", r#"{"amount":100}"#)], 4),
//!     openai::text(["100 dollars ", "are 92 euros."]),
//! ]))
//! .await;
//! // … a turn against ai.url() …
//! let received = ai.received();
//! assert_eq!(received[0].body["tools"][0]["function"]["name"], "fx__convert");
//! # }
//! ```

pub mod llamacpp;
pub mod lmstudio;
pub mod ollama;
pub mod openai;
pub mod pki;
mod script;
mod server;

pub use script::{Chunk, ModelsReply, Script, Step, MODEL};
pub use server::{bind, Options, Received, Route, ScriptedAi, Tls};
