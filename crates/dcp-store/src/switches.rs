//! What the player changes after install: on/off switches (plugin, action,
//! event), settings and secrets (§10, §11), the online-AI choice (§13),
//! "Use while live on Twitch" (§12), the review banner's Keep (§18), and
//! Reload plugins (§19).

use crate::cloud::CloudChoice;
use crate::error::StoreError;
use crate::registry::Loaded;
use crate::review::Origin;
use crate::Store;
use dcp_format::fingerprint::Permissions;
use dcp_format::model::Plugin;
use dcp_format::setting_value;
use dcp_vault::Sensitive;
use rusqlite::params;
use serde_json::Value;
use std::sync::Arc;

impl Store {
    /// The validated manifest of an installed plugin, as on disk now.
    fn current(&self, slug: &str) -> Result<Plugin, StoreError> {
        match self.load(&self.row(slug)?) {
            Loaded::Ready(plugin) => Ok(Arc::unwrap_or_clone(plugin)),
            _ => Err(StoreError::NotReadable(format!("{slug} cannot be read now (see its status): import it again"))),
        }
    }

    /// Switches a plugin on or off.
    pub fn set_enabled(&self, slug: &str, on: bool) -> Result<(), StoreError> {
        self.row(slug)?;
        self.conn.execute("UPDATE plugins SET enabled = ?2 WHERE slug = ?1", params![slug, on])?;
        Ok(())
    }

    /// Switches one action on or off.
    pub fn set_action_enabled(&self, slug: &str, tool: &str, on: bool) -> Result<(), StoreError> {
        let plugin = self.current(slug)?;
        if plugin.tool(tool).is_none() {
            return Err(StoreError::NoSuchName(format!("{slug} has no action {tool}")));
        }
        if on {
            self.conn.execute("DELETE FROM tools_off WHERE slug = ?1 AND tool = ?2", params![slug, tool])?;
        } else {
            self.conn.execute("INSERT OR IGNORE INTO tools_off (slug, tool) VALUES (?1, ?2)", params![slug, tool])?;
        }
        Ok(())
    }

    /// Switches one event on or off (§16: off by default).
    pub fn set_event_enabled(&self, slug: &str, event: &str, on: bool) -> Result<(), StoreError> {
        let plugin = self.current(slug)?;
        if !plugin.events.iter().any(|e| e.name == event) {
            return Err(StoreError::NoSuchName(format!("{slug} has no event {event}")));
        }
        if on {
            self.conn.execute("INSERT OR IGNORE INTO events_on (slug, event) VALUES (?1, ?2)", params![slug, event])?;
        } else {
            self.conn.execute("DELETE FROM events_on WHERE slug = ?1 AND event = ?2", params![slug, event])?;
        }
        Ok(())
    }

    /// Save (§10): checks every value as at install, then stores them all or
    /// none.
    pub fn set_settings(&self, slug: &str, values: &[(String, Value)]) -> Result<(), StoreError> {
        let checked = crate::install::check_settings(&self.current(slug)?, values)?;
        let tx = self.write_tx()?;
        for (key, value) in checked {
            tx.execute(
                "INSERT INTO settings (slug, key, value) VALUES (?1, ?2, ?3) ON CONFLICT(slug, key) DO UPDATE SET value = ?3",
                params![slug, key, value.to_string()],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Replace a secret (§11): sealed by the vault, or refused with
    /// `vault_unavailable` and nothing written.
    pub fn set_secret(&self, slug: &str, key: &str, value: Sensitive) -> Result<(), StoreError> {
        let plugin = self.current(slug)?;
        let Some(setting) = plugin.setting(key).filter(|s| s.is_secret()) else {
            return Err(StoreError::NoSuchName(format!("{slug} has no secret {key}")));
        };
        setting_value::check(setting, &Value::String(value.expose().to_owned()))
            .map_err(|r| StoreError::BadSettings { refused: vec![(key.to_owned(), r)], missing: Vec::new() })?;
        let sealed = self.vault.seal(slug, key, &value).map_err(|e| StoreError::VaultUnavailable(e.to_string()))?;
        self.conn.execute(
            "INSERT INTO secrets (slug, key, sealed) VALUES (?1, ?2, ?3) ON CONFLICT(slug, key) DO UPDATE SET sealed = ?3",
            params![slug, key, sealed],
        )?;
        Ok(())
    }

    /// Clear a secret.
    pub fn clear_secret(&self, slug: &str, key: &str) -> Result<(), StoreError> {
        self.row(slug)?;
        self.conn.execute("DELETE FROM secrets WHERE slug = ?1 AND key = ?2", params![slug, key])?;
        Ok(())
    }

    /// Allow with online AI models, or keep on this PC (§13).
    pub fn set_cloud(&self, slug: &str, choice: CloudChoice) -> Result<(), StoreError> {
        self.row(slug)?;
        self.conn.execute("UPDATE plugins SET cloud_choice = ?2 WHERE slug = ?1", params![slug, choice.as_str()])?;
        Ok(())
    }

    /// "Use while live on Twitch" (§12).
    pub fn set_twitch(&self, slug: &str, allowed: bool) -> Result<(), StoreError> {
        self.row(slug)?;
        self.conn.execute("UPDATE plugins SET twitch_allowed = ?2 WHERE slug = ?1", params![slug, allowed])?;
        Ok(())
    }

    /// The review banner's Keep (§18).
    pub fn keep(&self, slug: &str) -> Result<(), StoreError> {
        self.row(slug)?;
        self.conn.execute("UPDATE plugins SET review_kept = 1 WHERE slug = ?1", [slug])?;
        Ok(())
    }

    /// Reload plugins (§19): re-reads every installed file. A folder plugin
    /// whose manifest is valid takes its new permissions at once, with new
    /// events off; settings and secrets stay. Returns the statuses.
    pub fn reload(&self) -> Result<Vec<crate::Card>, StoreError> {
        for row in self.rows()? {
            if row.origin != Origin::Folder {
                continue;
            }
            if let Loaded::Ready(plugin) = self.load(&row) {
                if plugin.fingerprints.manifest != row.manifest_fingerprint {
                    self.adopt_folder_manifest(&plugin)?;
                }
            }
        }
        self.clean_leftovers()?;
        self.list()
    }

    fn adopt_folder_manifest(&self, plugin: &Plugin) -> Result<(), StoreError> {
        let permissions = Permissions::of(plugin);
        let json = serde_json::to_string(&permissions).map_err(|e| StoreError::Internal(e.to_string()))?;
        let tx = self.write_tx()?;
        tx.execute(
            "UPDATE plugins SET version = ?2, manifest_fingerprint = ?3, permissions_fingerprint = ?4, permissions = ?5, updated_at = ?6 WHERE slug = ?1",
            params![plugin.slug, plugin.version.to_string(), plugin.fingerprints.manifest, plugin.fingerprints.permissions, json, self.now()],
        )?;
        let events: Vec<&str> = plugin.events.iter().map(|e| e.name.as_str()).collect();
        crate::install::retain(&tx, "events_on", "event", &plugin.slug, &events)?;
        tx.commit()?;
        Ok(())
    }
}
