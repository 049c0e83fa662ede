//! The consent screen as it crosses to a shell (§3 Consent, §12, §13,
//! §15, §16, §18 "Update this plugin?"): the store's review, converted.

use super::{CloudChoice, Origin, SettingView};
use dcp_format::changes::PermissionChange;
use dcp_format::risk::Level;
use dcp_format::Problem;
use serde::Serialize;

/// The consent screen.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    /// The review's id, for install and cancel.
    pub review: String,
    /// The plugin's slug.
    pub slug: String,
    /// Name shown to players.
    pub name: String,
    /// Version.
    pub version: String,
    /// "by …".
    pub author: Option<String>,
    /// One-line description.
    pub description: Option<String>,
    /// Where it comes from.
    pub origin: Origin,
    /// True when a plugin with this slug is installed: "Update this plugin?".
    pub update: bool,
    /// The installed version, for an update.
    pub old_version: Option<String>,
    /// True when an update changes permissions (§18).
    pub permissions_changed: bool,
    /// What changed, each a kind and its parameters, for each shell to
    /// word in its own language (§10, §18).
    pub permission_changes: Vec<PermissionChange>,
    /// The actions.
    pub actions: Vec<ReviewAction>,
    /// "Connects to".
    pub sites: Vec<String>,
    /// "This PC · port N": the ports of programs on this PC it talks to
    /// (§15); each shell adds §15's warning in its words.
    pub local_ports: Vec<u16>,
    /// The settings to fill in.
    pub settings: Vec<SettingView>,
    /// The events, each with its switch (off).
    pub events: Vec<ReviewEvent>,
    /// For a plugin with events: the port they arrive on (§16); each shell
    /// adds §16's warning in its words.
    pub events_door: Option<u16>,
    /// The online-AI question, when it applies (§13); asked again by an
    /// update that widens where private data may go.
    pub cloud: CloudQuestion,
    /// For an update: the earlier answer that still applies, used when the
    /// player gives none (preselected).
    pub cloud_kept: Option<CloudChoice>,
    /// Warnings of the validator (superlative).
    pub warnings: Vec<Problem>,
    /// An update whose manifest is, byte for byte, the one installed:
    /// installing it again changes nothing (a Modified or Missing copy is restored).
    pub same_manifest: bool,
}

impl From<dcp_store::review::Review> for Review {
    fn from(v: dcp_store::review::Review) -> Review {
        Review {
            review: v.review,
            slug: v.slug,
            name: v.name,
            version: v.version,
            author: v.author,
            description: v.description,
            origin: v.origin.into(),
            update: v.update,
            old_version: v.old_version,
            permissions_changed: v.permissions_changed,
            permission_changes: v.permission_changes,
            actions: v.actions.into_iter().map(Into::into).collect(),
            sites: v.sites,
            local_ports: v.local_ports,
            settings: v.settings.into_iter().map(Into::into).collect(),
            events: v.events.into_iter().map(Into::into).collect(),
            events_door: v.events_door,
            cloud: v.cloud.into(),
            cloud_kept: v.cloud_kept.map(Into::into),
            warnings: v.warnings,
            same_manifest: v.same_manifest,
        }
    }
}

/// One action on the consent screen.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct ReviewAction {
    /// `<slug>__<tool>`.
    pub full_name: String,
    /// The computed level.
    pub level: Level,
    /// The hint in the player's language, else English.
    pub hint: String,
    /// HTTP method.
    pub method: &'static str,
    /// URL template.
    pub url: String,
    /// R3: installs, but is not offered yet (§12 note 1).
    pub needs_confirmation: bool,
    /// The arguments the action cannot be called without (`required` of its
    /// inputSchema, §7), in schema order: empty for an action that needs none.
    pub required_args: Vec<String>,
}

impl From<dcp_store::review::ReviewAction> for ReviewAction {
    fn from(v: dcp_store::review::ReviewAction) -> ReviewAction {
        ReviewAction {
            full_name: v.full_name,
            level: v.level,
            hint: v.hint,
            method: v.method,
            url: v.url,
            needs_confirmation: v.needs_confirmation,
            required_args: v.required_args,
        }
    }
}

/// The consent screen's setting is the one Options shows: a value kept
/// by an update is the one already `set`, and the field starts with the
/// manifest's default.
impl From<dcp_store::review::ReviewSetting> for SettingView {
    fn from(v: dcp_store::review::ReviewSetting) -> SettingView {
        SettingView {
            key: v.key,
            kind: v.kind,
            min: v.min,
            max: v.max,
            label: v.title,
            description: v.description,
            help_url: v.help_url,
            help_domain: v.help_domain,
            required: v.required,
            secret: v.secret,
            set: v.kept,
            value: v.default,
        }
    }
}

/// One event on the consent screen (§16).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct ReviewEvent {
    /// Event name.
    pub name: String,
    /// Title in the player's language, else English.
    pub title: String,
    /// Its switch: off for a new event.
    pub on: bool,
}

impl From<dcp_store::review::ReviewEvent> for ReviewEvent {
    fn from(v: dcp_store::review::ReviewEvent) -> ReviewEvent {
        ReviewEvent { name: v.name, title: v.title, on: v.on }
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

impl From<dcp_store::review::CloudQuestion> for CloudQuestion {
    fn from(q: dcp_store::review::CloudQuestion) -> CloudQuestion {
        use dcp_store::review::CloudQuestion as Q;
        match q {
            Q::NotAsked => CloudQuestion::NotAsked,
            Q::Ask => CloudQuestion::Ask,
            Q::Never => CloudQuestion::Never,
        }
    }
}
