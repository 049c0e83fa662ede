//! What the courtier and the request builder need to know about one
//! installed plugin right now: its manifest as on disk (the fingerprint
//! checked before every call, §3), its status and switches, the app's
//! switches, its settings with defaults, and its secrets — still sealed,
//! opened only for the request.
//!
//! A call reads its plugin again only when something it is made of may
//! have changed: the store keeps each plugin's last context with the
//! database's generation (bumped by triggers on every table it is read
//! from, whoever writes) and the manifest file's settled stamp. A call
//! then costs one query and one `stat` (on Windows also a read of the
//! manifest, see `stamp.rs`) instead of the rows, the file and
//! its hash. Folder plugins are read every time (their folder is theirs
//! to change). Secrets are kept sealed, as in the database, and opened
//! for each request.

use crate::error::StoreError;
use crate::prefs::Prefs;
use crate::registry::{value_or_default, Loaded, Row};
use crate::review::Origin;
use crate::stamp::FileStamp;
use crate::status::Status;
use crate::Store;
use dcp_format::model::Plugin;
use dcp_format::package::MANIFEST_FILE;
use dcp_vault::Sensitive;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Each plugin's last context, with what it was made from.
#[derive(Default)]
pub(crate) struct Contexts(RefCell<HashMap<String, Made>>);

struct Made {
    generation: i64,
    manifest: PathBuf,
    stamp: FileStamp,
    context: Arc<CallContext>,
    /// The row it was made from: the cards and the details page read it
    /// from here, since the generation covers the `plugins` table too.
    row: Arc<Row>,
}

/// A plugin's context with the row it was made from.
pub(crate) type Current = (Arc<CallContext>, Arc<Row>);

/// One plugin as a call sees it.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// The slug.
    pub slug: String,
    /// The manifest, when it can be read and matches its fingerprint.
    pub plugin: Option<Arc<Plugin>>,
    /// Its status now.
    pub status: Status,
    /// The app switches, read with the rest.
    pub prefs: Prefs,
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
    /// Its stored secrets as the vault sealed them: only
    /// [`Store::open_secrets`] can read them.
    pub sealed: SealedSecrets,
}

/// A plugin's stored secrets, sealed, by setting key. Opaque outside the
/// store; `Debug` shows the keys only.
#[derive(Clone, Default)]
pub struct SealedSecrets(Vec<(String, Vec<u8>)>);

impl SealedSecrets {
    /// A secret is stored under `key` (set, whether or not this PC can open it).
    pub(crate) fn has(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }
}

impl std::fmt::Debug for SealedSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|(key, _)| key)).finish()
    }
}

impl Store {
    /// Every installed plugin as calls see it, by slug, each as
    /// [`Store::call_context`] gives it, in one snapshot as [`Store::list`]
    /// reads the cards: the door asks four times a second and a turn before
    /// each of its steps, and while nothing changed this costs the
    /// generation, the slugs and one `stat` per plugin (no row is parsed).
    pub fn call_contexts(&self) -> Result<Vec<Arc<CallContext>>, StoreError> {
        self.snapshot(|| {
            let generation = self.generation()?;
            let current = |slug: &String| self.context_and_row(slug, generation).transpose();
            self.slugs()?.iter().filter_map(current).map(|kept| Ok(kept?.0)).collect()
        })
    }

    /// One plugin as calls see it; `None` when it is not installed. Shared
    /// with the store's kept copy: a call costs no copy of it.
    pub fn call_context(&self, slug: &str) -> Result<Option<Arc<CallContext>>, StoreError> {
        Ok(self.context_and_row(slug, self.generation()?)?.map(|(context, _)| context))
    }

    /// One plugin's context and row as of `generation` (read in the caller's
    /// snapshot, or just before): the kept ones while nothing they were made
    /// from changed, else read again in one read transaction.
    pub(crate) fn context_and_row(&self, slug: &str, generation: i64) -> Result<Option<Current>, StoreError> {
        if let Some(kept) = self.kept(slug, generation) {
            return Ok(Some(kept));
        }
        self.contexts.0.borrow_mut().remove(slug);
        self.snapshot(|| {
            let generation = self.generation()?;
            let Some(row) = self.entry_row(slug)? else { return Ok(None) };
            let manifest = (row.origin != Origin::Folder).then(|| self.resolve(&row.dir).join(MANIFEST_FILE));
            // Stamped before the file is read: a write after this shows.
            let stamp = manifest.as_deref().and_then(|m| FileStamp::settled(m, self.clock.now()));
            let context = Arc::new(self.context_of(&row, &self.prefs()?)?);
            let row = Arc::new(row);
            if let (Some(manifest), Some(stamp)) = (manifest, stamp) {
                let made = Made { generation, manifest, stamp, context: Arc::clone(&context), row: Arc::clone(&row) };
                self.contexts.0.borrow_mut().insert(row.slug.clone(), made);
            }
            Ok(Some((context, row)))
        })
    }

    /// The plugin's secrets, opened for the request being built (and to
    /// be masked wherever they might show); a secret this PC cannot open
    /// is left out (the request then needs setup).
    pub fn open_secrets(&self, context: &CallContext) -> Vec<(String, Sensitive)> {
        let sealed = context.sealed.0.iter();
        sealed.filter_map(|(key, bytes)| Some((key.clone(), self.unseal(&context.slug, key, bytes)?))).collect()
    }

    /// The kept context and row of `slug`, if nothing they were made from changed.
    fn kept(&self, slug: &str, generation: i64) -> Option<Current> {
        let kept = self.contexts.0.borrow();
        let made = kept.get(slug)?;
        let current = made.generation == generation && FileStamp::of(&made.manifest).as_ref() == Some(&made.stamp);
        current.then(|| (Arc::clone(&made.context), Arc::clone(&made.row)))
    }

    /// The database's generation: changes with every write to a table a
    /// call context is read from.
    pub(crate) fn generation(&self) -> Result<i64, StoreError> {
        Ok(self.conn.prepare_cached("SELECT value FROM generation")?.query_row([], |r| r.get(0))?)
    }

    fn context_of(&self, row: &Row, prefs: &Prefs) -> Result<CallContext, StoreError> {
        let loaded = self.load(row);
        let status = self.status_of(row, &loaded, prefs)?;
        let plugin = match loaded {
            Loaded::Ready(plugin) => Some(plugin),
            _ => None,
        };
        let mut settings = Map::new();
        if let Some(p) = &plugin {
            let stored = self.stored_settings(&row.slug)?;
            for s in p.settings.iter().filter(|s| !s.is_secret()) {
                if let Some(v) = value_or_default(&stored, s) {
                    settings.insert(s.key.clone(), v);
                }
            }
        }
        Ok(CallContext {
            slug: row.slug.clone(),
            kept_on_pc: self.kept_on_pc(row, plugin.as_deref()),
            plugin,
            status,
            prefs: prefs.clone(),
            tools_off: self.tools_off(&row.slug)?,
            twitch_allowed: row.twitch_allowed,
            folder: row.origin == Origin::Folder,
            settings,
            sealed: SealedSecrets(self.sealed_secrets(&row.slug)?),
        })
    }
}
