//! A turn: who asked, which AI answers, whether the player is live on
//! Twitch, whether the player can be asked to confirm, how many
//! built-in tools are already offered, the form of the tools' arguments
//! its AI reads, and what it is about (§3, §12, §13, §17).

use crate::offer::Schema;
use serde::Serialize;

/// Who started the turn: the journal's `who`, so it lives with the journal.
pub use dcp_store::journal::Source;

/// Where the turn's AI runs (§13): what the courtier's "kept on this PC"
/// rule looks at.
pub use dcp_format::place::Place;

/// One turn.
#[derive(Debug, Clone, Serialize)]
pub struct Turn {
    /// Who asked.
    pub source: Source,
    /// Where the AI runs.
    pub model: Place,
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
    /// The caller can ask the player to confirm (a window, a terminal, an
    /// answer given in advance): R3 actions of voice and keyboard turns are
    /// offered, and asked before they are sent (§12).
    pub can_confirm: bool,
    /// The AI app that asked, as it named itself (an MCP client's
    /// `initialize`, issue 24): its calls' journal lines name it. The
    /// client's own text, cleaned by the journal; it decides nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// The form of the offered tools' arguments; `None`: the one for the
    /// turn's AI ([`Schema::for_ai`]). `dcplugin mcp` sets `Full`: its
    /// client's model is not known.
    pub schema: Option<Schema>,
    /// What the turn is about: the player's words (empty: none, as for a
    /// single call, `dcplugin tools` or an MCP client's list). With more
    /// tools eligible than room, they pick the tools offered (§17,
    /// `rank`). Never serialized: the player's words stay in the conversation.
    #[serde(skip)]
    pub words: String,
    /// The tools the AI called earlier in the conversation, by full name:
    /// they and their plugins come first when not all tools fit (`rank`).
    #[serde(skip)]
    pub used: Vec<String>,
}

impl Turn {
    /// A turn of `source` with the AI at `model`, as a single call makes it:
    /// not live, no built-in tool offered, no turn id nor step, no one
    /// to ask (R3 is not offered), the arguments' form for its AI, and no
    /// words nor tools used (the offer's order cuts at the limit). Change a field with `Turn { .., ..Turn::new(..) }`.
    pub fn new(source: Source, model: Place) -> Turn {
        Turn {
            source,
            model,
            live: false,
            builtin: 0,
            id: None,
            step: None,
            can_confirm: false,
            client: None,
            schema: None,
            words: String::new(),
            used: Vec::new(),
        }
    }

    /// The form of the offered tools' arguments: the one asked for, or
    /// else the one for the turn's AI.
    pub fn schema(&self) -> Schema {
        self.schema.unwrap_or(Schema::for_ai(self.model))
    }
}
