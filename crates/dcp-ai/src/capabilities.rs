//! "Can this model use tools?" (issue 34), asked of the server of this PC
//! that serves it, in its own API beside the OpenAI-compatible one:
//!
//! - llama.cpp: `GET /props`, `chat_template_caps.supports_tools`. Current
//!   llama.cpp drops a request's `tools` without a word when the model's
//!   chat template has no tool support: this is the only way to know.
//! - Ollama: `POST /api/show {"model"}`, whose `capabilities` list names
//!   `"tools"` or not.
//! - LM Studio: `GET /api/v0/models`, the model's entry's `capabilities`
//!   (since 0.3.16): `"tool_use"` is a yes. Its absence is no "no": LM
//!   Studio gives every model a default tool prompt, so that stays unknown.
//!
//! Each server's question is asked in turn, the one usually on the URL's
//! port ([`PcServer::at`]) first, until one answers: the first answer of
//! the right shape says it, and which server gave it. Everything the server
//! sends is judged as hostile: a wrong shape, a status, a body over 2 MB or
//! a silence of 5 s is no answer ([`Connection::native_json`]), never an
//! error. An online AI is not asked (its own API is not the OpenAI one, and
//! a question may cost the player): unknown. No chat request is sent here:
//! this is also the question of every new conversation, and a turn must
//! not pay a model request for it; the player's test of the AI tries one
//! when the server does not say ([`Connection::probe_tools`]).

use reqwest::Method;
use serde_json::{json, Value};

use crate::{Connection, PcServer, Place};

/// What a server of this PC said of the model and tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSupport {
    /// The server that answered.
    pub server: PcServer,
    /// The model can use tools.
    pub tools: bool,
}

impl Connection {
    /// Whether the model can use tools, as the server of this PC serving it
    /// says; `None` when unknown (an online AI, a server that does not say).
    pub async fn tool_support(&self) -> Option<ToolSupport> {
        if self.place() != Place::Pc {
            return None;
        }
        let usual = PcServer::at(self.url());
        let order = usual.into_iter().chain(PcServer::ALL.into_iter().filter(|s| Some(*s) != usual));
        for server in order {
            if let Some(tools) = self.ask_tools(server).await {
                return Some(ToolSupport { server, tools });
            }
        }
        None
    }

    /// `server`'s own answer, if it gives one of the right shape.
    async fn ask_tools(&self, server: PcServer) -> Option<bool> {
        match server {
            PcServer::LlamaCpp => {
                let props = self.native_json(Method::GET, "props", None).await?;
                props.get("chat_template_caps")?.get("supports_tools")?.as_bool()
            }
            PcServer::Ollama => {
                let show = self.native_json(Method::POST, "api/show", Some(json!({"model": self.model()}))).await?;
                named(show.get("capabilities")?, "tools")
            }
            PcServer::LmStudio => {
                let list = self.native_json(Method::GET, "api/v0/models", None).await?;
                let entry = list.get("data")?.as_array()?.iter().find(|m| m.get("id") == Some(&json!(self.model())))?;
                // Without "tool_use" a model still gets LM Studio's default tool prompt: unknown.
                named(entry.get("capabilities")?, "tool_use")?.then_some(true)
            }
        }
    }
}

/// Whether a list of capability names has `name`; `None` when it is no list
/// of names.
fn named(list: &Value, name: &str) -> Option<bool> {
    let list = list.as_array()?;
    let names: Option<Vec<&str>> = list.iter().map(Value::as_str).collect();
    Some(names?.contains(&name))
}
