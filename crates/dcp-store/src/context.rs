//! What the courtier and the request builder need to know about one
//! installed plugin right now: its manifest as on disk (the fingerprint
//! checked before every call, §3), its status and switches, its settings
//! with defaults, and its secrets — opened only for the request.

use crate::error::StoreError;
use crate::registry::{default_of, Loaded};
use crate::review::Origin;
use crate::status::Status;
use crate::Store;
use dcp_format::model::Plugin;
use dcp_vault::Sensitive;
use serde_json::{Map, Value};

/// One plugin as a call sees it.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// The slug.
    pub slug: String,
    /// The manifest, when it can be read and matches its fingerprint.
    pub plugin: Option<Plugin>,
    /// Its status now.
    pub status: Status,
    /// Per-action switches that are off.
    pub tools_off: Vec<String>,
    /// Only with an AI on this PC (§13).
    pub kept_on_pc: bool,
    /// "Use while live on Twitch" (§12).
    pub twitch_allowed: bool,
    /// From a folder (§19).
    pub folder: bool,
    /// Non-secret settings: stored values, else defaults.
    pub settings: Map<String, Value>,
}

impl Store {
    /// Every installed plugin as calls see it, by slug.
    pub fn call_contexts(&self) -> Result<Vec<CallContext>, StoreError> {
        self.snapshot(|| self.rows()?.iter().map(|row| self.context_of(row)).collect())
    }

    /// One plugin as calls see it; `None` when it is not installed.
    pub fn call_context(&self, slug: &str) -> Result<Option<CallContext>, StoreError> {
        self.snapshot(|| match self.entry_row(slug)? {
            Some(row) => Ok(Some(self.context_of(&row)?)),
            None => Ok(None),
        })
    }

    fn context_of(&self, row: &crate::registry::Row) -> Result<CallContext, StoreError> {
        let loaded = self.load(row);
        let status = self.status_of(row, &loaded)?;
        let plugin = match loaded {
            Loaded::Ready(plugin) => Some(*plugin),
            _ => None,
        };
        let mut settings = Map::new();
        if let Some(p) = &plugin {
            let stored = self.stored_settings(&row.slug)?;
            for s in p.settings.iter().filter(|s| !s.is_secret()) {
                let value =
                    stored.iter().find(|(k, _)| *k == s.key).map(|(_, v)| v.clone()).or_else(|| default_of(&s.kind));
                if let Some(v) = value {
                    settings.insert(s.key.clone(), v);
                }
            }
        }
        Ok(CallContext {
            slug: row.slug.clone(),
            kept_on_pc: self.kept_on_pc(row, plugin.as_ref()),
            plugin,
            status,
            tools_off: self.tools_off(&row.slug)?,
            twitch_allowed: row.twitch_allowed,
            folder: row.origin == Origin::Folder,
            settings,
        })
    }

    /// A secret for the request being built, opened by the vault; `None`
    /// when not set or unreadable on this PC.
    pub fn secret_for_request(&self, slug: &str, key: &str) -> Result<Option<Sensitive>, StoreError> {
        self.open_secret(slug, key)
    }
}
