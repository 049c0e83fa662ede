//! The validated plugin: what the validator hands to the store, the courtier
//! and the request builder. Every value here has passed its rule, so code
//! downstream does not check again (preconditions in types).

use crate::language::Language;
use crate::names::ToolRef;
use crate::risk::{Level, SideEffects};
use crate::template::{Template, ValueTemplate};
use crate::version::Version;
use serde::Serialize;
use std::collections::BTreeMap;

/// A text by language code (a [`crate::language::Language`]'s); `en` is
/// always present where the spec requires it.
pub type Texts = BTreeMap<String, String>;

/// A text in the player's language, else in English (§6 hints, §10
/// settings, §16 event titles): the one place that fallback is written.
pub fn in_language(texts: &Texts, language: Language) -> Option<&str> {
    texts.get(language.as_str()).or_else(|| texts.get(Language::En.as_str())).map(String::as_str)
}

/// A plugin that passed every check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plugin {
    /// Technical name (`name`).
    pub name: String,
    /// `version`.
    pub version: Version,
    /// Name shown to players (`display_name`, or `name`).
    pub display_name: String,
    /// One-line description for the card.
    pub description: Option<String>,
    /// `author.name`, cut at 60 characters.
    pub author: Option<String>,
    /// The plugin's identity and tool prefix.
    pub slug: String,
    /// `minAppVersion`.
    pub min_app_version: Option<Version>,
    /// Declared web hosts (§14), lowercase exact names.
    pub hosts: Vec<String>,
    /// Declared ports of a server on the PC (§15).
    pub local_ports: Vec<u16>,
    /// How secrets are sent (§11); empty when there is no auth block.
    pub auth: Vec<AuthEntry>,
    /// `data.cloudModels` (§13).
    pub cloud_models: CloudModels,
    /// Settings, in manifest order (§10).
    pub settings: Vec<Setting>,
    /// Tools, in manifest order (§6).
    pub tools: Vec<Tool>,
    /// Events, in manifest order (§16).
    pub events: Vec<Event>,
    /// The manifest and permissions fingerprints (see [`crate::fingerprint`]).
    pub fingerprints: Fingerprints,
}

/// The two fingerprints of a validated plugin, as lowercase hex SHA-256.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Fingerprints {
    /// SHA-256 of the manifest file's bytes: the lock of §3 "Modified".
    pub manifest: String,
    /// SHA-256 of the canonical permissions: tells whether an update
    /// changes permissions (§18).
    pub permissions: String,
}

impl Plugin {
    /// True when a tool reads private data (an R1 tool): the online-AI
    /// question of §13 applies.
    pub fn reads_private_data(&self) -> bool {
        self.tools.iter().any(|t| t.level == Level::R1)
    }

    /// True when the plugin talks to a server on the PC (§15).
    pub fn talks_to_pc(&self) -> bool {
        !self.local_ports.is_empty()
    }

    /// The setting named `key`.
    pub fn setting(&self, key: &str) -> Option<&Setting> {
        self.settings.iter().find(|s| s.key == key)
    }

    /// The tool named `name` (short name).
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// `data.cloudModels` (§13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloudModels {
    /// No question: any AI.
    Allowed,
    /// The consent screen asks (default).
    Ask,
    /// Only with an AI running on the PC.
    Never,
}

/// One setting of `user_config` (§10).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    /// Its key.
    pub key: String,
    /// Its type, bounds and default.
    pub kind: SettingKind,
    /// Title shown to the player (defaults to the key).
    pub title: String,
    /// Help text.
    pub description: Option<String>,
    /// Whether the plugin needs it to work.
    pub required: bool,
    /// Help link (https, public domain).
    pub help_url: Option<String>,
    /// Translated titles by language (`ui.labels`).
    pub labels: Texts,
    /// Translated descriptions by language (`ui.descriptions`).
    pub descriptions: Texts,
}

impl Setting {
    /// True for a secret (`sensitive: true`).
    pub fn is_secret(&self) -> bool {
        matches!(self.kind, SettingKind::Text { sensitive: true, .. })
    }
}

/// A setting's type and its rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SettingKind {
    /// `type: "string"`.
    Text {
        /// Effective maximum length (500, or 2,000 for a secret, or smaller).
        max_length: u64,
        /// A secret.
        sensitive: bool,
        /// `format: "id"`.
        id_format: bool,
        /// Default value (never on a secret).
        default: Option<String>,
    },
    /// `type: "number"`.
    Number {
        /// `min`.
        min: Option<f64>,
        /// `max`.
        max: Option<f64>,
        /// Default value.
        default: Option<f64>,
    },
    /// `type: "boolean"`.
    Boolean {
        /// Default value.
        default: Option<bool>,
    },
}

impl SettingKind {
    /// The manifest's `type` word: "string", "number" or "boolean".
    pub fn type_name(&self) -> &'static str {
        let kind = match self {
            SettingKind::Text { .. } => ArgKind::String,
            SettingKind::Number { .. } => ArgKind::Number,
            SettingKind::Boolean { .. } => ArgKind::Boolean,
        };
        kind.as_str()
    }

    /// A number's `min` and `max`; none for other kinds.
    pub fn bounds(&self) -> (Option<f64>, Option<f64>) {
        match self {
            SettingKind::Number { min, max, .. } => (*min, *max),
            _ => (None, None),
        }
    }
}

/// One auth entry (§11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuthEntry {
    /// Header or query parameter.
    pub location: AuthIn,
    /// Header or parameter name.
    pub name: String,
    /// Fixed text and `{{secret.x}}` pieces.
    pub value: Template,
}

crate::spelled! {
    /// Where an auth entry goes, as its `in` spells it (§11).
    pub enum AuthIn {
        /// An HTTP header.
        Header => "header",
        /// A query parameter.
        Query => "query",
    }
}

/// One tool (§6).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    /// Short name (the key).
    pub name: String,
    /// `<slug>__<name>`, the name the AI sees.
    pub full_name: ToolRef,
    /// What the AI reads to choose it.
    pub description: String,
    /// Hints by language; `en` present.
    pub hint: Texts,
    /// The declared risk (default R0).
    pub declared_risk: Level,
    /// The declared side effects (default none), `None` when not written.
    pub side_effects: Option<SideEffects>,
    /// The computed level (§12).
    pub level: Level,
    /// Arguments, in schema order (§7).
    pub arguments: Vec<Argument>,
    /// The request template (§8).
    pub request: Request,
    /// What to keep from the answer (§9).
    pub response: Response,
}

/// One argument of a tool (§7).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Argument {
    /// Property name.
    pub name: String,
    /// Its type.
    pub kind: ArgKind,
    /// Description read by the AI.
    pub description: Option<String>,
    /// Listed in `required`.
    pub required: bool,
    /// Allowed values (strings or numbers).
    #[serde(rename = "enum")]
    pub enum_values: Option<Vec<serde_json::Value>>,
    /// `minimum`.
    pub minimum: Option<f64>,
    /// `maximum`.
    pub maximum: Option<f64>,
    /// `maxLength` as written.
    pub max_length: Option<u64>,
    /// `default`.
    pub default: Option<serde_json::Value>,
}

crate::spelled! {
    /// The four argument types (§7), spelled as their JSON Schema type names.
    pub enum ArgKind {
        String => "string",
        Number => "number",
        Integer => "integer",
        Boolean => "boolean",
    }
}

crate::spelled! {
    /// An HTTP method of §8, as a manifest writes it (upper case).
    #[derive(PartialOrd, Ord)]
    pub enum Method {
        GET => "GET",
        POST => "POST",
        PUT => "PUT",
        PATCH => "PATCH",
        DELETE => "DELETE",
    }
}

/// Where a request goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// `https://<host>` on port 443.
    Web {
        /// A declared host.
        host: String,
    },
    /// `http://127.0.0.1:<port>` or `http://localhost:<port>` (§15).
    Local {
        /// A declared port.
        port: u16,
    },
}

/// A request template (§8).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request {
    /// The method.
    pub method: Method,
    /// The URL as written in the manifest.
    pub url: String,
    /// Where it goes.
    pub target: Target,
    /// The path, a template (values are URL-encoded on insertion).
    pub path: Template,
    /// A fixed query string written in the URL itself, without `?`.
    pub fixed_query: Option<String>,
    /// `query` entries, in order.
    pub query: Vec<(String, ValueTemplate)>,
    /// `headers` entries, in order (fixed text or settings only).
    pub headers: Vec<(String, Template)>,
    /// `body` entries, in order; `None` when the request has no body.
    pub body: Option<Vec<(String, ValueTemplate)>>,
}

/// What to keep from an answer (§9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Response {
    /// `pick` paths; empty keeps the whole JSON.
    pub pick: Vec<PickPath>,
    /// Longest text the AI reads.
    pub max_chars: u64,
}

/// A `pick` path: `a.b` or `list[].c.d` (§9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PickPath {
    /// The path as written.
    pub raw: String,
    /// Names before `[]` (or the whole path when there is no `[]`).
    pub head: Vec<String>,
    /// Names after `[]`, when the path has one (may be empty: whole items).
    pub item: Option<Vec<String>>,
}

/// One event (§16).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Event {
    /// Its name.
    pub name: String,
    /// Title by language; `en` present.
    pub title: Texts,
}
