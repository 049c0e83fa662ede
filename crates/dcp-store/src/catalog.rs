//! The official catalog (§18 "Catalog"): plugins bundled with the app,
//! shown as Official, the only ones allowed the official slugs and R4.

use crate::error::StoreError;
use crate::review::{Origin, Review};
use crate::Store;
use dcp_format::package::{read_bytes, Package};

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
