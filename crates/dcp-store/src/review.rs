//! The review: everything the consent screen shows for a package waiting in
//! quarantine (§3 Consent, §12 labels, §13 the online-AI question, §15 "This
//! PC · port N", §16 events, §18 "Update this plugin?").

pub use crate::cloud::CloudQuestion;
use crate::cloud::{cloud_question, kept_cloud_choice, CloudChoice};
use dcp_format::changes::PermissionChange;
use dcp_format::fingerprint::Permissions;
use dcp_format::language::Language;
use dcp_format::model::{Event, Plugin, Setting, Texts};
use dcp_format::risk::Level;
use dcp_format::Problem;
use serde::Serialize;

dcp_format::spelled! {
    /// Where a plugin comes from, which decides its badge; stored as
    /// spelled, and read back strictly (see `spelling`).
    pub enum Origin {
        /// Imported from a file: "Not signed".
        Import => "import",
        /// Loaded from a folder in developer mode: "Folder (dev)".
        Folder => "folder",
        /// Bundled with the app: "Official".
        Official => "official",
    }
}

impl Origin {
    /// Whether a plugin from here needs developer mode (§15, §19): a
    /// folder, or one that talks to a program on the PC.
    pub fn needs_dev_mode(self, talks_to_pc: bool) -> bool {
        self == Origin::Folder || talks_to_pc
    }
}

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
    pub events: Vec<EventView>,
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

/// A setting as the consent screen, Details and Options show it (§10,
/// §18), in the player's language: the one view of a setting, which the
/// review builds here and the host's details page with [`SettingView::new`].
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct SettingView {
    /// Key.
    pub key: String,
    /// string, number or boolean.
    pub kind: &'static str,
    /// For a number: the smallest value allowed.
    pub min: Option<f64>,
    /// For a number: the largest value allowed.
    pub max: Option<f64>,
    /// The title in the player's language, else the title.
    pub label: String,
    /// The help text in the player's language, else the description.
    pub description: Option<String>,
    /// The "where do I find it" link (never read by the AI).
    pub help_url: Option<String>,
    /// The help link's domain, which its button shows ("Open example.com").
    pub help_domain: Option<String>,
    /// Required to work (and so to install).
    pub required: bool,
    /// A secret: only set / not set, never its value.
    pub secret: bool,
    /// A value is stored: a secret that is set, or, on the consent screen
    /// of an update, a value the installed version keeps.
    pub set: bool,
    /// The value of a non-secret setting: stored, else its default (on the
    /// consent screen, its default).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub value: Option<serde_json::Value>,
}

impl SettingView {
    /// `setting` in `language`, with whether a value is `set` and the `value` shown.
    pub fn new(setting: &Setting, language: Language, set: bool, value: Option<serde_json::Value>) -> SettingView {
        SettingView {
            key: setting.key.clone(),
            kind: setting.kind.type_name(),
            min: setting.kind.bounds().0,
            max: setting.kind.bounds().1,
            label: setting.labels.get(language.as_str()).cloned().unwrap_or_else(|| setting.title.clone()),
            description: setting.descriptions.get(language.as_str()).cloned().or_else(|| setting.description.clone()),
            help_url: setting.help_url.clone(),
            help_domain: setting.help_url.as_deref().and_then(dcp_format::url_parts::help_domain),
            required: setting.required,
            secret: setting.is_secret(),
            set,
            value,
        }
    }
}

/// An event with its switch, as the consent screen, Details and the
/// Events section show it (§16).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct EventView {
    /// Event name.
    pub name: String,
    /// Title in the player's language, else English.
    pub title: String,
    /// Its switch: off for a new event.
    pub on: bool,
}

impl EventView {
    /// `event` in `language`, switched `on` or not.
    pub fn new(event: &Event, language: Language, on: bool) -> EventView {
        let title = dcp_format::model::in_language(&event.title, language).unwrap_or_default().to_owned();
        EventView { name: event.name.clone(), title, on }
    }
}

/// What an update keeps from the installed plugin.
pub(crate) struct Previous<'a> {
    pub version: String,
    pub permissions: Permissions,
    pub cloud_choice: Option<CloudChoice>,
    pub setting_keys: &'a [String],
    pub events_on: &'a [String],
    pub manifest_fingerprint: &'a str,
}

pub(crate) fn build(id: &str, plugin: &Plugin, origin: Origin, language: Language, old: Option<Previous>) -> Review {
    let in_language = |texts: &Texts| dcp_format::model::in_language(texts, language).unwrap_or_default().to_owned();
    let actions = plugin
        .tools
        .iter()
        .map(|t| ReviewAction {
            full_name: t.full_name.to_string(),
            level: t.level,
            hint: in_language(&t.hint),
            method: t.request.method.as_str(),
            url: t.request.url.clone(),
            needs_confirmation: t.level.needs_confirmation(),
            required_args: t.arguments.iter().filter(|a| a.required).map(|a| a.name.clone()).collect(),
        })
        .collect();
    let kept_keys = old.as_ref().map(|o| o.setting_keys).unwrap_or_default();
    let settings = plugin
        .settings
        .iter()
        .map(|s| SettingView::new(s, language, kept_keys.contains(&s.key), crate::registry::default_of(&s.kind)))
        .collect();
    let events_on = old.as_ref().map(|o| o.events_on).unwrap_or_default();
    let events = plugin.events.iter().map(|e| EventView::new(e, language, events_on.contains(&e.name))).collect();
    let permissions = Permissions::of(plugin);
    let permission_changes = old.as_ref().map(|o| permissions.changes_from(&o.permissions)).unwrap_or_default();
    let cloud = cloud_question(plugin, &permissions, old.as_ref().map(|o| &o.permissions));
    let cloud_kept = old.as_ref().and_then(|o| kept_cloud_choice(o.cloud_choice, &o.permissions, &permissions));
    Review {
        review: id.to_owned(),
        slug: plugin.slug.clone(),
        name: plugin.display_name.clone(),
        version: plugin.version.to_string(),
        author: plugin.author.clone(),
        description: plugin.description.clone(),
        origin,
        update: old.is_some(),
        old_version: old.as_ref().map(|o| o.version.clone()),
        permissions_changed: !permission_changes.is_empty(),
        permission_changes,
        actions,
        sites: plugin.hosts.clone(),
        local_ports: plugin.local_ports.clone(),
        settings,
        events_door: (!plugin.events.is_empty()).then_some(dcp_format::hosts::EVENT_DOOR_PORT),
        events,
        cloud,
        cloud_kept,
        warnings: Vec::new(),
        same_manifest: old.as_ref().is_some_and(|o| o.manifest_fingerprint == plugin.fingerprints.manifest),
    }
}
