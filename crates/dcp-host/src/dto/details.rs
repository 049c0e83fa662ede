//! A plugin's details page, Options and Developer section as they cross
//! to a shell (§18, §19): the store's details and the validated manifest's
//! texts in the player's language, with the facts a shell would otherwise
//! work out again (a help link's domain).

use super::Card;
use super::CloudChoice;
use dcp_format::model::{in_language, Plugin, Setting};
use dcp_store::Details;
use serde::Serialize;
use std::path::PathBuf;

/// A setting as the consent screen, Details and Options show it (§10,
/// §18), in the player's language.
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

/// An action as Details and the Developer section show it (§12, §19).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct ActionView {
    /// `<slug>__<tool>`.
    pub full_name: String,
    /// The tool's name.
    pub name: String,
    /// The computed level.
    pub level: dcp_format::risk::Level,
    /// The hint in the player's language, else English.
    pub hint: String,
    /// Method.
    pub method: &'static str,
    /// URL template.
    pub url: String,
    /// The action's own switch.
    pub enabled: bool,
    /// R3 or R4 (§12): R3 is confirmed by the player each time, where they
    /// can be asked; R4 is never offered.
    pub needs_confirmation: bool,
    /// Its arguments as a JSON Schema object (`properties` with `type`,
    /// `description`, `enum`; `required`), for Try an action's form (§19).
    #[cfg_attr(
        feature = "ts",
        ts(type = "{ type: \"object\", properties: Record<string, { type: string, description?: string, \
                   enum?: Array<string | number> }>, required: Array<string> }")
    )]
    pub input_schema: serde_json::Value,
}

/// The validated arguments of a tool, written back as the inputSchema
/// shape of §7 (only what a form needs).
fn input_schema(arguments: &[dcp_format::model::Argument]) -> serde_json::Value {
    let properties: serde_json::Map<String, serde_json::Value> = arguments
        .iter()
        .map(|a| {
            let mut property = serde_json::json!({ "type": a.kind });
            if let Some(description) = &a.description {
                property["description"] = description.clone().into();
            }
            if let Some(values) = &a.enum_values {
                property["enum"] = values.clone().into();
            }
            (a.name.clone(), property)
        })
        .collect();
    let required: Vec<&str> = arguments.iter().filter(|a| a.required).map(|a| a.name.as_str()).collect();
    serde_json::json!({ "type": "object", "properties": properties, "required": required })
}

/// An event in the Events section (§16).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct EventView {
    /// Name.
    pub name: String,
    /// Title in the player's language, else English.
    pub title: String,
    /// Its switch.
    pub on: bool,
}

/// A plugin's details page, Options and Developer section (§18, §19).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct PluginDetails {
    /// The card.
    #[serde(flatten)]
    pub card: Card,
    /// Settings, in the player's language.
    pub settings: Vec<SettingView>,
    /// Actions.
    pub actions: Vec<ActionView>,
    /// Events.
    pub events: Vec<EventView>,
    /// "Sites it contacts" (the ports of programs on this PC are the card's).
    pub sites: Vec<String>,
    /// The online-AI choice: allow, local, or none when not asked.
    pub cloud_choice: Option<CloudChoice>,
    /// Use while live on Twitch.
    pub twitch_allowed: bool,
    /// The review banner of an unsigned plugin, until Keep.
    pub review_banner: bool,
    /// Errors of a manifest that no longer passes the checks.
    pub errors: Vec<dcp_format::Problem>,
    /// The manifest fingerprint recorded at install.
    pub manifest_fingerprint: String,
    /// The permissions fingerprint.
    pub permissions_fingerprint: String,
    /// The plugin's folder.
    pub folder: PathBuf,
    /// The last failed calls, newest first.
    pub last_failures: Vec<super::FailedCall>,
}

impl PluginDetails {
    /// The details page from the store's details and the validated manifest, in `language`.
    pub(crate) fn new(
        details: Details,
        plugin: Option<&Plugin>,
        language: &str,
        last_failures: Vec<dcp_store::journal::FailedCall>,
    ) -> PluginDetails {
        let settings = details
            .settings
            .iter()
            .filter_map(|state| {
                let setting = plugin?.settings.iter().find(|s| s.key == state.key)?;
                Some(setting_view(setting, state, language))
            })
            .collect();
        let actions = details
            .actions
            .iter()
            .filter_map(|a| {
                let tool = plugin?.tools.iter().find(|t| t.full_name == a.full_name)?;
                Some(ActionView {
                    full_name: a.full_name.clone(),
                    name: tool.name.clone(),
                    level: a.level,
                    hint: in_language(&tool.hint, language).unwrap_or_default().to_owned(),
                    method: a.method,
                    url: a.url.clone(),
                    enabled: a.enabled,
                    needs_confirmation: a.level.needs_confirmation(),
                    input_schema: input_schema(&tool.arguments),
                })
            })
            .collect();
        let events = details
            .events
            .iter()
            .filter_map(|e| {
                let event = plugin?.events.iter().find(|d| d.name == e.name)?;
                let title = in_language(&event.title, language).unwrap_or_default().to_owned();
                Some(EventView { name: e.name.clone(), title, on: e.on })
            })
            .collect();
        PluginDetails {
            card: details.card.into(),
            settings,
            actions,
            events,
            sites: details.sites,
            cloud_choice: details.cloud_choice.map(Into::into),
            twitch_allowed: details.twitch_allowed,
            review_banner: details.review_banner,
            errors: details.errors,
            manifest_fingerprint: details.manifest_fingerprint,
            permissions_fingerprint: details.permissions_fingerprint,
            folder: details.folder,
            last_failures: last_failures.into_iter().map(Into::into).collect(),
        }
    }
}

fn setting_view(setting: &Setting, state: &dcp_store::SettingState, language: &str) -> SettingView {
    SettingView {
        key: setting.key.clone(),
        kind: setting.kind.type_name(),
        min: setting.kind.bounds().0,
        max: setting.kind.bounds().1,
        label: setting.labels.get(language).cloned().unwrap_or_else(|| setting.title.clone()),
        description: setting.descriptions.get(language).cloned().or_else(|| setting.description.clone()),
        help_url: setting.help_url.clone(),
        help_domain: setting.help_url.as_deref().and_then(dcp_format::url_parts::help_domain),
        required: setting.required,
        secret: state.secret,
        set: state.set,
        value: state.value.clone(),
    }
}
