//! The two fingerprints of a plugin.
//!
//! - The **manifest fingerprint** is the SHA-256 of the manifest file's bytes
//!   exactly as read (byte-order mark included). The store records it at
//!   install and compares it at start-up, on Reload and before every call: any
//!   change on disk turns the plugin Modified (§3, §18).
//! - The **permissions fingerprint** is the SHA-256 of [`Permissions`]
//!   serialized as compact JSON: the declared hosts and local ports (sorted),
//!   each tool by name with its computed level, method and URL template,
//!   where secrets are sent (each auth entry's location, its name — header
//!   names lowercased — and the secrets it carries), the event names
//!   (sorted), and where private data may go (`data.cloudModels` of a
//!   plugin with an R1 tool, §13; left out for other plugins, so their
//!   fingerprint is the same as before it was added); and since issue 20
//!   what each request sends besides its URL (its query, headers and body
//!   templates as written, §8) and the author's name: who the player
//!   trusted with the plugin (see `crate::changes`). Other texts, settings
//!   and versions are left out on purpose: an update that only rewords a
//!   description does not ask for consent again.
//!   Two manifests have the same permissions fingerprint exactly when their
//!   [`Permissions`] are equal, which is what the review's list of changes
//!   is computed from (§18, `crate::changes`).

use crate::model::{AuthIn, CloudModels, Fingerprints, Plugin, Request};
use crate::risk::Level;
use crate::template::{Piece, ValueTemplate};
use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};

/// What a plugin may do, in a canonical order (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Permissions {
    /// Declared hosts, sorted.
    pub hosts: BTreeSet<String>,
    /// Declared local ports, sorted.
    pub local_ports: BTreeSet<u16>,
    /// Tools by short name.
    pub tools: BTreeMap<String, ToolPermission>,
    /// Where secrets are sent.
    pub secrets_sent: BTreeSet<SecretDestination>,
    /// Event names, sorted.
    pub events: BTreeSet<String>,
    /// Where private data may go (§13): `data.cloudModels` of a plugin with
    /// an R1 tool, `None` for a plugin that reads no private data (and for
    /// a row stored before this field existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud_models: Option<CloudModels>,
    /// `author.name` (§5): `Some(None)` for a plugin without one, `None` in
    /// a row stored before it was recorded (issue 20).
    #[serde(default, deserialize_with = "recorded", skip_serializing_if = "Option::is_none")]
    pub author: Option<Option<String>>,
}

/// What one tool may do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolPermission {
    /// The computed level.
    pub level: Level,
    /// The HTTP method.
    pub method: String,
    /// The URL template as written.
    pub url: String,
    /// What the request sends besides its URL; `None` in a row stored
    /// before it was recorded (issue 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sends: Option<Sends>,
}

/// What a request sends besides its URL (§8), each part as the manifest
/// writes it, empty when there is none: the query as `name=value&…`, the
/// headers as `name: value; …` (names lowercased), the body as compact JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sends {
    /// The `query` templates.
    pub query: String,
    /// The `headers` templates.
    pub headers: String,
    /// The `body` templates.
    pub body: String,
}

impl Sends {
    fn of(request: &Request) -> Sends {
        let written = |value: &ValueTemplate| match value {
            ValueTemplate::Fixed(json) => json.clone(),
            ValueTemplate::Text(template) => serde_json::Value::String(template.to_string()),
        };
        let text = |value: &ValueTemplate| match written(value) {
            serde_json::Value::String(text) => text,
            json => json.to_string(),
        };
        let query: Vec<String> = request.query.iter().map(|(name, value)| format!("{name}={}", text(value))).collect();
        let headers: Vec<String> =
            request.headers.iter().map(|(name, value)| format!("{}: {value}", name.to_ascii_lowercase())).collect();
        let body = request.body.as_ref().map(|entries| {
            let object = entries.iter().map(|(name, value)| (name.clone(), written(value))).collect();
            serde_json::Value::Object(object).to_string()
        });
        Sends { query: query.join("&"), headers: headers.join("; "), body: body.unwrap_or_default() }
    }
}

/// A field present in the JSON, `null` included, is `Some` of its value
/// (an absent one is `None`, by `#[serde(default)]`).
fn recorded<'de, D: Deserializer<'de>, T: Deserialize<'de>>(field: D) -> Result<Option<T>, D::Error> {
    T::deserialize(field).map(Some)
}

/// One auth entry, reduced to where it sends which secrets.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SecretDestination {
    /// `header` or `query`.
    pub location: String,
    /// The header (lowercased) or parameter name.
    pub name: String,
    /// The secret settings it carries, sorted.
    pub secrets: BTreeSet<String>,
}

impl Permissions {
    /// Reads the permissions of a validated plugin.
    pub fn of(plugin: &Plugin) -> Permissions {
        let tools = plugin
            .tools
            .iter()
            .map(|t| {
                let permission = ToolPermission {
                    level: t.level,
                    method: t.request.method.as_str().to_owned(),
                    url: t.request.url.clone(),
                    sends: Some(Sends::of(&t.request)),
                };
                (t.name.clone(), permission)
            })
            .collect();
        let secrets_sent = plugin
            .auth
            .iter()
            .map(|a| SecretDestination {
                location: a.location.as_str().to_owned(),
                name: match a.location {
                    AuthIn::Header => a.name.to_ascii_lowercase(),
                    AuthIn::Query => a.name.clone(),
                },
                secrets: a
                    .value
                    .placeholders()
                    .filter_map(|p| match p {
                        Piece::Secret(s) => Some(s.clone()),
                        _ => None,
                    })
                    .collect(),
            })
            .collect();
        Permissions {
            hosts: plugin.hosts.iter().cloned().collect(),
            local_ports: plugin.local_ports.iter().copied().collect(),
            tools,
            secrets_sent,
            events: plugin.events.iter().map(|e| e.name.clone()).collect(),
            cloud_models: plugin.reads_private_data().then_some(plugin.cloud_models),
            author: Some(plugin.author.clone()),
        }
    }

    /// True when private data may go further than under `old` (§13):
    /// kept on the PC (`never`, or no private data read) < asked < allowed.
    /// Such an update is a change of permissions, and the online-AI
    /// question is asked again.
    pub fn widens_cloud_from(&self, old: &Permissions) -> bool {
        cloud_reach(self.cloud_models) > cloud_reach(old.cloud_models)
    }

    /// The permissions fingerprint.
    pub fn fingerprint(&self) -> String {
        // Serializing plain strings, numbers and ordered maps cannot fail.
        let canonical = serde_json::to_vec(self).unwrap_or_default();
        sha256_hex(&canonical)
    }
}

/// How far private data may go, for [`Permissions::widens_cloud_from`].
fn cloud_reach(cloud: Option<CloudModels>) -> u8 {
    match cloud {
        None | Some(CloudModels::Never) => 0,
        Some(CloudModels::Ask) => 1,
        Some(CloudModels::Allowed) => 2,
    }
}

/// Lowercase hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    // Written digit by digit: a `format!` per byte costs more than the hash
    // of a small manifest's permissions.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    for b in Sha256::digest(bytes) {
        hex.push(char::from(DIGITS[usize::from(b >> 4)]));
        hex.push(char::from(DIGITS[usize::from(b & 0xF)]));
    }
    hex
}

/// Stamps a freshly validated plugin with its two fingerprints.
pub(crate) fn seal(mut plugin: Plugin, manifest_bytes: &[u8]) -> Plugin {
    plugin.fingerprints =
        Fingerprints { manifest: sha256_hex(manifest_bytes), permissions: Permissions::of(&plugin).fingerprint() };
    plugin
}
