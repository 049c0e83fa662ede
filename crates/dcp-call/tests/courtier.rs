//! §12, §13, §22 "Refusals": who may trigger what, table-driven over the
//! courtier's public API, and what a turn offers (§3, §17).

mod catalog;

use dcp_call::courtier::{may_run, Refusal};
use dcp_call::offer::offer;
use dcp_call::turn::{Place, Source, Turn};
use dcp_format::language::Language;
use dcp_store::{CallContext, Prefs, Status};
use serde_json::{json, Value};
use std::sync::Arc;

/// A plugin with one tool at each level R0–R3, reading private data (R1).
fn manifest() -> Value {
    let tool = |risk: &str, method: &str| {
        json!({ "description": "Read or change the user's list.", "hint": { "en": "use your list" }, "risk": risk,
                "request": { "method": method, "url": "https://api.example.com/x" } })
    };
    json!({ "name": "levels", "version": "1.0.0", "_meta": { "com.desktopaicompanion": {
        "apiVersion": 1, "kind": "declarative", "slug": "levels",
        "permissions": { "network": { "hosts": ["api.example.com"] } },
        "tools": { "r0": tool("R0", "GET"), "r1": tool("R1", "GET"), "r2": tool("R2", "POST"), "r3": tool("R0", "DELETE") }
    } } })
}

fn ctx() -> CallContext {
    catalog::active(&manifest(), Language::En)
}

fn prefs() -> Prefs {
    ctx().prefs
}

fn turn(source: Source) -> Turn {
    Turn::new(source, Place::Pc)
}

fn check(turn: &Turn, ctx: &CallContext, tool: &str) -> Result<(), Refusal> {
    let p = ctx.plugin.as_ref().and_then(|p| p.tool(tool).cloned());
    may_run(turn, Some(ctx), p.as_ref())
}

#[test]
fn s12_who_may_trigger_what() {
    let c = ctx();
    // The player's voice or keyboard, an AI app of theirs (`dcplugin
    // mcp`), or a test they run (Options' Test, Try an action, `dcplugin
    // call`): R0–R2, and R3 only where the caller can ask the player.
    for source in [Source::Voice, Source::Keyboard, Source::Mcp, Source::Test] {
        assert_eq!(check(&turn(source), &c, "r0"), Ok(()));
        assert_eq!(check(&turn(source), &c, "r1"), Ok(()));
        assert_eq!(check(&turn(source), &c, "r2"), Ok(()));
        assert_eq!(check(&turn(source), &c, "r3"), Err(Refusal::NeedsConfirmation));
        assert_eq!(check(&Turn { can_confirm: true, ..turn(source) }, &c, "r3"), Ok(()), "{source:?}");
    }
    let asking_chat = Turn { can_confirm: true, ..turn(Source::Twitch) };
    // Issue 36: a viewer's turn hears the chat's rule, which no confirmation lifts.
    assert_eq!(check(&asking_chat, &c, "r3"), Err(Refusal::TwitchLevel), "never the chat");
    assert_eq!(check(&turn(Source::Twitch), &c, "r3"), Err(Refusal::TwitchLevel));
    // The Twitch chat: R0 only.
    assert_eq!(check(&turn(Source::Twitch), &c, "r0"), Ok(()));
    assert_eq!(check(&turn(Source::Twitch), &c, "r1"), Err(Refusal::TwitchLevel));
    assert_eq!(check(&turn(Source::Twitch), &c, "r2"), Err(Refusal::TwitchLevel));
    // Auto-speak and events: nothing.
    for source in [Source::Auto, Source::Event] {
        for tool in ["r0", "r1", "r2", "r3"] {
            assert_eq!(check(&turn(source), &c, tool), Err(Refusal::NotRequested));
        }
    }
}

#[test]
fn s12_stream_mode_pauses_r1_only_unless_allowed() {
    let live = Turn { live: true, ..turn(Source::Voice) };
    let mut c = ctx();
    assert_eq!(check(&live, &c, "r1"), Err(Refusal::StreamPrivate));
    assert_eq!(check(&live, &c, "r0"), Ok(()));
    assert_eq!(check(&live, &c, "r2"), Ok(()));
    c.twitch_allowed = true;
    assert_eq!(check(&live, &c, "r1"), Ok(()));
}

#[test]
fn s13_a_plugin_kept_on_this_pc_is_refused_with_an_online_model() {
    let online = Turn { model: Place::Online, ..turn(Source::Voice) };
    let mut c = ctx();
    c.kept_on_pc = true;
    assert_eq!(check(&online, &c, "r0"), Err(Refusal::CloudBlocked));
    assert_eq!(check(&turn(Source::Voice), &c, "r1"), Ok(()), "fine with an AI on this PC");
}

#[test]
fn s22_switches_statuses_and_names() {
    let t = turn(Source::Voice);
    let off = CallContext { prefs: Prefs { tools_enabled: false, ..prefs() }, ..ctx() };
    assert_eq!(check(&t, &off, "r0"), Err(Refusal::ToolsOff));
    for (status, reason) in [
        (Status::Off, Refusal::PluginOff),
        (Status::Modified, Refusal::PluginOff),
        (Status::Missing, Refusal::PluginOff),
        (Status::Invalid, Refusal::PluginOff),
        (Status::DevModeOff, Refusal::DevModeOff),
        (Status::NeedsSetup, Refusal::NeedsSetup),
    ] {
        let c = CallContext { status, ..ctx() };
        assert_eq!(check(&t, &c, "r0"), Err(reason), "{status:?}");
    }
    let c = CallContext { tools_off: vec!["r0".into()], ..ctx() };
    assert_eq!(check(&t, &c, "r0"), Err(Refusal::PluginOff), "one action switched off");
    assert_eq!(check(&t, &ctx(), "nope"), Err(Refusal::UnknownTool));
    assert_eq!(may_run(&t, None, None), Err(Refusal::UnknownTool));
}

#[test]
fn s17_offer_respects_the_30_tool_limit_with_builtin_tools_first() {
    let t = Turn { builtin: 28, ..turn(Source::Voice) };
    let o = offer(&t, &[Arc::new(ctx())]);
    let names: Vec<&str> = o.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["levels__r0", "levels__r1"]);
    let reasons: Vec<(Option<&str>, &str)> =
        o.left_out.iter().map(|l| (l.tool.as_deref(), l.reason.as_str())).collect();
    assert_eq!(reasons, vec![(Some("r2"), "tool_limit"), (Some("r3"), "needs_confirmation")]);
    assert_eq!(o.abilities, vec!["levels: use the user's list".to_owned(), "levels: use the user's list".to_owned()]);
    assert_eq!(o.tools[0].parameters, json!({ "type": "object", "properties": {}, "required": [] }));
}

#[test]
fn s16_an_event_or_auto_turn_offers_no_tool() {
    for source in [Source::Auto, Source::Event] {
        let o = offer(&turn(source), &[Arc::new(ctx())]);
        assert!(o.tools.is_empty());
        assert_eq!(o.left_out[0].reason, Refusal::NotRequested);
    }
}

#[test]
fn s3_a_turn_has_up_to_five_tool_steps() {
    for step in 1..=5 {
        let t = Turn { step: Some(step), ..turn(Source::Voice) };
        assert_eq!(check(&t, &ctx(), "r0"), Ok(()), "step {step}");
    }
    let sixth = Turn { step: Some(6), ..turn(Source::Voice) };
    assert_eq!(check(&sixth, &ctx(), "r0"), Err(Refusal::StepLimit));
    let o = offer(&sixth, &[Arc::new(ctx())]);
    assert!(o.tools.is_empty());
    let left: Vec<(Option<&str>, &str)> = o.left_out.iter().map(|l| (l.tool.as_deref(), l.reason.as_str())).collect();
    assert_eq!(left, vec![(None, "step_limit")], "the whole plugin is left out for the rest of the turn");
}

/// An action switched off is left out alone, whichever it is (the first
/// one too): the rest of the plugin is still offered.
#[test]
fn s12_an_action_switched_off_leaves_only_that_action_out() {
    for off in ["r0", "r1"] {
        let c = CallContext { tools_off: vec![off.to_owned()], ..ctx() };
        let o = offer(&turn(Source::Voice), &[Arc::new(c)]);
        let names: Vec<&str> = o.tools.iter().map(|t| t.name.as_str()).collect();
        let on: Vec<String> =
            ["r0", "r1", "r2"].iter().filter(|t| **t != off).map(|t| format!("levels__{t}")).collect();
        assert_eq!(names, on, "{off} off");
        let left: Vec<(Option<&str>, &str)> =
            o.left_out.iter().map(|l| (l.tool.as_deref(), l.reason.as_str())).collect();
        assert_eq!(left, vec![(Some(off), "plugin_off"), (Some("r3"), "needs_confirmation")], "{off} off");
    }
}
