//! The official catalog (§18 "Catalog"): plugins bundled with the app,
//! shown as Official, the only ones allowed the official slugs and R4.

use crate::error::StoreError;
use crate::review::{Origin, Review};
use crate::Store;
use dcp_format::package::{read_bytes, Package};
use dcp_format::version::Version;
use std::sync::OnceLock;

/// The bundled manifests, by slug.
const OFFICIAL: &[(&str, &str)] =
    &[("todoist", include_str!("../catalog/todoist.json")), ("trello", include_str!("../catalog/trello.json"))];

/// One catalog entry.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, serde::Serialize)]
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

/// The version the catalog offers of an official plugin, when it is newer
/// than `installed` (§18 "Update available"). Read once from the bundled
/// manifests: a card asks it every time it is drawn.
pub(crate) fn newer_than(slug: &str, installed: &str) -> Option<String> {
    static VERSIONS: OnceLock<Vec<(&'static str, Option<Version>)>> = OnceLock::new();
    let versions = VERSIONS.get_or_init(|| {
        let version_of = |manifest: &str| {
            let v: serde_json::Value = serde_json::from_str(manifest).ok()?;
            Version::parse(v.get("version")?.as_str()?)
        };
        OFFICIAL.iter().map(|(slug, manifest)| (*slug, version_of(manifest))).collect()
    });
    let offered = versions.iter().find(|(s, _)| *s == slug)?.1?;
    (offered > Version::parse(installed)?).then(|| offered.to_string())
}

fn package(manifest: &str) -> Result<Package, StoreError> {
    read_bytes("manifest.json", manifest.as_bytes()).map_err(|e| StoreError::Internal(e.to_string()))
}

impl Store {
    /// The official plugins offered.
    pub fn catalog(&self) -> Result<Vec<CatalogEntry>, StoreError> {
        let mut out = Vec::new();
        for (slug, manifest) in OFFICIAL {
            let (plugin, _) = self.validated(&package(manifest)?, Origin::Official)?;
            out.push(CatalogEntry {
                slug,
                name: plugin.display_name,
                description: plugin.description,
                version: plugin.version.to_string(),
            });
        }
        Ok(out)
    }

    /// Starts the install of an official plugin: its review.
    pub fn import_official(&self, slug: &str) -> Result<Review, StoreError> {
        let manifest = OFFICIAL.iter().find(|(s, _)| *s == slug).map(|(_, m)| *m);
        let manifest = manifest.ok_or_else(|| StoreError::NoSuchName(format!("no official plugin named {slug}")))?;
        self.quarantine(&package(manifest)?, Origin::Official, None)
    }
}

#[cfg(test)]
mod tests {
    use super::newer_than;

    #[test]
    fn an_update_is_a_newer_catalog_version() {
        // The bundled todoist is 1.0.0.
        assert_eq!(newer_than("todoist", "0.9.12").as_deref(), Some("1.0.0"));
        assert_eq!(newer_than("todoist", "1.0.0"), None, "the same version is no update");
        assert_eq!(newer_than("todoist", "1.0.1"), None, "an older catalog is no update");
        assert_eq!(newer_than("my-tasks", "0.0.1"), None, "not in the catalog");
        assert_eq!(newer_than("todoist", "1.0"), None, "not a version x.y.z");
    }
}
