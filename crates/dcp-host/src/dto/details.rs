//! A plugin's details page, Options and Developer section as they cross
//! to a shell (§18, §19): the store's details and the validated manifest's
//! texts in the player's language, with the facts a shell would otherwise
//! work out again (an action's name, whether it asks the player, its form).

use dcp_format::language::Language;
use dcp_format::model::{in_language, Plugin};
use dcp_store::{ActionState, Card, CloudChoice, Details, EventState, EventView, SettingState, SettingView};
use serde::Serialize;
use std::path::PathBuf;

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
    pub last_failures: Vec<dcp_store::journal::FailedCall>,
}

impl PluginDetails {
    /// The details page from the store's details and the validated manifest, in `language`.
    pub(crate) fn new(
        details: Details,
        plugin: Option<&Plugin>,
        language: Language,
        last_failures: Vec<dcp_store::journal::FailedCall>,
    ) -> PluginDetails {
        // Taken apart whole: a field added to the store's details does not
        // compile here until it is shown or left out on purpose.
        let Details {
            actions,
            card,
            cloud_choice,
            errors,
            events,
            folder,
            manifest_fingerprint,
            permissions_fingerprint,
            review_banner,
            settings,
            sites,
            twitch_allowed,
        } = details;
        let settings = settings
            .into_iter()
            .filter_map(|state| {
                let SettingState { key, title: _, secret: _, required: _, value, set } = state;
                let setting = plugin?.settings.iter().find(|s| s.key == key)?;
                Some(SettingView::new(setting, language, set, value))
            })
            .collect();
        let actions = actions
            .into_iter()
            .filter_map(|state| {
                let ActionState { full_name, level, method, url, enabled } = state;
                let tool = plugin?.tools.iter().find(|t| t.full_name == full_name)?;
                Some(ActionView {
                    full_name,
                    name: tool.name.clone(),
                    level,
                    hint: in_language(&tool.hint, language).unwrap_or_default().to_owned(),
                    method,
                    url,
                    enabled,
                    needs_confirmation: level.needs_confirmation(),
                    input_schema: input_schema(&tool.arguments),
                })
            })
            .collect();
        let events = events
            .into_iter()
            .filter_map(|state| {
                let EventState { name, on } = state;
                Some(EventView::new(plugin?.events.iter().find(|e| e.name == name)?, language, on))
            })
            .collect();
        PluginDetails {
            card,
            settings,
            actions,
            events,
            sites,
            cloud_choice,
            twitch_allowed,
            review_banner,
            errors,
            manifest_fingerprint,
            permissions_fingerprint,
            folder,
            last_failures,
        }
    }
}
