//! The courtier (§12, §13, §22 "Refusals"): every call is approved or
//! refused before anything is built or sent, with the exact reasons of §22.
//!
//! The checks run in this order, so the reason given is the one the player
//! can act on first: the turn (not_requested, step_limit), the tool's existence
//! (unknown_tool), the app switches (tools_off, plugin_off), the plugin's
//! status (plugin_off, dev_mode_off, needs_setup), the action's switch, then
//! the rules of the action's level (needs_confirmation, cloud_blocked,
//! twitch_level, stream_private). The chat's one call per turn
//! (twitch_quota) needs the profile and is counted by the pipeline last.

use crate::turn::{Model, Source, Turn};
use dcp_format::limits::STEPS_PER_TURN;
use dcp_format::model::Tool;
use dcp_format::risk::Level;
use dcp_store::{CallContext, Status};
use serde::Serialize;

/// A reason of §22 "Refusals".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // each variant is the spec's reason of the same name
pub enum Reason {
    ToolsOff,
    PluginOff,
    NeedsSetup,
    CloudBlocked,
    NeedsConfirmation,
    TwitchLevel,
    TwitchQuota,
    NotRequested,
    UnknownTool,
    DevModeOff,
    StreamPrivate,
    /// Not in §22: the turn already used its 5 tool steps (§3, §21).
    StepLimit,
}

impl Reason {
    /// The reason as written in §22.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::ToolsOff => "tools_off",
            Reason::PluginOff => "plugin_off",
            Reason::NeedsSetup => "needs_setup",
            Reason::CloudBlocked => "cloud_blocked",
            Reason::NeedsConfirmation => "needs_confirmation",
            Reason::TwitchLevel => "twitch_level",
            Reason::TwitchQuota => "twitch_quota",
            Reason::NotRequested => "not_requested",
            Reason::UnknownTool => "unknown_tool",
            Reason::DevModeOff => "dev_mode_off",
            Reason::StreamPrivate => "stream_private",
            Reason::StepLimit => "step_limit",
        }
    }

    /// A short explanation the AI can pass on to the player.
    pub fn explain(self) -> String {
        match self {
            Reason::ToolsOff => "Tools are turned off: the player can turn on Enable tools in the Tools tab.".into(),
            Reason::PluginOff => "This plugin or action is switched off, or its file changed or no longer passes the checks: the player can turn it on in Plugins; an imported plugin whose file changed is imported again, and a plugin loaded from a folder is fixed and saved.".into(),
            Reason::NeedsSetup => "This plugin needs setup: the player must fill in its settings (Options on its card).".into(),
            Reason::CloudBlocked => "The player keeps this plugin on this PC: it is not used with online AI models. They can allow it in the plugin's details.".into(),
            Reason::NeedsConfirmation => "This is a serious action that needs a confirmation window, which is not available yet.".into(),
            Reason::TwitchLevel => "The Twitch chat may only use actions that read public data.".into(),
            Reason::TwitchQuota => "The Twitch chat already used its one action for this message.".into(),
            Reason::NotRequested => "No action runs on a turn the player did not ask for.".into(),
            Reason::UnknownTool => "There is no installed action with this name.".into(),
            Reason::DevModeOff => "This plugin needs developer mode, which is off.".into(),
            Reason::StreamPrivate => "The player is live on Twitch: actions that read their data are paused. They can allow this plugin during streams in its details.".into(),
            Reason::StepLimit => format!("This turn already used its {STEPS_PER_TURN} tool steps: answer the user with what you have."),
        }
    }

    /// How the reason is worded for the player where an action is left out
    /// (§12, §13, §18 labels).
    pub fn for_player(self) -> String {
        match self {
            Reason::NeedsSetup => "Needs setup".into(),
            Reason::CloudBlocked => "Kept on this PC: not used with online AI models".into(),
            Reason::StreamPrivate => "Live on Twitch: reading your data is paused".into(),
            Reason::NeedsConfirmation => "needs a confirmation (coming soon)".into(),
            Reason::PluginOff | Reason::ToolsOff => "off".into(),
            Reason::DevModeOff => "Developer mode off".into(),
            Reason::TwitchLevel => "not for the Twitch chat (only actions that read public data)".into(),
            Reason::NotRequested => "no actions on a turn the player did not ask for".into(),
            Reason::StepLimit => format!("this turn already used its {STEPS_PER_TURN} tool steps"),
            Reason::TwitchQuota | Reason::UnknownTool => self.explain(),
        }
    }
}

/// Decides whether `tool` of the plugin `ctx` may run in `turn` (all but
/// the chat's quota). `tool` is `None` when the name is not an installed tool.
/// The app switches are those read with the plugin.
pub fn may_run(turn: &Turn, ctx: Option<&CallContext>, tool: Option<&Tool>) -> Result<(), Reason> {
    if matches!(turn.source, Source::Auto | Source::Event) {
        return Err(Reason::NotRequested);
    }
    if turn.step.unwrap_or(1) as usize > STEPS_PER_TURN {
        return Err(Reason::StepLimit);
    }
    let Some(ctx) = ctx else { return Err(Reason::UnknownTool) };
    if !ctx.prefs.tools_enabled {
        return Err(Reason::ToolsOff);
    }
    match ctx.status {
        Status::Missing | Status::Invalid | Status::Modified | Status::Off => return Err(Reason::PluginOff),
        Status::DevModeOff => return Err(Reason::DevModeOff),
        Status::NeedsSetup => return Err(Reason::NeedsSetup),
        Status::ToolsOff => return Err(Reason::ToolsOff),
        Status::Active => {}
    }
    let Some(tool) = tool else { return Err(Reason::UnknownTool) };
    if ctx.tools_off.contains(&tool.name) {
        return Err(Reason::PluginOff);
    }
    let reads_private = ctx.plugin.as_ref().is_some_and(|p| p.reads_private_data());
    if tool.level.needs_confirmation() {
        return Err(Reason::NeedsConfirmation);
    }
    if turn.model == Model::Online && ctx.kept_on_pc && reads_private {
        return Err(Reason::CloudBlocked);
    }
    if turn.source == Source::Twitch && tool.level != Level::R0 {
        return Err(Reason::TwitchLevel);
    }
    if turn.live && tool.level == Level::R1 && !ctx.twitch_allowed {
        return Err(Reason::StreamPrivate);
    }
    Ok(())
}
