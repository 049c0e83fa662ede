//! The online-AI question of §13, in one place: who is asked, what an
//! answer is, which answer an update keeps, and when a plugin is kept on
//! this PC. The review, install and the cards all ask this module.

use crate::error::StoreError;
use crate::registry::Row;
use dcp_format::fingerprint::Permissions;
use dcp_format::model::{CloudModels, Plugin};
use serde::Serialize;

dcp_format::spelled! {
    /// The answer to the online-AI question (§13), as stored and as
    /// `--cloud` takes it.
    pub enum CloudChoice {
        /// Allow with online AI models.
        Allow => "allow",
        /// Only with an AI running on this PC.
        Local => "local",
    }
}

/// The online-AI question of §13.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CloudQuestion {
    /// No R1 tool, or `cloudModels: allowed`: nothing asked.
    NotAsked,
    /// `ask`, or an update widening where private data may go: Allow
    /// (preselected, unless an earlier answer is kept) or Only with an AI
    /// running on this PC.
    Ask,
    /// `never`: works only with an AI on this PC; the screen says so.
    Never,
}

/// The online-AI question of §13 for `plugin` (whose permissions are
/// `new`), against the installed version's permissions for an update.
/// `allowed` asks nothing at first install, but an update that widens
/// where private data may go (never → ask or allowed, ask → allowed) asks
/// again: the player consented to less.
pub(crate) fn cloud_question(plugin: &Plugin, new: &Permissions, old: Option<&Permissions>) -> CloudQuestion {
    let widened = old.is_some_and(|old| new.widens_cloud_from(old));
    match plugin.cloud_models {
        _ if !plugin.reads_private_data() => CloudQuestion::NotAsked,
        CloudModels::Allowed if !widened => CloudQuestion::NotAsked,
        CloudModels::Allowed | CloudModels::Ask => CloudQuestion::Ask,
        CloudModels::Never => CloudQuestion::Never,
    }
}

/// The stored online-AI answer an update keeps (§18: "the online AI choice
/// is kept"), where it still applies. When the update widens where private
/// data may go, "Only on this PC" still applies (it can only narrow), and
/// "Allow" only if the installed version asked that very question (`ask`):
/// an "Allow" stored while the plugin said `never` never sent anything.
pub(crate) fn kept_cloud_choice(
    stored: Option<CloudChoice>,
    old: &Permissions,
    new: &Permissions,
) -> Option<CloudChoice> {
    let stored = stored?;
    let applies =
        !new.widens_cloud_from(old) || stored == CloudChoice::Local || old.cloud_models == Some(CloudModels::Ask);
    applies.then_some(stored)
}

/// The online-AI answer to store (§13): required when the review asks the
/// question (`ask`, or an update widening where private data may go) and
/// no earlier answer still applies; the earlier answer kept otherwise.
pub(crate) fn cloud_choice(
    plugin: &Plugin,
    permissions: &Permissions,
    given: Option<CloudChoice>,
    old: Option<&Row>,
) -> Result<Option<CloudChoice>, StoreError> {
    let kept = old.and_then(|o| kept_cloud_choice(o.cloud_choice, &o.permissions, permissions));
    let answer = given.or(kept);
    match cloud_question(plugin, permissions, old.map(|o| &o.permissions)) {
        CloudQuestion::Ask => answer.map(Some).ok_or(StoreError::CloudChoiceRequired),
        _ => Ok(answer),
    }
}

/// Kept on this PC (§13): the player answered "Only with an AI running on
/// this PC", or the plugin says `never`.
pub(crate) fn kept_on_pc(stored: Option<CloudChoice>, plugin: Option<&Plugin>) -> bool {
    stored == Some(CloudChoice::Local) || plugin.is_some_and(|p| p.cloud_models == CloudModels::Never)
}
