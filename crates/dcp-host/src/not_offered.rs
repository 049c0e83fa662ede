//! What the companion is not offered, and why, as the window lists it (§24
//! "Why is my plugin never used?", issue 23): the part of the offer left
//! out of the player's next typed turn, on the AI set now. The window
//! words each reason from its code and offers what fixes it.

use crate::{ApiResult, Host, Place, Refusal, Source, Turn};
use dcp_call::offer::LeftOut;
use serde::Serialize;

/// A plugin, or one of its actions, the companion is not offered, and why.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotOffered {
    /// The plugin's slug.
    pub plugin: String,
    /// The action's name in the plugin; none when the whole plugin is left out.
    pub tool: Option<String>,
    /// The courtier's reason (§22's refusals: `tools_off`, `plugin_off`,
    /// `needs_setup`, `cloud_blocked`, `stream_private`, …), or
    /// `tool_limit`: beyond the 30 tools offered (§21).
    pub reason: Refusal,
}

impl From<LeftOut> for NotOffered {
    fn from(left: LeftOut) -> NotOffered {
        NotOffered { plugin: left.plugin, tool: left.tool, reason: left.reason }
    }
}

impl Host {
    /// What a keyboard turn would not be offered now, and why: the offer of
    /// the AI set now (§13: an online one leaves out what is kept on this
    /// PC; none set counts as one on this PC, which leaves out nothing for
    /// that), `live` on Twitch or not (§12). `can_confirm`: the caller can
    /// ask the player to confirm an R3 action (the window can); without it
    /// R3 actions are listed `needs_confirmation`.
    pub async fn not_offered(&self, live: bool, can_confirm: bool) -> ApiResult<Vec<NotOffered>> {
        let model = self.ai().await?.place.unwrap_or(Place::Pc);
        let turn = Turn { live, can_confirm, ..Turn::new(Source::Keyboard, model) };
        Ok(self.offer(turn).await?.left_out.into_iter().map(Into::into).collect())
    }
}
