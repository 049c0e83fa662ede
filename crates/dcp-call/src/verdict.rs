//! How a call ended, worked out without a store (§3, §9, §22): what the AI
//! reads, and what the journal records of it. Every ending of the
//! pipeline goes through here — a refusal, a failure before or after the
//! request, a network error, an answer — so the texts the AI reads are
//! written once, masked and framed the same way, and testable alone.

use crate::answer::{self, frame};
use crate::ask::{Decision, ANSWER_WITHIN};
use crate::mask::Masker;
use crate::pipeline::CallOutcome;
use dcp_format::codes::{CallCode, Refusal, SpecCode, ToolCode};
use dcp_format::model::Response;
use dcp_net::{Incoming, NetError};
use dcp_store::journal::{Kind, NewEntry, Outcome as Logged, Source};

/// Which call a journal line names: the tool as the AI asked for it, who
/// asked (and the AI app, when one named itself), and its subject (the
/// first text argument, cleaned and masked).
#[derive(Debug)]
pub(crate) struct Call {
    pub slug: String,
    pub tool: String,
    pub who: Source,
    pub client: Option<String>,
    pub subject: Option<String>,
    /// An R3 call's answer, once the player gave it (or did not in time).
    pub confirmation: Option<Decision>,
    /// The turn and the step its caller numbered: kept in the journal
    /// line's commit rather than one of its own before the call.
    pub step: Option<(String, u32)>,
}

/// What the AI reads, with the code and error the journal keeps.
#[derive(Debug)]
pub(crate) struct Verdict {
    pub outcome: CallOutcome,
    /// The journal's code: a refusal's reason, a failure's §22 code.
    code: Option<SpecCode>,
    /// A failure's text as the AI read it, for the plugin's last failed calls.
    error: Option<String>,
}

impl Verdict {
    /// Refused by the courtier (or the chat's quota).
    pub fn refused(reason: Refusal) -> Verdict {
        let code = ToolCode::Call(CallCode::PolicyDenied);
        let outcome = CallOutcome {
            outcome: Logged::Refused,
            code: Some(code),
            reason: Some(reason),
            retryable: false,
            for_ai: format!("{code} ({reason}): {}", reason.for_ai()),
        };
        Verdict { outcome, code: Some(SpecCode::Refusal(reason)), error: None }
    }

    /// Refused `declined`: the player said no, or nothing in time (a no).
    pub fn declined(decision: Decision) -> Verdict {
        let mut verdict = Verdict::refused(Refusal::Declined);
        if decision == Decision::Expired {
            let code = ToolCode::Call(CallCode::PolicyDenied);
            verdict.outcome.for_ai = format!(
                "{code} ({}): No answer from the player within {} s: nothing was sent. Ask them if they still want it.",
                Refusal::Declined,
                ANSWER_WITHIN.as_secs()
            );
        }
        verdict
    }

    /// Failed with the app's own words (masked: they may quote an argument).
    pub fn failed(code: impl Into<ToolCode>, message: &str, retryable: bool, masker: &Masker) -> Verdict {
        Verdict::failed_showing(None, code.into(), message, retryable, masker)
    }

    /// A failure whose server text (already cleaned and masked) the AI
    /// reads inside the untrusted frame of `call`'s tool, like an answer (§9).
    fn failed_showing(
        from_server: Option<(&Call, &str)>,
        code: ToolCode,
        message: &str,
        retryable: bool,
        masker: &Masker,
    ) -> Verdict {
        let message = masker.mask(message);
        let retry = if retryable { " You may retry." } else { "" };
        let mut for_ai = format!("{code}: {message}{retry}");
        if let Some((call, text)) = from_server {
            for_ai.push('\n');
            for_ai.push_str(&frame(&call.slug, &call.tool, text));
        }
        let outcome = CallOutcome { outcome: Logged::Failed, code: Some(code), reason: None, retryable, for_ai };
        // The journal gets the code; the error goes to the plugin's last
        // failed calls (§3, §19).
        Verdict { code: Some(SpecCode::Tool(code)), error: Some(outcome.for_ai.clone()), outcome }
    }

    /// What the server's reply to `call` tells the AI: the answer read,
    /// cleaned, masked and framed, or the failure of the request or of
    /// the answer.
    pub fn replied(call: &Call, reply: &Result<Incoming, NetError>, response: &Response, masker: &Masker) -> Verdict {
        let incoming = match reply {
            Ok(incoming) => incoming,
            Err(e) => return Verdict::failed(e.code(), &net_message(e), e.retryable(), masker),
        };
        match answer::read(incoming.status, incoming.content_type.as_deref(), &incoming.body, response, masker) {
            Ok(text) => Verdict::done(frame(&call.slug, &call.tool, &text)),
            Err(f) => {
                let from_server = f.from_server.as_deref().map(|text| (call, text));
                Verdict::failed_showing(from_server, f.code, &f.message, f.retryable, masker)
            }
        }
    }

    fn done(for_ai: String) -> Verdict {
        let outcome = CallOutcome { outcome: Logged::Done, code: None, reason: None, retryable: false, for_ai };
        Verdict { outcome, code: None, error: None }
    }

    /// The journal line of `call` ending so.
    pub fn entry<'a>(&'a self, call: &'a Call) -> NewEntry<'a> {
        NewEntry {
            plugin: &call.slug,
            action: &call.tool,
            who: call.who,
            kind: Kind::Call,
            outcome: self.outcome.outcome,
            code: self.code,
            subject: call.subject.as_deref(),
            error: self.error.as_deref(),
            confirmation: call.confirmation,
            client: call.client.as_deref(),
        }
    }
}

/// What the AI is told for a network failure (§15: a server on the PC that
/// does not answer is probably not running).
fn net_message(e: &NetError) -> String {
    match e {
        NetError::Network { local: true, .. } => {
            "the program on the user's PC did not answer: it is probably not running. Ask the user to start it, then try again.".into()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "tok-123456789";

    fn call() -> Call {
        Call {
            slug: "fx".into(),
            tool: "convert".into(),
            who: Source::Voice,
            client: None,
            subject: Some("100 USD".into()),
            confirmation: None,
            step: None,
        }
    }

    fn masker() -> Masker {
        Masker::new([TOKEN])
    }

    fn response() -> Response {
        Response { pick: Vec::new(), max_chars: 2_000 }
    }

    fn answer(status: u16, content_type: &str, body: &str) -> Result<Incoming, NetError> {
        Ok(Incoming {
            status,
            content_type: Some(content_type.into()),
            body: body.as_bytes().to_vec(),
            final_url: "https://api.example.com/".into(),
        })
    }

    #[test]
    fn s22_a_refusal_is_policy_denied_with_its_reason_and_journaled_as_the_reason() {
        let verdict = Verdict::refused(Refusal::TwitchQuota);
        let o = &verdict.outcome;
        assert_eq!(
            (o.outcome, o.code, o.reason, o.retryable),
            (Logged::Refused, Some(CallCode::PolicyDenied.into()), Some(Refusal::TwitchQuota), false)
        );
        assert!(o.for_ai.starts_with("POLICY_DENIED (twitch_quota): "), "{}", o.for_ai);
        let call = call();
        let line = verdict.entry(&call);
        assert_eq!(
            (line.outcome, line.code, line.error),
            (Logged::Refused, Some(SpecCode::Refusal(Refusal::TwitchQuota)), None)
        );
        assert_eq!(
            (line.plugin, line.action, line.who, line.kind, line.subject),
            ("fx", "convert", Source::Voice, Kind::Call, Some("100 USD"))
        );
    }

    #[test]
    fn s11_s22_a_failure_in_the_apps_words_is_masked_and_kept_for_the_developer_section() {
        let verdict =
            Verdict::failed(CallCode::InvalidArguments, &format!("to: {TOKEN} is not a currency"), true, &masker());
        assert_eq!(verdict.outcome.for_ai, "INVALID_ARGUMENTS: to: [secret] is not a currency You may retry.");
        assert_eq!(verdict.outcome.code, Some(CallCode::InvalidArguments.into()));
        let call = call();
        let line = verdict.entry(&call);
        assert_eq!(line.code, Some(SpecCode::Tool(CallCode::InvalidArguments.into())));
        assert_eq!(line.error, Some(verdict.outcome.for_ai.as_str()), "the error as the AI read it");
    }

    #[test]
    fn s9_an_answer_is_read_masked_and_framed_as_the_tools() {
        let verdict = Verdict::replied(
            &call(),
            &answer(200, "application/json", &format!(r#"{{"echo":"{TOKEN}"}}"#)),
            &response(),
            &masker(),
        );
        let o = &verdict.outcome;
        assert_eq!((o.outcome, o.code, o.retryable), (Logged::Done, None, false));
        assert_eq!(o.for_ai, frame("fx", "convert", r#"{"echo":"[secret]"}"#));
        assert_eq!(verdict.entry(&call()).code, None);
    }

    #[test]
    fn s9_a_server_error_keeps_its_text_inside_the_frame_after_the_apps_words() {
        let verdict = Verdict::replied(
            &call(),
            &answer(503, "text/plain", &format!("down, key {TOKEN}")),
            &response(),
            &masker(),
        );
        let o = &verdict.outcome;
        assert_eq!((o.outcome, o.code, o.retryable), (Logged::Failed, Some(ToolCode::Http(503)), true));
        let (words, framed) = o.for_ai.split_once('\n').expect("the app's words, then the frame");
        assert!(words.starts_with("HTTP_503: ") && words.ends_with(" You may retry."), "{words}");
        assert!(!words.contains("down"), "no byte of the server's outside the frame: {words}");
        assert_eq!(framed, frame("fx", "convert", "down, key [secret]"));
    }

    #[test]
    fn s15_a_server_on_the_pc_that_does_not_answer_is_probably_not_running() {
        let verdict = Verdict::replied(&call(), &Err(NetError::Network { local: true }), &response(), &masker());
        let o = &verdict.outcome;
        assert_eq!(o.code, Some(CallCode::Network.into()));
        assert!(o.for_ai.contains("probably not running"), "{}", o.for_ai);
        let timeout = Verdict::replied(&call(), &Err(NetError::Timeout), &response(), &masker());
        assert_eq!(
            (timeout.outcome.code, timeout.outcome.retryable),
            (Some(CallCode::Timeout.into()), NetError::Timeout.retryable())
        );
    }
}
