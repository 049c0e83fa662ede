//! "Kept on this PC" over the whole conversation (§13, issue 32): the
//! courtier refuses a kept plugin's calls with an online AI, but the
//! conversation sent with each request may still hold what that plugin
//! returned earlier, on an AI on this PC or before the player kept it.
//!
//! Each turn remembers the plugins it touched: the tool calls it ran
//! (every call the host did not refuse: a refused one returned nothing of
//! its plugin), the events it said, and everything the turns its own
//! requests carried had touched (the AI's words may repeat what it read
//! there). A touched plugin seen kept on this PC when a request is made
//! (the host is asked before each one) marks the turn for good: data read
//! under "only on this PC" stays there, even once the plugin is gone. A
//! request to an online AI leaves out every earlier turn so marked, whole
//! (its words, the AI's text, its tool calls and their results), so the
//! transcript stays valid; the running turn is never left out of its own
//! requests (the courtier guards what it runs). The player is told with
//! a `left_out` line when a request leaves out a turn it had not yet left
//! out (a turn carried again, on an AI on this PC, is told again later).
//!
//! An event turn with an online AI does not say the events of a kept
//! plugin: the host journals them `dropped` (`cloud_blocked`) and makes the
//! message again for the others ([`heard`]); with none left, no request.

use crate::event::{ToolOutcome, TurnEvent};
use dcp_ai::{Message, Place};
use dcp_host::{ApiError, EventsForAi, Host, SaidEvent, ToolRef};
use std::collections::BTreeSet;
use std::ops::Range;

/// What each turn of the conversation touched, in the conversation's order.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    turns: Vec<Record>,
}

#[derive(Debug)]
struct Record {
    /// Where the turn starts in the conversation (its user message).
    start: usize,
    /// The plugins its words may come from.
    touched: BTreeSet<String>,
    /// Those seen kept on this PC since.
    kept: BTreeSet<String>,
    /// The player was told it is left out, and it was not carried since.
    told: bool,
}

impl Ledger {
    /// A turn starts at `start` in the conversation, saying events of
    /// `said` (by slug).
    pub(crate) fn begin(&mut self, start: usize, said: impl IntoIterator<Item = String>) {
        self.turns.push(Record { start, touched: said.into_iter().collect(), kept: BTreeSet::new(), told: false });
    }

    /// The running turn failed: its messages were taken back out.
    pub(crate) fn abandon(&mut self) {
        self.turns.pop();
    }

    /// The conversation was forgotten.
    pub(crate) fn clear(&mut self) {
        self.turns.clear();
    }

    /// The running turn asked for `tool`, which ended `outcome`.
    pub(crate) fn called(&mut self, tool: &str, outcome: ToolOutcome) {
        let (Some(turn), Ok(tool)) = (self.turns.last_mut(), tool.parse::<ToolRef>()) else { return };
        if outcome != ToolOutcome::Refused {
            turn.touched.insert(tool.slug().to_owned());
        }
    }

    /// What a request of the running turn to an AI at `place` carries of
    /// `conversation`, `kept` being the plugins kept on this PC now, and
    /// the `left_out` line to say first, if any.
    pub(crate) fn carried(
        &mut self,
        conversation: &[Message],
        place: Place,
        kept: &[String],
    ) -> (Vec<Message>, Option<TurnEvent>) {
        let spans = self.spans(conversation.len());
        let Some((running, earlier)) = self.turns.split_last_mut() else {
            return (conversation.to_vec(), None);
        };
        let mut carried = Vec::with_capacity(conversation.len());
        let (mut inherited, mut inherited_kept) = (BTreeSet::new(), BTreeSet::new());
        let (mut left, mut plugins, mut news) = (0u32, BTreeSet::new(), false);
        for (turn, span) in earlier.iter_mut().zip(&spans) {
            turn.kept.extend(turn.touched.iter().filter(|s| kept.contains(s)).cloned());
            if place == Place::Online && !turn.kept.is_empty() {
                left += 1;
                plugins.extend(turn.kept.iter().cloned());
                news |= !std::mem::replace(&mut turn.told, true);
                continue;
            }
            turn.told = false;
            carried.extend_from_slice(&conversation[span.clone()]);
            inherited.extend(turn.touched.iter().cloned());
            inherited_kept.extend(turn.kept.iter().cloned());
        }
        running.touched.extend(inherited);
        running.kept.extend(inherited_kept);
        running.kept.extend(running.touched.iter().filter(|s| kept.contains(s)).cloned());
        if let Some(span) = spans.last() {
            carried.extend_from_slice(&conversation[span.clone()]);
        }
        let line = news.then(|| TurnEvent::LeftOut { turns: left, plugins: plugins.into_iter().collect() });
        (carried, line)
    }

    /// Each turn's messages in a conversation of `len` messages.
    fn spans(&self, len: usize) -> Vec<Range<usize>> {
        let ends = self.turns.iter().skip(1).map(|t| t.start).chain(std::iter::once(len));
        self.turns.iter().zip(ends).map(|(t, end)| t.start.min(end)..end).collect()
    }
}

/// An event turn's events as the AI at `place` hears them: all of them on
/// this PC; online, without those of plugins kept on this PC (the host
/// journals those `dropped`).
pub(crate) async fn heard(
    host: &Host,
    place: Place,
    message: String,
    events: Vec<SaidEvent>,
) -> Result<EventsForAi, ApiError> {
    match place {
        Place::Pc => Ok(EventsForAi { message: Some(message), said: events, held: Vec::new() }),
        Place::Online => host.events_for_online_ai(message, events).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> Message {
        Message::User { content: text.into() }
    }

    fn assistant(text: &str) -> Message {
        Message::Assistant { content: Some(text.into()), tool_calls: Vec::new() }
    }

    fn texts(messages: &[Message]) -> Vec<String> {
        messages
            .iter()
            .map(|m| match m {
                Message::User { content } => content.clone(),
                Message::Assistant { content, .. } => content.clone().unwrap_or_default(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    /// Three turns: the first ran `bank__balance`, the second was answered on
    /// this PC with it in context, the third runs.
    fn three_turns() -> (Ledger, Vec<Message>) {
        let mut ledger = Ledger::default();
        let mut conversation = vec![user("balance?")];
        ledger.begin(0, []);
        ledger.called("bank__balance", ToolOutcome::Done);
        ledger.carried(&conversation, Place::Pc, &[]);
        conversation.push(assistant("1000 on it"));
        ledger.begin(conversation.len(), []);
        conversation.push(user("and so?"));
        ledger.carried(&conversation, Place::Pc, &[]);
        conversation.push(assistant("so 1000"));
        ledger.begin(conversation.len(), []);
        conversation.push(user("weather?"));
        (ledger, conversation)
    }

    /// §13, issue 32: a turn that touched a kept plugin is left out whole,
    /// and so is a later turn whose AI (on this PC) read it.
    #[test]
    fn s13_an_online_request_leaves_out_what_a_kept_plugin_touched_and_what_followed_from_it() {
        let (mut ledger, conversation) = three_turns();
        let (carried, line) = ledger.carried(&conversation, Place::Pc, &["bank".into()]);
        assert_eq!(carried.len(), conversation.len(), "an AI on this PC gets it all");
        assert_eq!(line, None);
        let (carried, line) = ledger.carried(&conversation, Place::Online, &["bank".into()]);
        assert_eq!(texts(&carried), ["weather?"]);
        assert_eq!(line, Some(TurnEvent::LeftOut { turns: 2, plugins: vec!["bank".into()] }));
        let (_, again) = ledger.carried(&conversation, Place::Online, &["bank".into()]);
        assert_eq!(again, None, "said once");
    }

    /// A plugin allowed online: nothing is left out; a refused call touched nothing.
    #[test]
    fn s13_nothing_is_left_out_of_an_allowed_plugin_or_a_refused_call() {
        let (mut ledger, conversation) = three_turns();
        let (carried, line) = ledger.carried(&conversation, Place::Online, &["notes".into()]);
        assert_eq!((carried.len(), line), (conversation.len(), None));
        let mut refused = Ledger::default();
        refused.begin(0, []);
        refused.called("bank__balance", ToolOutcome::Refused);
        refused.begin(1, []);
        let two = [user("balance?"), user("hi")];
        assert_eq!(refused.carried(&two, Place::Online, &["bank".into()]).0.len(), 2);
    }

    /// Seen kept once, a turn stays left out: the plugin uninstalled since is no longer listed.
    #[test]
    fn s13_a_turn_seen_kept_stays_left_out_once_its_plugin_is_gone() {
        let (mut ledger, conversation) = three_turns();
        ledger.carried(&conversation, Place::Pc, &["bank".into()]);
        let (carried, line) = ledger.carried(&conversation, Place::Online, &[]);
        assert_eq!(texts(&carried), ["weather?"]);
        assert!(matches!(line, Some(TurnEvent::LeftOut { turns: 2, .. })), "{line:?}");
    }

    /// An event said touches its plugin.
    #[test]
    fn s16_an_event_turn_touches_the_plugins_it_said() {
        let mut ledger = Ledger::default();
        ledger.begin(0, ["bank".to_owned()]);
        ledger.begin(2, []);
        let conversation = [user("(event)"), assistant("paid"), user("hi")];
        let (carried, _) = ledger.carried(&conversation, Place::Online, &["bank".into()]);
        assert_eq!(texts(&carried), ["hi"]);
    }
}
