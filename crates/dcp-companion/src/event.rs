//! What a turn reports as it runs: the `dcplugin chat --json` lines (issue
//! 22), one [`TurnEvent`] per line, and what a turn is asked ([`Said`]).
//! Every code in a line is its spelled type (issue 33), serialized as the
//! spelling the lines always had, so a shell matches facts, never text.
//!
//! [`NoToolsNote`]: whether the conversation was told that its model cannot
//! use tools (issue 34), asked of the AI's server once per conversation.

use dcp_ai::{Connection, PcServer, ToolSupport};
use dcp_format::codes::ToolFamily;
use dcp_host::{Decision, ErrorCode, EventReason, JournalOutcome, Refusal, SaidEvent, SentRequest, Source, ToolCode};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// What the player (or a program, through the door) said.
#[derive(Debug, Clone)]
pub struct Said {
    /// Who asked.
    pub source: Source,
    /// The player is live on Twitch (stream mode, §12).
    pub live: bool,
    /// The words.
    pub text: String,
}

/// The most characters of arguments that are not JSON a tool line shows
/// (`args_text`): enough to see what went wrong, and a line stays a line.
pub const ARGS_TEXT_CHARS: usize = 1_000;

/// What a tool line shows of arguments that are not JSON: `raw` cut at
/// [`ARGS_TEXT_CHARS`] characters, `…` marking a cut.
pub fn args_text(raw: &str) -> String {
    match raw.char_indices().nth(ARGS_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &raw[..at]),
        None => raw.to_owned(),
    }
}

/// How a tool call of the turn ended: done, failed or refused.
pub type ToolOutcome = JournalOutcome;

/// One line of `dcplugin chat --json` (and of the window's `companion-turn` event).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TurnEvent {
    /// A turn starts.
    Turn {
        /// The turn's id (the journal's calls of this turn share it).
        id: String,
        /// Who asked.
        source: Source,
        /// What was said.
        text: String,
    },
    /// A turn of the player's Twitch chat starts (§12, issue 36): who
    /// wrote and what, as the player is shown it; said before the turn's
    /// `turn` line (source `twitch`, its text the viewer's words), while
    /// the AI reads them framed as untrusted chat.
    Viewer {
        /// The viewer's display name (cleaned by the chat's gate).
        name: String,
        /// Their words, the prefix or mention removed, cleaned.
        text: String,
    },
    /// A piece of the answer, as it streams.
    Delta {
        /// The piece.
        text: String,
    },
    /// One tool call the AI asked for, and how it ended.
    Tool {
        /// The step, from 1.
        step: u32,
        /// The full tool name the AI gave.
        tool: String,
        /// The arguments as the AI gave them (`null` when not JSON).
        #[cfg_attr(feature = "ts", ts(type = "unknown"))]
        args: Value,
        /// done, failed or refused.
        outcome: ToolOutcome,
        /// The §22 code of a failure, `POLICY_DENIED` for a refusal.
        code: Option<ToolCode>,
        /// Why it was refused: the courtier's reason, or the engine's
        /// (`one_action_per_step`, `call_limit`, `repeated_call`).
        reason: Option<Refusal>,
        /// The request sent (secrets as `[secret]`); none when the call
        /// ended before one was sent.
        sent: Option<SentRequest>,
        /// Exactly what the AI read of the call: the window opens it under
        /// the answer, as Try an action shows it (issue 23).
        for_ai: String,
        /// What `code` says happened ([`ToolCode::family`]), for a shell to
        /// word it; none without a code (issue 33).
        family: Option<ToolFamily>,
        /// The name of the action's plugin as the player is shown it; none
        /// for a tool the AI made up (issue 33).
        plugin: Option<String>,
        /// The action's hint in the player's language (else English); none
        /// for a tool the AI made up (issue 33).
        hint: Option<String>,
        /// What the AI sent as arguments when it was not JSON, cut at
        /// 1,000 characters ([`ARGS_TEXT_CHARS`]; `…` marks a cut; issue
        /// 34). Absent when the arguments were JSON (the line as before
        /// issue 34).
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        args_text: Option<String>,
    },
    /// The player was asked to confirm an R3 action (§12).
    Confirm {
        /// The full tool name.
        tool: String,
        /// The method that would be sent.
        method: String,
        /// The URL that would be sent (secrets as `[secret]`).
        url: String,
        /// confirmed, declined or expired.
        decision: Decision,
        /// The name of the action's plugin as the player is shown it (issue 33).
        plugin: Option<String>,
        /// The action's hint in the player's language, else English (issue 33).
        hint: Option<String>,
    },
    /// The whole answer.
    Reply {
        /// The answer.
        text: String,
        /// The AI's server ended the answer at its length limit (the
        /// request's `max_tokens`, or its context full; issue 34): the text
        /// stops mid-way and the answer's tool calls were not run. Absent
        /// when not cut (the line as before issue 34).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
        cut: bool,
    },
    /// An event of an event turn (§16): what the player is shown of it
    /// (its title, the program's words) and the message the AI read.
    Event {
        /// The plugin that posted it.
        plugin: String,
        /// The event's name.
        event: String,
        /// The event's title in the player's language.
        title: String,
        /// The program's cleaned text, if it sent one.
        details: Option<String>,
        /// The message the AI read; empty when it was not told.
        text: String,
        /// Why the AI was not told it: `cloud_blocked`, its plugin is kept
        /// on this PC and the AI is online (§13, issue 32; journaled
        /// `dropped`). Absent when it was told (the line as before issue 32).
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        held: Option<EventReason>,
    },
    /// Earlier turns this turn's requests leave out (§13, issue 32): they
    /// touched a plugin kept on this PC and the AI is online. Said when a
    /// request first leaves one out, before its answer.
    LeftOut {
        /// How many earlier turns the request leaves out.
        turns: u32,
        /// The plugins kept on this PC they touched, by slug.
        plugins: Vec<String>,
    },
    /// The model cannot use tools, as the AI's server on this PC says
    /// (issue 34): the plugins offered will not be used. Said once in a
    /// conversation, at its first turn offering plugins (again after a new
    /// conversation or another AI), before the answer.
    NoTools {
        /// The server that said so (`llama_cpp`, `ollama`, `lm_studio`).
        server: PcServer,
    },
    /// The turn could not be completed.
    Error {
        /// The error's code (`ai_not_listening`, …, or `stopped`).
        code: TurnCode,
        /// What the player reads.
        message: String,
    },
    /// The turn is over.
    End {
        /// Tool steps used.
        steps: u32,
        /// A shell stopped the turn (a Stop button, Ctrl-C, an MCP cancel;
        /// issue 33): said after its `error` line, code `stopped`. Absent
        /// when not stopped (the line as before issue 33).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
        stopped: bool,
    },
}

impl TurnEvent {
    /// An event turn's opening lines (§16): the `turn` line (`id` empty when
    /// no turn could run) with the message the AI reads, then one `event`
    /// line per event said, as the player is shown it.
    pub fn event_turn_lines(id: String, message: &str, events: Vec<SaidEvent>) -> impl Iterator<Item = TurnEvent> + '_ {
        let turn = TurnEvent::Turn { id, source: Source::Event, text: message.to_owned() };
        std::iter::once(turn).chain(events.into_iter().map(move |e| TurnEvent::event(e, message, None)))
    }

    /// The `event` line of an event the AI was not told, and why (§13,
    /// issue 32): the player is still shown it.
    pub fn held_event_line(event: SaidEvent, reason: EventReason) -> TurnEvent {
        TurnEvent::event(event, "", Some(reason))
    }

    fn event(e: SaidEvent, message: &str, held: Option<EventReason>) -> TurnEvent {
        TurnEvent::Event {
            plugin: e.plugin,
            event: e.event,
            title: e.title,
            details: e.text,
            text: message.to_owned(),
            held,
        }
    }
}

/// Whether the conversation was told its model cannot use tools (issue
/// 34). The AI's server is asked once ([`Connection::tool_support`]: on
/// this PC only, each server's question bounded by its own 5 s), at the
/// first turn offering plugins; the answer is kept, so later turns cost
/// nothing. Forgotten with the conversation and when the AI changes.
#[derive(Debug, Default)]
pub(crate) struct NoToolsNote {
    /// What the server said, once asked (none: it does not say).
    asked: Option<Option<ToolSupport>>,
    /// The `no_tools` line was said in this conversation.
    said: bool,
}

impl NoToolsNote {
    /// Asks again, and says again, from the next turn on.
    pub(crate) fn forget(&mut self) {
        *self = NoToolsNote::default();
    }

    /// The `no_tools` line for a turn that offers plugins' actions
    /// (`offering`) through `connection`: only when its server says the
    /// model cannot use them, and only once in the conversation.
    pub(crate) async fn line(&mut self, connection: &Connection, offering: bool) -> Option<TurnEvent> {
        if self.said || !offering {
            return None;
        }
        let support = match self.asked {
            Some(support) => support,
            None => *self.asked.insert(connection.tool_support().await),
        };
        let support = support.filter(|s| !s.tools)?;
        self.said = true;
        Some(TurnEvent::NoTools { server: support.server })
    }
}

dcp_format::spelled! {
    /// The engine's own code for how a turn ended.
    pub enum EngineCode {
        /// A shell stopped the turn (a Stop button, Ctrl-C; issue 33).
        Stopped => "stopped",
    }
}

/// The code of a turn's `error` line: the host's (an AI code among them:
/// `ai_not_listening`, `ai_turn_too_long`, …) or the engine's `stopped`.
/// Serialized as its spelling.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(untagged))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnCode {
    /// The host's code.
    Host(ErrorCode),
    /// The engine's.
    Engine(EngineCode),
}

impl TurnCode {
    /// The code as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnCode::Host(code) => code.as_str(),
            TurnCode::Engine(code) => code.as_str(),
        }
    }
}

impl std::fmt::Display for TurnCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<ErrorCode> for TurnCode {
    fn from(code: ErrorCode) -> TurnCode {
        TurnCode::Host(code)
    }
}

impl Serialize for TurnCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcp_host::CallCode;
    use serde_json::json;

    /// Issue 34: arguments that are not JSON are shown whole up to
    /// [`ARGS_TEXT_CHARS`] characters, never cut inside a character.
    #[test]
    fn args_text_is_cut_at_its_limit() {
        assert_eq!(args_text("amount=100"), "amount=100");
        let long = "é".repeat(ARGS_TEXT_CHARS + 5);
        let shown = args_text(&long);
        assert_eq!(shown.chars().count(), ARGS_TEXT_CHARS + 1);
        assert!(shown.ends_with("é…"), "{shown}");
        assert_eq!(args_text(&long[..2 * ARGS_TEXT_CHARS]), long[..2 * ARGS_TEXT_CHARS]);
    }

    #[test]
    fn lines_have_the_chat_json_shape() {
        let turn = TurnEvent::Turn { id: "t1".into(), source: Source::Keyboard, text: "hi".into() };
        assert_eq!(
            serde_json::to_value(turn).ok(),
            Some(json!({"type":"turn","id":"t1","source":"keyboard","text":"hi"}))
        );
        let tool = TurnEvent::Tool {
            step: 2,
            tool: "fx__convert".into(),
            args: json!({"amount": 100}),
            outcome: ToolOutcome::Refused,
            code: Some(CallCode::PolicyDenied.into()),
            reason: Some(Refusal::ToolsOff),
            sent: None,
            for_ai: "POLICY_DENIED: tools_off".into(),
            family: Some(ToolFamily::Refused),
            plugin: Some("Exchange rates".into()),
            hint: Some("Convert an amount".into()),
            args_text: None,
        };
        // The keys before issue 33 in their order and spelling, then the plugin, its hint and the code's family.
        assert_eq!(
            serde_json::to_string(&tool).ok().as_deref(),
            Some(concat!(
                r#"{"type":"tool","step":2,"tool":"fx__convert","args":{"amount":100},"#,
                r#""outcome":"refused","code":"POLICY_DENIED","reason":"tools_off","#,
                r#""sent":null,"for_ai":"POLICY_DENIED: tools_off","family":"refused","#,
                r#""plugin":"Exchange rates","hint":"Convert an amount"}"#
            ))
        );
        // Issue 33: the engine's own reasons, an HTTP code and the error codes keep their spellings.
        let not_run = TurnEvent::Tool {
            step: 1,
            tool: "fx__rate".into(),
            args: json!({}),
            outcome: ToolOutcome::Failed,
            code: Some(ToolCode::Http(503)),
            reason: Some(Refusal::RepeatedCall),
            sent: None,
            for_ai: String::new(),
            family: Some(ToolFamily::ServiceDown),
            plugin: None,
            hint: None,
            args_text: None,
        };
        let json = serde_json::to_value(not_run).unwrap_or_default();
        assert_eq!(
            (&json["code"], &json["reason"], &json["family"]),
            (&json!("HTTP_503"), &json!("repeated_call"), &json!("service_down"))
        );
        let stopped = TurnEvent::Error { code: TurnCode::Engine(EngineCode::Stopped), message: "stopped".into() };
        assert_eq!(
            serde_json::to_value(stopped).ok(),
            Some(json!({"type":"error","code":"stopped","message":"stopped"}))
        );
        let ai = TurnEvent::Error { code: ErrorCode::Ai(dcp_host::AiCode::NotListening).into(), message: "m".into() };
        assert_eq!(
            serde_json::to_value(ai).ok(),
            Some(json!({"type":"error","code":"ai_not_listening","message":"m"}))
        );
        let confirm = TurnEvent::Confirm {
            tool: "t".into(),
            method: "POST".into(),
            url: "u".into(),
            decision: Decision::Expired,
            plugin: None,
            hint: None,
        };
        assert_eq!(
            serde_json::to_string(&confirm).ok().as_deref(),
            Some(
                r#"{"type":"confirm","tool":"t","method":"POST","url":"u","decision":"expired","plugin":null,"hint":null}"#
            )
        );
        assert_eq!(
            serde_json::to_value(TurnEvent::End { steps: 0, stopped: false }).ok(),
            Some(json!({"type":"end","steps":0}))
        );
        // Issue 33: a stopped turn's end says so; any other end is as before.
        assert_eq!(
            serde_json::to_value(TurnEvent::End { steps: 1, stopped: true }).ok(),
            Some(json!({"type":"end","steps":1,"stopped":true}))
        );
        // Issue 34: a cut answer says so; any other reply is as before.
        assert_eq!(
            serde_json::to_value(TurnEvent::Reply { text: "a".into(), cut: false }).ok(),
            Some(json!({"type":"reply","text":"a"}))
        );
        assert_eq!(
            serde_json::to_value(TurnEvent::Reply { text: "a".into(), cut: true }).ok(),
            Some(json!({"type":"reply","text":"a","cut":true}))
        );
        // Issue 34: a model that cannot use tools, said with the server that says so.
        assert_eq!(
            serde_json::to_value(TurnEvent::NoTools { server: PcServer::LlamaCpp }).ok(),
            Some(json!({"type":"no_tools","server":"llama_cpp"}))
        );
        // Issue 36: a viewer of the Twitch chat, before the turn's line.
        let viewer = TurnEvent::Viewer { name: "Kappa_Fan".into(), text: "hi".into() };
        assert_eq!(serde_json::to_value(viewer).ok(), Some(json!({"type":"viewer","name":"Kappa_Fan","text":"hi"})));
        // Issue 32: the turns an online AI's request leaves out, and an event it was not told.
        let left = TurnEvent::LeftOut { turns: 2, plugins: vec!["notes".into()] };
        assert_eq!(serde_json::to_value(left).ok(), Some(json!({"type":"left_out","turns":2,"plugins":["notes"]})));
        let said = SaidEvent { plugin: "bank".into(), event: "paid".into(), title: "Paid".into(), text: None };
        assert_eq!(
            serde_json::to_value(TurnEvent::held_event_line(said, EventReason::CloudBlocked)).ok(),
            Some(json!({"type":"event","plugin":"bank","event":"paid","title":"Paid","details":null,
                "text":"","held":"cloud_blocked"}))
        );
    }
}
