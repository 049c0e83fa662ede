//! Install, update and uninstall (§3, §18), with a commit that a crash
//! cannot split.
//!
//! Why generation folders: an imported plugin's files live in
//! `plugins/<slug>/<generation>/`, and the database row names the current
//! generation. An install or update first writes and syncs the new
//! generation, then switches the row (with settings, secrets and switches)
//! in one SQLite transaction, then deletes the old generation and the
//! quarantined copy. A crash before the commit leaves the old row and old
//! files; after it, the new row and new files. Copies no row names are
//! removed at the next start or install, unless a live process holds their
//! lock (see `files::CopyLock` and `remove_orphan_copies`); a folder the
//! store did not write is never one (`files::made_by_store`).

use crate::cloud::{cloud_choice, CloudChoice};
use crate::error::StoreError;
use crate::files::{self, crash_point, CopyLock};
use crate::registry::default_of;
use crate::review::Origin;
use crate::Store;
use dcp_format::fingerprint::Permissions;
use dcp_format::model::Plugin;
use dcp_format::setting_value::{self, BadSetting, RefusedValue};
use dcp_vault::Sensitive;
use rusqlite::{params, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

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

impl Store {
    /// Installs (or updates) the plugin of a review.
    pub fn install(&self, review: &str, options: InstallOptions) -> Result<Installed, StoreError> {
        // One write transaction from reading what is kept to the commit: a
        // `set` or a second install from another process waits instead of
        // being overwritten or racing (the busy timeout bounds the wait).
        let tx = self.write_tx()?;
        let (plugin, origin, (dir, package)) = self.pending(review)?;
        let old = self.entry_row(&plugin.slug)?;
        let given: Vec<String> =
            options.settings.iter().map(|(k, _)| k).chain(options.secrets.iter().map(|(k, _)| k)).cloned().collect();
        let (settings, secrets) = match both(
            self.final_settings(&plugin, old.is_some(), &options.settings),
            self.final_secrets(&plugin, old.is_some(), options.secrets),
        ) {
            // The empty required settings too, so that one answer names every problem.
            Err(StoreError::BadSettings { refused, .. }) => {
                let kept = if old.is_some() { self.stored_keys(&plugin.slug)? } else { Vec::new() };
                let missing = missing_required(&plugin, |key| given.iter().chain(&kept).any(|k| k == key));
                return Err(StoreError::BadSettings { refused, missing });
            }
            other => other?,
        };
        let missing = missing_required(&plugin, |key| settings.contains_key(key) || secrets.contains_key(key));
        if !missing.is_empty() {
            return Err(StoreError::MissingSettings(missing));
        }
        let permissions = Permissions::of(&plugin);
        let cloud = cloud_choice(&plugin, &permissions, options.cloud, old.as_ref())?;
        let sealed = self.seal_new(&plugin.slug, &secrets)?;
        // Held until the row names the new generation (see `CopyLock`).
        let (target, _copy) = match origin {
            Origin::Folder => (dir.clone(), None),
            _ => {
                let id = files::random_id();
                let copy = CopyLock::take(&self.profile, &id)?;
                let generation = PathBuf::from("plugins").join(&plugin.slug).join(id);
                files::write_copy(&self.profile, &generation, &package)?;
                (generation, Some(copy))
            }
        };
        crash_point("install:files-written");
        let changed = old.as_ref().is_some_and(|o| o.permissions != permissions);
        if let Err(e) = self.commit(
            tx,
            review,
            &plugin,
            origin,
            &target,
            &permissions,
            cloud,
            changed,
            &settings,
            &sealed,
            &secrets,
        ) {
            // Nothing points to the new generation: remove it now.
            if origin != Origin::Folder {
                let _ = files::delete_copy(&self.profile, &self.resolve(&target));
            }
            return Err(e);
        }
        crash_point("install:committed");
        if origin != Origin::Folder {
            files::delete_copy(&self.profile, &dir)?;
        }
        if let Some(old) = &old {
            if old.origin != Origin::Folder && old.dir != target {
                files::delete_copy(&self.profile, &self.resolve(&old.dir))?;
            }
        }
        // Copies a killed install or update left go now, not at the next
        // start. The install itself is done: a failure here waits for the
        // next open or install.
        let _ = self.remove_orphan_copies();
        Ok(Installed {
            slug: plugin.slug.clone(),
            version: plugin.version.to_string(),
            update: old.is_some(),
            permissions_changed: changed,
            same_manifest: old.as_ref().is_some_and(|o| o.manifest_fingerprint == plugin.fingerprints.manifest),
        })
    }

    /// Settings after install: kept values that still fit, plus new ones.
    fn final_settings(
        &self,
        plugin: &Plugin,
        update: bool,
        given: &[(String, Value)],
    ) -> Result<BTreeMap<String, Value>, StoreError> {
        let mut values = BTreeMap::new();
        if update {
            for (key, value) in self.stored_settings(&plugin.slug)? {
                let still = plugin.setting(&key).filter(|s| !s.is_secret());
                if let Some(checked) = still.and_then(|s| setting_value::check(s, &value).ok()) {
                    values.insert(key, checked);
                }
            }
        }
        values.extend(check_settings(plugin, given)?);
        Ok(values)
    }

    /// Secrets after install: `Keep(key)` for a kept sealed value (same
    /// slug and key, so it still opens), `New` for one typed now.
    fn final_secrets(
        &self,
        plugin: &Plugin,
        update: bool,
        given: Vec<(String, Sensitive)>,
    ) -> Result<BTreeMap<String, SecretPlan>, StoreError> {
        let mut plan = BTreeMap::new();
        if update {
            for key in self.stored_keys_secret(&plugin.slug)? {
                if plugin.setting(&key).is_some_and(|s| s.is_secret()) {
                    plan.insert(key, SecretPlan::Keep);
                }
            }
        }
        let mut refused = Vec::new();
        for (key, value) in given {
            match plugin.setting(&key) {
                Some(s) if s.is_secret() => match setting_value::check(s, &Value::String(value.expose().to_owned())) {
                    Ok(_) => {
                        plan.insert(key, SecretPlan::New(value));
                    }
                    Err(r) => refused.push((key, r)),
                },
                Some(_) => refused.push((
                    key.clone(),
                    RefusedValue {
                        reason: BadSetting::BadType,
                        message: format!("{key} is not a secret: give it as a setting"),
                    },
                )),
                None => refused.push((key.clone(), unknown(&key))),
            }
        }
        if refused.is_empty() {
            Ok(plan)
        } else {
            Err(StoreError::BadSettings { refused, missing: Vec::new() })
        }
    }

    fn seal_new(
        &self,
        slug: &str,
        secrets: &BTreeMap<String, SecretPlan>,
    ) -> Result<BTreeMap<String, Vec<u8>>, StoreError> {
        let mut sealed = BTreeMap::new();
        for (key, plan) in secrets {
            if let SecretPlan::New(value) = plan {
                let bytes =
                    self.vault.seal(slug, key, value).map_err(|e| StoreError::VaultUnavailable(e.to_string()))?;
                sealed.insert(key.clone(), bytes);
            }
        }
        Ok(sealed)
    }

    #[allow(clippy::too_many_arguments)]
    fn commit(
        &self,
        tx: Transaction,
        review: &str,
        plugin: &Plugin,
        origin: Origin,
        dir: &std::path::Path,
        permissions: &Permissions,
        cloud: Option<CloudChoice>,
        permissions_changed: bool,
        settings: &BTreeMap<String, Value>,
        sealed: &BTreeMap<String, Vec<u8>>,
        secrets: &BTreeMap<String, SecretPlan>,
    ) -> Result<(), StoreError> {
        let now = self.now();
        let permissions_json = serde_json::to_string(permissions).map_err(|e| StoreError::Internal(e.to_string()))?;
        tx.execute(
            "INSERT INTO plugins (slug, origin, dir, version, manifest_fingerprint, permissions_fingerprint, permissions, cloud_choice, installed_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
             ON CONFLICT(slug) DO UPDATE SET origin = ?2, dir = ?3, version = ?4, manifest_fingerprint = ?5,
               permissions_fingerprint = ?6, permissions = ?7, cloud_choice = ?8, updated_at = ?9,
               review_kept = review_kept AND NOT ?10",
            params![
                plugin.slug,
                origin.as_str(),
                dir.to_string_lossy(),
                plugin.version.to_string(),
                plugin.fingerprints.manifest,
                plugin.fingerprints.permissions,
                permissions_json,
                cloud.map(CloudChoice::as_str),
                now,
                permissions_changed,
            ],
        )?;
        tx.execute("DELETE FROM settings WHERE slug = ?1", [&plugin.slug])?;
        for (key, value) in settings {
            tx.execute(
                "INSERT INTO settings (slug, key, value) VALUES (?1, ?2, ?3)",
                params![plugin.slug, key, value.to_string()],
            )?;
        }
        let mut keep = tx.prepare("SELECT key FROM secrets WHERE slug = ?1")?;
        let stored: Vec<String> = keep.query_map([&plugin.slug], |r| r.get(0))?.collect::<Result<_, _>>()?;
        drop(keep);
        for key in stored.iter().filter(|k| !secrets.contains_key(*k)) {
            tx.execute("DELETE FROM secrets WHERE slug = ?1 AND key = ?2", params![plugin.slug, key])?;
        }
        for (key, bytes) in sealed {
            tx.execute("INSERT INTO secrets (slug, key, sealed) VALUES (?1, ?2, ?3) ON CONFLICT(slug, key) DO UPDATE SET sealed = ?3", params![plugin.slug, key, bytes])?;
        }
        let tools: Vec<&str> = plugin.tools.iter().map(|t| t.name.as_str()).collect();
        let events: Vec<&str> = plugin.events.iter().map(|e| e.name.as_str()).collect();
        retain(&tx, "tools_off", "tool", &plugin.slug, &tools)?;
        retain(&tx, "events_on", "event", &plugin.slug, &events)?;
        // Another process installed this review first: roll back.
        if tx.execute("DELETE FROM reviews WHERE id = ?1", [review])? == 0 {
            return Err(StoreError::UnknownReview(review.to_owned()));
        }
        crash_point("install:before-commit");
        tx.commit()?;
        Ok(())
    }

    /// Uninstall (§18): removes the plugin, its settings and its secrets; a
    /// folder plugin's own folder is never deleted (§19).
    pub fn uninstall(&self, slug: &str) -> Result<(), StoreError> {
        // One write transaction from reading the row to deleting it: an
        // install of this slug in another process has either committed (its
        // generation is the one named, and removed here) or waits for this
        // one. Read outside it, the row could name the generation the
        // install just replaced, leaving the new one with no row.
        let tx = self.write_tx()?;
        let row = self.row(slug)?;
        tx.execute("DELETE FROM plugins WHERE slug = ?1", [slug])?;
        tx.commit()?;
        if row.origin != Origin::Folder {
            files::delete_copy(&self.profile, &self.resolve(&row.dir))?;
            let slug_dir = self.profile.plugins_dir().join(slug);
            let _ = std::fs::remove_dir(slug_dir);
        }
        Ok(())
    }

    /// Opens one sealed secret; `None` when this PC cannot.
    pub(crate) fn unseal(&self, slug: &str, key: &str, sealed: &[u8]) -> Option<Sensitive> {
        self.vault.open(slug, key, sealed).ok()
    }

    /// A plugin's stored secrets, sealed, by key.
    pub(crate) fn sealed_secrets(&self, slug: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT key, sealed FROM secrets WHERE slug = ?1 ORDER BY key")?;
        let sealed = stmt.query_map([slug], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
        Ok(sealed)
    }
}

/// A secret's fate in an install.
#[derive(Debug)]
enum SecretPlan {
    Keep,
    New(Sensitive),
}

/// Checks non-secret values as install and Save both do (§10): every
/// value at once, each refusal with its reason; nothing is kept unless all pass.
pub(crate) fn check_settings(plugin: &Plugin, given: &[(String, Value)]) -> Result<Vec<(String, Value)>, StoreError> {
    let mut checked = Vec::new();
    let mut refused = Vec::new();
    for (key, value) in given {
        match plugin.setting(key) {
            None => refused.push((key.clone(), unknown(key))),
            Some(s) if s.is_secret() => refused.push((
                key.clone(),
                RefusedValue {
                    reason: BadSetting::BadType,
                    message: format!("{key} is a secret: give it as a secret (Replace), not as a setting"),
                },
            )),
            Some(s) => match setting_value::check(s, value) {
                Ok(v) => checked.push((key.clone(), v)),
                Err(r) => refused.push((key.clone(), r)),
            },
        }
    }
    if refused.is_empty() {
        Ok(checked)
    } else {
        Err(StoreError::BadSettings { refused, missing: Vec::new() })
    }
}

/// The required settings with no value: `has` says whether a key has one;
/// a setting (not a secret) with a default always has one.
fn missing_required(plugin: &Plugin, has: impl Fn(&str) -> bool) -> Vec<String> {
    let filled = |s: &&dcp_format::model::Setting| has(&s.key) || (!s.is_secret() && default_of(&s.kind).is_some());
    plugin.settings.iter().filter(|s| s.required).filter(|s| !filled(s)).map(|s| s.key.clone()).collect()
}

/// Both results, or one failure. Two `bad_settings` become one listing the
/// refusals of both: the consent screen shows every field's problem at
/// once (§18), a bad secret beside a bad setting.
fn both<A, B>(a: Result<A, StoreError>, b: Result<B, StoreError>) -> Result<(A, B), StoreError> {
    match (a, b) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (
            Err(StoreError::BadSettings { refused: mut first, .. }),
            Err(StoreError::BadSettings { refused: second, .. }),
        ) => {
            first.extend(second);
            Err(StoreError::BadSettings { refused: first, missing: Vec::new() })
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

fn unknown(key: &str) -> RefusedValue {
    RefusedValue { reason: BadSetting::UnknownSetting, message: format!("this plugin has no setting {key}") }
}

/// Keeps the switch rows whose name is still in `names`.
pub(crate) fn retain(
    tx: &rusqlite::Transaction,
    table: &str,
    column: &str,
    slug: &str,
    names: &[&str],
) -> Result<(), StoreError> {
    let mut stmt = tx.prepare(&format!("SELECT {column} FROM {table} WHERE slug = ?1"))?;
    let present: Vec<String> = stmt.query_map([slug], |r| r.get(0))?.collect::<Result<_, _>>()?;
    for name in present.iter().filter(|n| !names.contains(&n.as_str())) {
        tx.execute(&format!("DELETE FROM {table} WHERE slug = ?1 AND {column} = ?2"), params![slug, name])?;
    }
    Ok(())
}
