//! Options' Test button (§18): is the plugin set up right? One harmless
//! call answers it: the first action that is on, only reads (R0 or R1) and
//! needs no argument, called as the player would by text with an AI on
//! this PC (so the online-AI choice cannot refuse it). The call is
//! journaled like any other: the player asked for it.

use crate::dto::{CallOutcome, PluginTest};
use crate::JournalOutcome;
use crate::{ApiResult, Host, Model, Source, Turn};
use dcp_format::codes::{SpecCode, ToolCode};
use dcp_format::limits::CALL_SECONDS;
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
            return Ok(PluginTest {
                action: None,
                ok: false,
                code: None,
                message:
                    "There is nothing to test: this plugin has no action that is on, only reads and needs no argument."
                        .into(),
            });
        };
        let turn = Turn {
            source: Source::Keyboard,
            model: Model::Local,
            live: false,
            builtin: 0,
            id: None,
            step: None,
            can_confirm: false,
        };
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

/// The player's verdict of a test call.
fn verdict(action: String, outcome: &CallOutcome) -> PluginTest {
    if outcome.outcome == JournalOutcome::Done {
        return PluginTest { action: Some(action), ok: true, code: None, message: "Connected".into() };
    }
    // A refusal's reason says more than POLICY_DENIED.
    let code = outcome.reason.map(SpecCode::Refusal).or(outcome.code.map(SpecCode::Tool));
    let message = code.map_or_else(|| OTHER.to_owned(), plain_words);
    PluginTest { action: Some(action), ok: false, code, message }
}

const OTHER: &str = "The test failed. Open Details for the error code.";

/// A failure code (§22) in plain words for the player.
fn plain_words(code: SpecCode) -> String {
    use dcp_format::codes::{CallCode as C, Refusal as R};
    let text = match code {
        SpecCode::Tool(ToolCode::Http(401 | 403)) => {
            "The service refused the key: it is probably wrong or revoked. Check it in Options."
        }
        SpecCode::Tool(ToolCode::Http(429)) => "The service says it gets too many requests. Try again in a minute.",
        SpecCode::Tool(ToolCode::Http(500..)) => "The service has a problem right now. Try again later.",
        SpecCode::Tool(ToolCode::Http(_)) => "The service answered with an error. Check the settings.",
        SpecCode::Tool(ToolCode::Call(C::Timeout)) => {
            return format!("The service did not answer within {CALL_SECONDS} seconds. Try again later.")
        }
        SpecCode::Tool(ToolCode::Call(C::Network | C::DnsFailed)) => {
            "The service could not be reached. Check the internet connection, or that the program on this PC is running."
        }
        SpecCode::Tool(ToolCode::Call(C::NeedsSetup)) | SpecCode::Refusal(R::NeedsSetup) => {
            "A required setting or secret is missing. Fill it in and save."
        }
        SpecCode::Refusal(R::ToolsOff) => "Enable tools is off in the Tools tab.",
        SpecCode::Refusal(R::PluginOff) => "The plugin, this action or all plugins are switched off.",
        SpecCode::Refusal(R::DevModeOff) => "Developer mode is off: this plugin is paused.",
        SpecCode::Tool(ToolCode::Call(C::BadResponse | C::UnsupportedContent)) => {
            "The service answered with something the plugin cannot read."
        }
        _ => OTHER,
    };
    text.to_owned()
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
        assert_eq!((test.ok, test.code, test.message.as_str()), (true, None, "Connected"));
    }

    /// The spec: on 401 and 403 the saved key may be wrong or revoked.
    #[test]
    fn a_401_or_403_says_the_key_is_probably_wrong() {
        for status in [401, 403] {
            let code = ToolCode::Http(status);
            let test = verdict("p__list".into(), &ended(JournalOutcome::Failed, Some(code), None));
            assert_eq!(test.code, Some(SpecCode::Tool(code)));
            assert!(!test.ok && test.message.contains("probably wrong"), "{}", test.message);
        }
    }

    #[test]
    fn a_refusal_gives_the_courtiers_reason_not_policy_denied() {
        let denied = Some(ToolCode::Call(CallCode::PolicyDenied));
        let test = verdict("p__list".into(), &ended(JournalOutcome::Refused, denied, Some(Refusal::NeedsSetup)));
        assert_eq!(test.code, Some(SpecCode::Refusal(Refusal::NeedsSetup)));
        assert_eq!(test.message, "A required setting or secret is missing. Fill it in and save.");
    }

    #[test]
    fn other_failures_keep_their_code() {
        let timeout = ToolCode::Call(CallCode::Timeout);
        let test = verdict("p__list".into(), &ended(JournalOutcome::Failed, Some(timeout), None));
        assert_eq!(test.code, Some(SpecCode::Tool(timeout)));
        assert_eq!(test.message, "The service did not answer within 20 seconds. Try again later.");
    }
}
