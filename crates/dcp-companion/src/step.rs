//! What one tool step of a turn runs (§3, §17 "Design for small AI
//! models"): pure decisions over the calls the AI asked for, so they are
//! tested without a network. With an AI on the PC only the first call of a
//! step runs; online, at most [`CALLS_PER_STEP`] (issue 32); the same call
//! with the same arguments runs once per turn; arguments that are not JSON
//! go back as INVALID_ARGUMENTS without a call; after the last step no
//! tools are offered. A call not run is answered all the same, so the
//! transcript stays valid (every call id answered).

use dcp_format::codes::{CallCode, Refusal, ToolCode};
use dcp_format::limits::{CALLS_PER_STEP, STEPS_PER_TURN};
use dcp_host::JournalOutcome;
use serde_json::Value;

/// One call the AI asked for, its arguments read (or why they could not be).
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The call's id (the tool message answers it).
    pub id: String,
    /// The tool name the AI gave.
    pub name: String,
    /// The arguments, or what is wrong with them ("the arguments are not
    /// JSON (…)").
    pub args: Result<Value, String>,
}

/// What to do with one call of a step, in the order asked.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Run it through the host.
    Run {
        /// The call's id.
        id: String,
        /// The tool name.
        name: String,
        /// The arguments.
        args: Value,
    },
    /// Do not run it: answer the AI with `text`.
    Answer {
        /// The call's id.
        id: String,
        /// The tool name.
        name: String,
        /// The arguments as given (`null` when they were not JSON).
        args: Value,
        /// Failed (the AI's arguments) or refused (the engine's rules).
        outcome: JournalOutcome,
        /// `INVALID_ARGUMENTS` for arguments that are not JSON.
        code: Option<ToolCode>,
        /// Why the engine did not run it: `one_action_per_step`,
        /// `call_limit` or `repeated_call` (the AI reads its
        /// [`Refusal::for_ai`]).
        reason: Option<Refusal>,
        /// What the AI reads as the tool message.
        text: String,
    },
}

/// A turn's tool steps: how many are used, and the calls already run.
#[derive(Debug, Clone)]
pub struct Steps {
    used: usize,
    one_per_step: bool,
    run: Vec<(String, Value)>,
}

impl Steps {
    /// A new turn's steps; `one_per_step` for an AI on the PC.
    pub fn new(one_per_step: bool) -> Steps {
        Steps { used: 0, one_per_step, run: Vec::new() }
    }

    /// Steps used so far.
    pub fn used(&self) -> u32 {
        self.used as u32
    }

    /// Whether the next request may offer tools: false after the last step,
    /// when only the answer is asked for.
    pub fn tools_allowed(&self) -> bool {
        self.used < STEPS_PER_TURN
    }

    /// The next step: what to do with each call asked for in it. The step
    /// counts even when nothing of it runs.
    pub fn plan(&mut self, calls: Vec<Asked>) -> Vec<Action> {
        self.used += 1;
        let mut ran = 0;
        calls
            .into_iter()
            .map(|call| {
                let args = match call.args {
                    Err(wrong) => {
                        return Action::Answer {
                            id: call.id,
                            name: call.name,
                            args: Value::Null,
                            outcome: JournalOutcome::Failed,
                            code: Some(CallCode::InvalidArguments.into()),
                            reason: None,
                            text: format!("INVALID_ARGUMENTS: {wrong}. You may retry."),
                        }
                    }
                    Ok(args) => args,
                };
                let not_run = |reason: Refusal| Action::Answer {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    args: args.clone(),
                    outcome: JournalOutcome::Refused,
                    code: None,
                    reason: Some(reason),
                    text: reason.for_ai(),
                };
                if self.one_per_step && ran > 0 {
                    return not_run(Refusal::OneActionPerStep);
                }
                if ran >= CALLS_PER_STEP {
                    return not_run(Refusal::CallLimit);
                }
                let key = (call.name.clone(), args.clone());
                if self.run.contains(&key) {
                    return not_run(Refusal::RepeatedCall);
                }
                self.run.push(key);
                ran += 1;
                Action::Run { id: call.id, name: call.name, args }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn asked(id: &str, name: &str, args: Result<Value, String>) -> Asked {
        Asked { id: id.into(), name: name.into(), args }
    }

    fn ran(actions: &[Action]) -> Vec<&str> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Run { id, .. } => Some(id.as_str()),
                Action::Answer { .. } => None,
            })
            .collect()
    }

    fn reasons(actions: &[Action]) -> Vec<Option<Refusal>> {
        actions
            .iter()
            .map(|a| match a {
                Action::Run { .. } => None,
                Action::Answer { reason, .. } => *reason,
            })
            .collect()
    }

    #[test]
    fn an_ai_on_the_pc_runs_the_first_call_of_a_step_only() {
        let mut steps = Steps::new(true);
        let plan =
            steps.plan(vec![asked("a", "fx__rate", Ok(json!({}))), asked("b", "fx__convert", Ok(json!({"n": 1})))]);
        assert_eq!(ran(&plan), ["a"]);
        assert_eq!(reasons(&plan), [None, Some(Refusal::OneActionPerStep)]);
        let Action::Answer { text, outcome, .. } = &plan[1] else { unreachable!("planned above") };
        assert_eq!(
            (text.as_str(), *outcome),
            (
                "not run: one action per step. Ask for it again in the next step if it is still needed.",
                JournalOutcome::Refused
            )
        );
    }

    #[test]
    fn online_every_call_of_a_step_runs() {
        let mut steps = Steps::new(false);
        let plan = steps.plan(vec![asked("a", "fx__rate", Ok(json!({}))), asked("b", "fx__convert", Ok(json!({})))]);
        assert_eq!(ran(&plan), ["a", "b"]);
    }

    /// Issue 32: online, a step runs at most [`CALLS_PER_STEP`] calls; the
    /// others are answered `call_limit`, a repeated or broken call takes no
    /// place, and the next step runs again.
    #[test]
    fn online_a_step_runs_at_most_five_calls() {
        let mut steps = Steps::new(false);
        let mut calls = vec![asked("bad", "x__y", Err("not JSON".into()))];
        calls.extend((0..200).map(|n| asked(&format!("c{n}"), "x__note", Ok(json!({"n": n})))));
        let plan = steps.plan(calls);
        assert_eq!(plan.len(), 201, "every call is answered");
        assert_eq!(ran(&plan), ["c0", "c1", "c2", "c3", "c4"]);
        assert_eq!(CALLS_PER_STEP, 5);
        assert!(reasons(&plan)[6..].iter().all(|r| *r == Some(Refusal::CallLimit)));
        let Action::Answer { text, outcome, .. } = &plan[6] else { unreachable!("past the cap") };
        assert_eq!(
            (text.as_str(), *outcome),
            (
                "not run: too many actions in one step. Ask for it again in the next step if it is still needed.",
                JournalOutcome::Refused
            )
        );
        let next = steps.plan((5..12).map(|n| asked(&format!("d{n}"), "x__note", Ok(json!({"n": n})))).collect());
        assert_eq!(ran(&next), ["d5", "d6", "d7", "d8", "d9"]);
    }

    #[test]
    fn the_same_call_with_the_same_arguments_runs_once_per_turn() {
        let mut steps = Steps::new(false);
        assert_eq!(ran(&steps.plan(vec![asked("a", "fx__convert", Ok(json!({"n": 1, "to": "EUR"})))])), ["a"]);
        let again = steps.plan(vec![
            asked("b", "fx__convert", Ok(json!({"to": "EUR", "n": 1}))),
            asked("c", "fx__convert", Ok(json!({"n": 2, "to": "EUR"}))),
            asked("d", "fx__convert", Ok(json!({"n": 2, "to": "EUR"}))),
        ]);
        assert_eq!(ran(&again), ["c"]);
        assert_eq!(reasons(&again), [Some(Refusal::RepeatedCall), None, Some(Refusal::RepeatedCall)]);
    }

    #[test]
    fn arguments_that_are_not_json_go_back_as_invalid_arguments() {
        let mut steps = Steps::new(true);
        let plan = steps.plan(vec![asked(
            "a",
            "fx__convert",
            Err("the arguments are not JSON (expected value at line 1)".into()),
        )]);
        let Action::Answer { code, outcome, text, args, .. } = &plan[0] else { unreachable!("not JSON is never run") };
        assert_eq!(
            (*code, *outcome, args),
            (Some(CallCode::InvalidArguments.into()), JournalOutcome::Failed, &Value::Null)
        );
        assert!(text.starts_with("INVALID_ARGUMENTS: ") && text.contains("expected value"), "{text}");
        // A broken call takes no place: the next call of the step still runs.
        let plan = steps.plan(vec![asked("b", "x__y", Err("bad".into())), asked("c", "x__y", Ok(json!({})))]);
        assert_eq!(ran(&plan), ["c"]);
    }

    #[test]
    fn after_the_last_step_no_tools_are_offered() {
        let mut steps = Steps::new(true);
        for n in 0..STEPS_PER_TURN {
            assert!(steps.tools_allowed(), "step {n}");
            steps.plan(vec![asked(&n.to_string(), "x__y", Ok(json!({"n": n})))]);
        }
        assert!(!steps.tools_allowed());
        assert_eq!(steps.used(), STEPS_PER_TURN as u32);
    }
}
