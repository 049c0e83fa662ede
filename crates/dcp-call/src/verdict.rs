//! How a call ended, worked out without a store (§3, §9, §22): what the AI
//! reads, and what the journal records of it. Every ending of the
//! pipeline goes through here — a refusal, a failure before or after the
//! request, a network error, an answer — so the texts the AI reads are
//! written once, masked and framed the same way, and testable alone.
//!
//! A confirmed (R3) request that did not end at the URL the player was
//! shown (a redirect followed as a read of its result, or one refused) has
//! its line say where ([`ended_elsewhere`], issue 32, §12, §14).

use crate::answer::{self, frame};
use crate::ask::Decision;
use crate::mask::Masker;
use crate::pipeline::CallOutcome;
use dcp_format::codes::{CallCode, Refusal, SpecCode, ToolCode};
use dcp_format::model::Response;
use dcp_net::{Incoming, NetError};
use dcp_store::journal::{Kind, NewEntry, Outcome as Logged, Source};
use url::Url;

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
    /// Where a confirmed request ended, when not where it was shown
    /// ([`ended_elsewhere`]).
    ended_at: Option<String>,
}

impl Verdict {
    /// Refused by the courtier (or the chat's quota).
    pub fn refused(reason: Refusal) -> Verdict {
        let code = ToolCode::Call(CallCode::PolicyDenied);
        let for_ai = format!("{code} ({reason}): {}", reason.for_ai());
        let outcome = CallOutcome::new(Logged::Refused, Some(code), Some(reason), false, for_ai);
        Verdict { outcome, code: Some(SpecCode::Refusal(reason)), error: None, ended_at: None }
    }

    /// Refused as the player's answer was a no: `declined` when they said
    /// no, `expired` when nothing came in time (issue 34: nobody declined).
    pub fn declined(decision: Decision) -> Verdict {
        Verdict::refused(if decision == Decision::Expired { Refusal::Expired } else { Refusal::Declined })
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
        let outcome = CallOutcome::new(Logged::Failed, Some(code), None, retryable, for_ai);
        // The journal gets the code; the error goes to the plugin's last
        // failed calls (§3, §19).
        Verdict { code: Some(SpecCode::Tool(code)), error: Some(outcome.for_ai.clone()), outcome, ended_at: None }
    }

    /// What the server's reply to `call` tells the AI: the answer read,
    /// cleaned, masked and framed, or the failure of the request or of
    /// the answer. `confirmed`: the URL a confirmed (R3) request was sent
    /// to, the one the player was shown; its line then says where the
    /// request ended if elsewhere ([`ended_elsewhere`]).
    pub fn replied(
        call: &Call,
        reply: &Result<Incoming, NetError>,
        confirmed: Option<&str>,
        response: &Response,
        masker: &Masker,
    ) -> Verdict {
        let verdict = match reply {
            Err(e) => Verdict::failed(e.code(), &net_message(e), e.retryable(), masker),
            Ok(incoming) => {
                let (status, content_type) = (incoming.status, incoming.content_type.as_deref());
                match answer::read(status, content_type, &incoming.body, response, masker) {
                    Ok(text) => Verdict::done(frame(&call.slug, &call.tool, &text)),
                    Err(f) => {
                        let from_server = f.from_server.as_deref().map(|text| (call, text));
                        Verdict::failed_showing(from_server, f.code, &f.message, f.retryable, masker)
                    }
                }
            }
        };
        let ended_at = confirmed.and_then(|shown| ended_elsewhere(shown, reply, masker));
        Verdict { ended_at, ..verdict }
    }

    fn done(for_ai: String) -> Verdict {
        let outcome = CallOutcome::new(Logged::Done, None, None, false, for_ai);
        Verdict { outcome, code: None, error: None, ended_at: None }
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
            ended_at: self.ended_at.as_deref(),
        }
    }
}

/// Where a confirmed request sent to `shown` ended, when not there (issue
/// 32, §12, §14): the URL that gave its answer after a redirect followed
/// as a read of its result, or where a redirect the filter refused
/// pointed (it was not followed). None when it ended where it was sent, or
/// failed with no URL to tell (a timeout, the network).
///
/// As the journal keeps it: scheme, host, port and path, masked like
/// everything the call keeps. The query and the fragment are dropped (and
/// any user name or password): the journal keeps no content (§3), and a
/// query is where a server puts what it was sent or where it sends it
/// (`/send_all?to=…`); the origin says which program or service it went
/// to, the path which of its endpoints, enough for a player to see that it
/// was not the URL they confirmed.
fn ended_elsewhere(shown: &str, reply: &Result<Incoming, NetError>, masker: &Masker) -> Option<String> {
    let ended = match reply {
        Ok(incoming) => &incoming.final_url,
        Err(NetError::Redirected { to, .. }) => to,
        Err(_) => return None,
    };
    let mut ended = Url::parse(ended).ok()?;
    ended.set_fragment(None);
    let sent = Url::parse(shown).ok().map(|mut sent| {
        sent.set_fragment(None);
        sent
    });
    // A refused redirect did not end where it was sent, even when it
    // pointed there (a 307 to the same URL would send it again).
    if reply.is_ok() && sent.as_ref() == Some(&ended) {
        return None;
    }
    ended.set_query(None);
    // Never fails for a URL with a host, the only kind the filter sends to.
    let _ = ended.set_username("");
    let _ = ended.set_password(None);
    Some(masker.mask(ended.as_str()))
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
            None,
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
            None,
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

    /// A 200 answer given by `final_url`.
    fn answered_by(final_url: &str) -> Result<Incoming, NetError> {
        Ok(Incoming { final_url: final_url.into(), ..answer(200, "application/json", "{}").expect("an answer") })
    }

    /// Issue 32, §12, §14: a confirmed request's line says where it ended
    /// when not at the URL shown: a redirect read (origin and path, the
    /// query, fragment and user info dropped, a secret masked), or where a
    /// refused one pointed (even the URL shown: it was not followed).
    #[test]
    fn s12_s14_issue32_a_confirmed_request_that_ended_elsewhere_says_where() {
        let shown = "https://api.example.com/send?key=tok-123456789";
        let ended = |reply: &Result<Incoming, NetError>, confirmed: Option<&str>| {
            Verdict::replied(&call(), reply, confirmed, &response(), &masker()).ended_at
        };
        assert_eq!(ended(&answered_by(shown), Some(shown)), None, "ended where it was shown");
        assert_eq!(ended(&answered_by(&format!("{shown}#top")), Some(shown)), None, "a fragment is not a place");
        let read = answered_by("https://u:p@api.example.com/sent/tok-123456789?to=mallory#x");
        assert_eq!(ended(&read, Some(shown)).as_deref(), Some("https://api.example.com/sent/[secret]"));
        let refused = Err(NetError::Redirected { status: 307, to: "https://api.example.com/send_all?to=m".into() });
        assert_eq!(ended(&refused, Some(shown)).as_deref(), Some("https://api.example.com/send_all"));
        let again = Err(NetError::Redirected { status: 307, to: shown.into() });
        assert_eq!(ended(&again, Some(shown)).as_deref(), Some("https://api.example.com/send"));
        let line = Verdict::replied(&call(), &refused, Some(shown), &response(), &masker());
        assert_eq!(line.entry(&call()).ended_at, Some("https://api.example.com/send_all"), "the journal's");
        assert_eq!(ended(&Err(NetError::Timeout), Some(shown)), None, "no URL to tell");
        assert_eq!(ended(&read, None), None, "a request no player was shown: §14's redirects");
    }

    #[test]
    fn s15_a_server_on_the_pc_that_does_not_answer_is_probably_not_running() {
        let verdict = Verdict::replied(&call(), &Err(NetError::Network { local: true }), None, &response(), &masker());
        let o = &verdict.outcome;
        assert_eq!(o.code, Some(CallCode::Network.into()));
        assert!(o.for_ai.contains("probably not running"), "{}", o.for_ai);
        let timeout = Verdict::replied(&call(), &Err(NetError::Timeout), None, &response(), &masker());
        assert_eq!(
            (timeout.outcome.code, timeout.outcome.retryable),
            (Some(CallCode::Timeout.into()), NetError::Timeout.retryable())
        );
    }
}
