//! Options' Test button (§18): is the plugin set up right? One harmless
//! call answers it: the first action that is on, only reads (R0 or R1) and
//! needs no argument, called as the player would by text with an AI on
//! this PC (so the online-AI choice cannot refuse it). The call is
//! journaled like any other: the player asked for it. It reports facts
//! (the action, connected or not, the code); the window words them.

use crate::dto::{CallOutcome, PluginTest};
use crate::JournalOutcome;
use crate::{ApiResult, Host, Model, Source, Turn};
use dcp_format::codes::SpecCode;
use dcp_format::model::Plugin;
use dcp_format::risk::Level;
use dcp_store::StoreError;

impl Host {
    /// Tests a plugin with one harmless call (Options' Test button).
    pub async fn test_plugin(&self, slug: &str) -> ApiResult<PluginTest> {
        let owned = slug.to_owned();
        let action = self
            .read(move |s| {
                let context = s.call_context(&owned)?.ok_or_else(|| StoreError::UnknownPlugin(owned.clone()))?;
                Ok(context.plugin.as_deref().and_then(|p| action_to_test(p, &context.tools_off)))
            })
            .await?;
        let Some(action) = action else {
            return Ok(PluginTest { action: None, ok: false, code: None });
        };
        let turn = Turn::new(Source::Test, Model::Local);
        let outcome = self.call(turn, &action, serde_json::json!({})).await?;
        Ok(verdict(action, &outcome))
    }
}

/// The first action that is on, reads only (R0, R1) and has no required argument.
fn action_to_test(plugin: &Plugin, tools_off: &[String]) -> Option<String> {
    plugin
        .tools
        .iter()
        .find(|t| t.level <= Level::R1 && !tools_off.contains(&t.name) && !t.arguments.iter().any(|a| a.required))
        .map(|t| t.full_name.to_string())
}

/// What a test call found: connected, or the code a player acts on.
fn verdict(action: String, outcome: &CallOutcome) -> PluginTest {
    if outcome.outcome == JournalOutcome::Done {
        return PluginTest { action: Some(action), ok: true, code: None };
    }
    // A refusal's reason says more than POLICY_DENIED.
    let code = outcome.reason.map(SpecCode::Refusal).or(outcome.code.map(SpecCode::Tool));
    PluginTest { action: Some(action), ok: false, code }
}

#[cfg(test)]
mod tests {
    use super::verdict;
    use crate::dto::CallOutcome;
    use crate::JournalOutcome;
    use dcp_format::codes::{CallCode, Refusal, SpecCode, ToolCode};

    fn ended(outcome: JournalOutcome, code: Option<ToolCode>, reason: Option<Refusal>) -> CallOutcome {
        CallOutcome { outcome, code, reason, retryable: false, for_ai: String::new() }
    }

    #[test]
    fn a_call_that_went_through_is_connected() {
        let test = verdict("p__list".into(), &ended(JournalOutcome::Done, None, None));
        assert_eq!((test.ok, test.code), (true, None));
    }

    /// The spec: on 401 and 403 the saved key may be wrong or revoked; the
    /// window says so from the code.
    #[test]
    fn a_401_or_403_keeps_its_status() {
        for status in [401, 403] {
            let code = ToolCode::Http(status);
            let test = verdict("p__list".into(), &ended(JournalOutcome::Failed, Some(code), None));
            assert_eq!((test.ok, test.code), (false, Some(SpecCode::Tool(code))));
        }
    }

    #[test]
    fn a_refusal_gives_the_courtiers_reason_not_policy_denied() {
        let denied = Some(ToolCode::Call(CallCode::PolicyDenied));
        let test = verdict("p__list".into(), &ended(JournalOutcome::Refused, denied, Some(Refusal::NeedsSetup)));
        assert_eq!((test.ok, test.code), (false, Some(SpecCode::Refusal(Refusal::NeedsSetup))));
    }

    #[test]
    fn other_failures_keep_their_code() {
        let timeout = ToolCode::Call(CallCode::Timeout);
        let test = verdict("p__list".into(), &ended(JournalOutcome::Failed, Some(timeout), None));
        assert_eq!((test.ok, test.code), (false, Some(SpecCode::Tool(timeout))));
    }
}
