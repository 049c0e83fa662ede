//! The courtier (§12, §13, §22 "Refusals"): every call is approved or
//! refused before anything is built or sent, with the exact reasons of §22.
//!
//! The checks run in this order, so the reason given is the one the player
//! can act on first: the turn (not_requested, step_limit), the tool's existence
//! (unknown_tool), the app switches (tools_off, plugin_off), the plugin's
//! status (plugin_off, dev_mode_off, needs_setup), the action's switch, then
//! the rules of the action's level (twitch_level, needs_confirmation,
//! cloud_blocked, stream_private): a chat turn hears the chat's rule, which
//! no confirmation would lift. An R3 action passes only where the
//! player can be asked and asked for it by voice or keyboard: the pipeline
//! then stops before sending and asks. The chat's one call per turn
//! (twitch_quota) needs the profile and is counted by the pipeline last.

use crate::turn::{Place, Source, Turn};
use dcp_format::limits::STEPS_PER_TURN;
use dcp_format::model::Tool;
use dcp_format::risk::Level;
use dcp_store::{CallContext, Status};

/// A reason of §22 "Refusals", with its texts for the AI and the player.
pub use dcp_format::codes::Refusal;

/// Decides whether `tool` of the plugin `ctx` may run in `turn` (all but
/// the chat's quota). `tool` is `None` when the name is not an installed tool.
/// The app switches are those read with the plugin.
pub fn may_run(turn: &Turn, ctx: Option<&CallContext>, tool: Option<&Tool>) -> Result<(), Refusal> {
    if matches!(turn.source, Source::Auto | Source::Event) {
        return Err(Refusal::NotRequested);
    }
    if !within_steps(turn) {
        return Err(Refusal::StepLimit);
    }
    let Some(ctx) = ctx else { return Err(Refusal::UnknownTool) };
    if !ctx.prefs.tools_enabled {
        return Err(Refusal::ToolsOff);
    }
    match ctx.status {
        Status::Missing | Status::Invalid | Status::Modified | Status::Off => return Err(Refusal::PluginOff),
        Status::DevModeOff => return Err(Refusal::DevModeOff),
        Status::NeedsSetup => return Err(Refusal::NeedsSetup),
        Status::ToolsOff => return Err(Refusal::ToolsOff),
        Status::Active => {}
    }
    let Some(tool) = tool else { return Err(Refusal::UnknownTool) };
    if ctx.tools_off.contains(&tool.name) {
        return Err(Refusal::PluginOff);
    }
    let reads_private = ctx.plugin.as_ref().is_some_and(|p| p.reads_private_data());
    // A viewer's turn is told the chat's own rule first (issue 36): no
    // confirmation could let a chat message run more than R0.
    if turn.source == Source::Twitch && tool.level != Level::R0 {
        return Err(Refusal::TwitchLevel);
    }
    if tool.level.needs_confirmation() && !may_ask(turn, tool.level) {
        return Err(Refusal::NeedsConfirmation);
    }
    if turn.model == Place::Online && ctx.kept_on_pc && reads_private {
        return Err(Refusal::CloudBlocked);
    }
    if turn.live && tool.level == Level::R1 && !ctx.twitch_allowed {
        return Err(Refusal::StreamPrivate);
    }
    Ok(())
}

/// The turn's step is one of its [`STEPS_PER_TURN`]: the only thing the
/// courtier reads of the step (the host keeps a turn's offer from one step
/// to the next on it).
pub fn within_steps(turn: &Turn) -> bool {
    turn.step.unwrap_or(1) as usize <= STEPS_PER_TURN
}

/// An action of `level` may run once the player confirms it: R3 (R4 is
/// reserved for official plugins), on a turn of the player's own (voice,
/// keyboard, an AI app of theirs through `dcplugin mcp`, or a test they
/// run; never the Twitch chat, the companion on its own or an event) whose
/// caller can ask.
pub fn may_ask(turn: &Turn, level: Level) -> bool {
    level == Level::R3
        && turn.can_confirm
        && matches!(turn.source, Source::Voice | Source::Keyboard | Source::Mcp | Source::Test)
}
