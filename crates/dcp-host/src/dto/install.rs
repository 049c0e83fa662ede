//! Installing as it crosses to a shell (§18 Catalog, §3 Consent): the
//! catalog's entries, what the consent screen filled in (converted into the
//! store's options) and what an install did.

use super::CloudChoice;
use dcp_vault::Sensitive;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One catalog entry.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct CatalogEntry {
    /// Slug.
    pub slug: &'static str,
    /// Name.
    pub name: String,
    /// Description.
    pub description: Option<String>,
    /// Version offered.
    pub version: String,
}

impl From<dcp_store::catalog::CatalogEntry> for CatalogEntry {
    fn from(v: dcp_store::catalog::CatalogEntry) -> CatalogEntry {
        CatalogEntry { slug: v.slug, name: v.name, description: v.description, version: v.version }
    }
}

/// What the consent screen filled in. It comes in from a window (a secret
/// deserializes into [`Sensitive`]) and never goes back out: no `Serialize`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "InstallRequest"))]
#[derive(Debug, Default, Deserialize)]
pub struct InstallOptions {
    /// Non-secret settings, by key (text as typed, or JSON values).
    #[cfg_attr(feature = "ts", ts(type = "Array<[string, unknown]>"))]
    pub settings: Vec<(String, Value)>,
    /// Secrets, by key.
    #[cfg_attr(feature = "ts", ts(type = "Array<[string, string]>"))]
    pub secrets: Vec<(String, Sensitive)>,
    /// The answer to the online-AI question.
    pub cloud: Option<CloudChoice>,
}

impl From<InstallOptions> for dcp_store::InstallOptions {
    fn from(o: InstallOptions) -> dcp_store::InstallOptions {
        dcp_store::InstallOptions { settings: o.settings, secrets: o.secrets, cloud: o.cloud.map(Into::into) }
    }
}

/// What an install did.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct Installed {
    /// Slug.
    pub slug: String,
    /// Version installed.
    pub version: String,
    /// True for an update.
    pub update: bool,
    /// True when the update changed permissions.
    pub permissions_changed: bool,
    /// An update whose manifest was, byte for byte, the one installed: nothing was updated.
    pub same_manifest: bool,
}

impl From<dcp_store::Installed> for Installed {
    fn from(v: dcp_store::Installed) -> Installed {
        Installed {
            slug: v.slug,
            version: v.version,
            update: v.update,
            permissions_changed: v.permissions_changed,
            same_manifest: v.same_manifest,
        }
    }
}
