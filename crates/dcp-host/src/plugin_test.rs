//! Options' Test button (§18): is the plugin set up right? One harmless
//! call answers it: the first action that is on and only reads (R0 or R1;
//! for a program on this PC, as its author declared it: see [`reads_only`])
//! whose required arguments its schema fills (see [`arguments_of`]), called
//! as the player would by text with an AI on this PC (so the online-AI
//! choice cannot refuse it). The call is journaled as a test
//! ([`Source::Test`], issue 23), never as the player's voice or keyboard.
//! When every such action needs a value its schema does not give (the
//! exchange-rates example's `amount`), nothing is called and the answer
//! says which action needs which arguments. It reports facts (the action,
//! connected or not, the code, what is needed); the window words them.

use crate::dto::{CallOutcome, PluginTest};
use crate::JournalOutcome;
use crate::{ApiResult, Host, Place, Source, Turn};
use dcp_format::codes::SpecCode;
use dcp_format::model::{Plugin, Target, Tool};
use dcp_format::risk::{compute, Level};
use dcp_store::StoreError;
use serde_json::{Map, Value};

impl Host {
    /// Tests a plugin with one harmless call (Options' Test button).
    pub async fn test_plugin(&self, slug: &str) -> ApiResult<PluginTest> {
        let owned = slug.to_owned();
        let plan = self
            .read(move |s| {
                let context = s.call_context(&owned)?.ok_or_else(|| StoreError::UnknownPlugin(owned.clone()))?;
                Ok(context.plugin.as_deref().map_or(Plan::Nothing, |p| plan(p, &context.tools_off)))
            })
            .await?;
        match plan {
            Plan::Nothing => Ok(PluginTest { action: None, ok: false, code: None, family: None, needs: None }),
            Plan::Needs { action, arguments } => {
                Ok(PluginTest { action: Some(action), ok: false, code: None, family: None, needs: Some(arguments) })
            }
            Plan::Call { action, args } => {
                let turn = Turn::new(Source::Test, Place::Pc);
                let outcome = self.call(turn, &action, args).await?;
                Ok(verdict(action, &outcome))
            }
        }
    }
}

/// What Test does with a plugin.
#[derive(Debug, PartialEq)]
enum Plan {
    /// Calls this action with these arguments.
    Call { action: String, args: Value },
    /// Calls nothing: the first action that only reads needs these arguments.
    Needs { action: String, arguments: Vec<String> },
    /// Calls nothing: no action that is on only reads.
    Nothing,
}

/// The first action that is on and only reads with its arguments filled;
/// else what the first that only reads needs; else nothing.
fn plan(plugin: &Plugin, tools_off: &[String]) -> Plan {
    let mut first_needing = None;
    for tool in plugin.tools.iter().filter(|t| !tools_off.contains(&t.name) && reads_only(t)) {
        match arguments_of(tool) {
            Ok(args) => return Plan::Call { action: tool.full_name.to_string(), args },
            Err(missing) => {
                first_needing.get_or_insert_with(|| (tool.full_name.to_string(), missing));
            }
        }
    }
    first_needing.map_or(Plan::Nothing, |(action, arguments)| Plan::Needs { action, arguments })
}

/// Whether `tool` only reads: R0 or R1 by §12's rules about what its
/// author declared (risk, side effects) and its method. A request to a
/// program on this PC is R2 whatever it does (§12 rule 4, so that the
/// Twitch chat never triggers it), but a GET its author declared without
/// side effects reads all the same, and the player pressing Test is the
/// one who may run it; every PC plugin used to have nothing to test.
fn reads_only(tool: &Tool) -> bool {
    let by_its_author = match &tool.request.target {
        Target::Local { .. } => {
            compute(tool.declared_risk, tool.side_effects, tool.request.method, &Target::Web { host: String::new() })
        }
        Target::Web { .. } => tool.level,
    };
    by_its_author <= Level::R1
}

/// The arguments Test sends: each required one with its schema's
/// `default`, else the first of its `enum` (values the author wrote, so
/// valid ones); optional ones are left out, as an AI may. Err: the
/// required arguments with neither, which Test does not make up.
fn arguments_of(tool: &Tool) -> Result<Value, Vec<String>> {
    let mut args = Map::new();
    let mut missing = Vec::new();
    for argument in tool.arguments.iter().filter(|a| a.required) {
        let given = argument.default.clone().or_else(|| argument.enum_values.as_ref()?.first().cloned());
        match given {
            Some(value) => {
                args.insert(argument.name.clone(), value);
            }
            None => missing.push(argument.name.clone()),
        }
    }
    if missing.is_empty() {
        Ok(Value::Object(args))
    } else {
        Err(missing)
    }
}

/// What a test call found: connected, or the code a player acts on.
fn verdict(action: String, outcome: &CallOutcome) -> PluginTest {
    if outcome.outcome == JournalOutcome::Done {
        return PluginTest { action: Some(action), ok: true, code: None, family: None, needs: None };
    }
    // A refusal's reason says more than POLICY_DENIED.
    let code = outcome.reason.map(SpecCode::Refusal).or(outcome.code.map(SpecCode::Tool));
    PluginTest { action: Some(action), ok: false, code, family: code.and_then(SpecCode::tool_family), needs: None }
}

#[cfg(test)]
mod tests {
    use super::verdict;
    use crate::dto::CallOutcome;
    use crate::JournalOutcome;
    use dcp_format::codes::{CallCode, Refusal, SpecCode, ToolCode, ToolFamily};

    fn ended(outcome: JournalOutcome, code: Option<ToolCode>, reason: Option<Refusal>) -> CallOutcome {
        CallOutcome::new(outcome, code, reason, false, String::new())
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
            assert_eq!(test.family, Some(code.family()), "the window words it by its family (issue 33)");
        }
    }

    #[test]
    fn a_refusal_gives_the_courtiers_reason_not_policy_denied() {
        let denied = Some(ToolCode::Call(CallCode::PolicyDenied));
        let test = verdict("p__list".into(), &ended(JournalOutcome::Refused, denied, Some(Refusal::NeedsSetup)));
        assert_eq!((test.ok, test.code), (false, Some(SpecCode::Refusal(Refusal::NeedsSetup))));
        assert_eq!(test.family, Some(ToolFamily::Refused), "worded with its reason (issue 33)");
    }

    #[test]
    fn other_failures_keep_their_code() {
        let timeout = ToolCode::Call(CallCode::Timeout);
        let test = verdict("p__list".into(), &ended(JournalOutcome::Failed, Some(timeout), None));
        assert_eq!((test.ok, test.code), (false, Some(SpecCode::Tool(timeout))));
    }
}
