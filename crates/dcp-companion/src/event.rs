//! What a turn reports as it runs: the `dcplugin chat --json` lines (issue
//! 22), one [`TurnEvent`] per line, and what a turn is asked ([`Said`]).

use dcp_host::{EventReason, JournalOutcome, SaidEvent, SentRequest, Source};
use serde::Serialize;
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
        code: Option<String>,
        /// Why it was refused.
        reason: Option<String>,
        /// The request sent (secrets as `[secret]`); none when the call
        /// ended before one was sent.
        sent: Option<SentRequest>,
        /// Exactly what the AI read of the call: the window opens it under
        /// the answer, as Try an action shows it (issue 23).
        for_ai: String,
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
        decision: String,
    },
    /// The whole answer.
    Reply {
        /// The answer.
        text: String,
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
        held: Option<String>,
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
    /// The turn could not be completed.
    Error {
        /// The error's code (`ai_not_listening`, …).
        code: String,
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
            held: held.map(|r| r.as_str().to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
            code: Some("POLICY_DENIED".into()),
            reason: Some("tools_off".into()),
            sent: None,
            for_ai: "POLICY_DENIED: tools_off".into(),
        };
        assert_eq!(
            serde_json::to_value(tool).ok(),
            Some(json!({"type":"tool","step":2,"tool":"fx__convert","args":{"amount":100},
                "outcome":"refused","code":"POLICY_DENIED","reason":"tools_off",
                "sent":null,"for_ai":"POLICY_DENIED: tools_off"}))
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
