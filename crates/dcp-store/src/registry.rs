//! Installed plugins: their rows, their files read back from disk with the
//! fingerprint lock (§3, §18), their statuses, and what `list` and `show`
//! present. Secrets are only ever reported as set or not set.

use crate::cloud::CloudChoice;
use crate::context::CallContext;
use crate::error::StoreError;
use crate::journal::{FailedCall, Failing};
use crate::prefs::Prefs;
use crate::review::Origin;
use crate::spelling;
use crate::status::{self, Facts, Status};
use crate::Store;
use dcp_format::fingerprint::{sha256_hex, Permissions};
use dcp_format::model::{Plugin, Setting, SettingKind};
use dcp_format::package::{self, MANIFEST_FILE};
use dcp_format::risk::Level;
use dcp_format::{Options, Problem};
use rusqlite::{OptionalExtension, Row as SqlRow};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The last validation of each plugin's manifest, keyed by slug, with the
/// digest of the bytes (and the options) it was made from. Every read of
/// the files still reads and hashes the manifest (a changed file is
/// Modified, §18), but only bytes not seen before are validated again: a
/// tool call should not pay for the whole validator. A call whose kept context still holds does not read the
/// files at all (see `context`).
#[derive(Default)]
pub(crate) struct Validated(RefCell<HashMap<String, (String, Loaded)>>);

/// A row of the `plugins` table.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub slug: String,
    pub origin: Origin,
    pub dir: PathBuf,
    pub version: String,
    pub manifest_fingerprint: String,
    pub permissions_fingerprint: String,
    pub permissions: Permissions,
    pub enabled: bool,
    pub cloud_choice: Option<CloudChoice>,
    pub twitch_allowed: bool,
    pub review_kept: bool,
}

const ROW_COLUMNS: &str = "slug, origin, dir, version, manifest_fingerprint, permissions_fingerprint, permissions, enabled, cloud_choice, twitch_allowed, review_kept";

/// A plugin's files as read now.
#[derive(Debug, Clone)]
pub(crate) enum Loaded {
    Ready(Arc<Plugin>),
    Missing(String),
    Invalid(Vec<Problem>),
    Modified,
}

/// One plugin, as `list` shows it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct Card {
    /// Slug.
    pub slug: String,
    /// Name shown to players.
    pub name: String,
    /// Installed version.
    pub version: String,
    /// Status (§18).
    pub status: Status,
    /// The player's on/off switch.
    pub enabled: bool,
    /// Where it comes from (§18: Not signed, Official, Folder (dev)).
    pub origin: Origin,
    /// It reads private data and is kept on this PC (§13): the player
    /// answered "Only with an AI running on this PC", or `never`.
    pub kept_on_pc: bool,
    /// The ports of programs on this PC it talks to (§15).
    pub local_ports: Vec<u16>,
    /// For an official plugin: the newer version the catalog offers (§18).
    pub update_available: Option<String>,
    /// "by …".
    pub author: Option<String>,
    /// The card's one-line description.
    pub description: Option<String>,
    /// The plugin has a usable icon.png ([`Store::icon`]); otherwise the card shows a letter tile (§4).
    pub has_icon: bool,
    /// Its failed calls of the last day, since it was installed (§19: shown
    /// on the card in developer mode; see [`crate::journal::RECENT_ERRORS_MS`]).
    pub recent_errors: u32,
    /// Its calls keep failing: none went through since (see
    /// [`Store::failing`]); shown on the card whatever the mode.
    pub failing: Option<Failing>,
}

/// One plugin in full, as `show` and the details page present it.
#[derive(Debug, Clone, Serialize)]
pub struct Details {
    /// The card.
    #[serde(flatten)]
    pub card: Card,
    /// Settings with their values; secrets only as set / not set.
    pub settings: Vec<SettingState>,
    /// Actions with their levels and switches.
    pub actions: Vec<ActionState>,
    /// Events with their switches.
    pub events: Vec<EventState>,
    /// "Sites it contacts" (the ports of a program on this PC are the card's).
    pub sites: Vec<String>,
    /// The online-AI choice: allow, local, or none when not asked.
    pub cloud_choice: Option<CloudChoice>,
    /// "Use while live on Twitch".
    pub twitch_allowed: bool,
    /// Developer section: the fingerprints recorded at install.
    pub manifest_fingerprint: String,
    /// Permissions fingerprint.
    pub permissions_fingerprint: String,
    /// The plugin's folder.
    pub folder: PathBuf,
    /// Errors of a manifest that no longer passes the checks.
    pub errors: Vec<Problem>,
    /// The review banner (§18): unsigned plugins show it until Keep.
    pub review_banner: bool,
}

/// What [`Store::details_page`] reads in one snapshot.
#[derive(Debug, Clone)]
pub struct DetailsPage {
    /// The plugin in full.
    pub details: Details,
    /// Its validated manifest, when it can be read (for texts in the player's language).
    pub plugin: Option<Arc<Plugin>>,
    /// The app switches, read with the rest.
    pub prefs: Prefs,
    /// Its last failed calls, newest first (Developer section, §19).
    pub last_failures: Vec<FailedCall>,
}

/// A setting in the details page.
#[derive(Debug, Clone, Serialize)]
pub struct SettingState {
    /// Key.
    pub key: String,
    /// Title.
    pub title: String,
    /// A secret.
    pub secret: bool,
    /// Required.
    pub required: bool,
    /// The value of a non-secret setting (stored, else the default).
    pub value: Option<serde_json::Value>,
    /// For a secret: set or not set (never the value).
    pub set: bool,
}

/// An action in the details page.
#[derive(Debug, Clone, Serialize)]
pub struct ActionState {
    /// `<slug>__<tool>`.
    pub full_name: String,
    /// Computed level.
    pub level: Level,
    /// Method.
    pub method: &'static str,
    /// URL template.
    pub url: String,
    /// The per-action switch.
    pub enabled: bool,
}

/// An event in the details page.
#[derive(Debug, Clone, Serialize)]
pub struct EventState {
    /// Name.
    pub name: String,
    /// Its switch.
    pub on: bool,
}

fn row_from(r: &SqlRow) -> rusqlite::Result<Row> {
    let permissions: String = r.get(6)?;
    Ok(Row {
        slug: r.get(0)?,
        origin: spelling::column(r, 1)?,
        dir: PathBuf::from(r.get::<_, String>(2)?),
        version: r.get(3)?,
        manifest_fingerprint: r.get(4)?,
        permissions_fingerprint: r.get(5)?,
        permissions: serde_json::from_str(&permissions)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(6, rusqlite::types::Type::Text, Box::new(e)))?,
        enabled: r.get(7)?,
        cloud_choice: spelling::optional_column(r, 8)?,
        twitch_allowed: r.get(9)?,
        review_kept: r.get(10)?,
    })
}

impl Store {
    pub(crate) fn entry_row(&self, slug: &str) -> Result<Option<Row>, StoreError> {
        let sql = format!("SELECT {ROW_COLUMNS} FROM plugins WHERE slug = ?1");
        Ok(self.conn.prepare_cached(&sql)?.query_row([slug], row_from).optional()?)
    }

    pub(crate) fn row(&self, slug: &str) -> Result<Row, StoreError> {
        self.entry_row(slug)?.ok_or_else(|| StoreError::UnknownPlugin(slug.to_owned()))
    }

    pub(crate) fn rows(&self) -> Result<Vec<Row>, StoreError> {
        let sql = format!("SELECT {ROW_COLUMNS} FROM plugins ORDER BY slug");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map([], row_from)?.collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// A stored folder, made absolute: the store's own folders are stored
    /// relative to the profile, so a moved profile keeps working.
    pub(crate) fn resolve(&self, dir: &Path) -> PathBuf {
        if dir.is_absolute() {
            dir.to_path_buf()
        } else {
            self.profile.root().join(dir)
        }
    }

    /// Reads a plugin's files now. Imported and official plugins are locked
    /// to the fingerprint recorded at install; a folder is not (§19).
    pub(crate) fn load(&self, row: &Row) -> Loaded {
        let dir = self.resolve(&row.dir);
        let bytes = match row.origin {
            Origin::Folder => match package::read_path(&dir) {
                Ok(pkg) => pkg.manifest,
                Err(e) if e.code == dcp_format::Code::NoManifest => return Loaded::Missing(e.message),
                Err(e) => return Loaded::Invalid(vec![e.into()]),
            },
            _ => match std::fs::read(dir.join(MANIFEST_FILE)) {
                Ok(bytes) => bytes,
                Err(e) => return Loaded::Missing(format!("{}: {e}", dir.display())),
            },
        };
        let digest = sha256_hex(&bytes);
        if row.origin != Origin::Folder && digest != row.manifest_fingerprint {
            return Loaded::Modified;
        }
        let official = row.origin == Origin::Official;
        let key = format!("{digest}/{official}");
        if let Some((seen, loaded)) = self.validated.0.borrow().get(&row.slug) {
            if *seen == key {
                return loaded.clone();
            }
        }
        let loaded = validated(row, &bytes, official);
        self.validated.0.borrow_mut().insert(row.slug.clone(), (key, loaded.clone()));
        loaded
    }
}

/// Validates a plugin's manifest bytes as the store reads them.
fn validated(row: &Row, bytes: &[u8], official: bool) -> Loaded {
    let options = Options { official, ..Options::default() };
    let report = dcp_format::validate_manifest(bytes, &options);
    match report.plugin {
        Some(plugin) if plugin.slug == row.slug => Loaded::Ready(Arc::new(plugin)),
        Some(plugin) => Loaded::Invalid(vec![Problem {
            code: dcp_format::Code::BadSlug,
            path: "slug".into(),
            message: format!("the slug changed from {} to {}: load the folder again", row.slug, plugin.slug),
        }]),
        None => Loaded::Invalid(report.problems.errors),
    }
}

impl Store {
    /// Every installed plugin with its status, by slug.
    pub fn list(&self) -> Result<Vec<Card>, StoreError> {
        // One snapshot, and each plugin through its kept call context and
        // row: a plugin nothing changed in costs a `stat`, not a hash of its
        // manifest nor a parse of its row (the same context every call and
        // the door use). The recent errors are one range of an index.
        self.snapshot(|| {
            let generation = self.generation()?;
            let slugs = self.slugs()?;
            let errors = self.recent_errors(None)?;
            let mut cards = Vec::with_capacity(slugs.len());
            for slug in &slugs {
                let Some((context, row)) = self.context_and_row(slug, generation)? else { continue };
                let recent = errors.get(slug).copied().unwrap_or(0);
                let failing = self.failing(slug, recent)?;
                cards.push(self.card_from(
                    &row,
                    context.plugin.as_deref(),
                    context.status,
                    context.kept_on_pc,
                    recent,
                    failing,
                ));
            }
            Ok(cards)
        })
    }

    /// One plugin's card, as [`Store::list`] shows it, without the others.
    pub fn card(&self, slug: &str) -> Result<Card, StoreError> {
        self.snapshot(|| {
            let (context, row) = self
                .context_and_row(slug, self.generation()?)?
                .ok_or_else(|| StoreError::UnknownPlugin(slug.to_owned()))?;
            let recent = self.recent_errors(Some(slug))?.get(slug).copied().unwrap_or(0);
            let failing = self.failing(slug, recent)?;
            Ok(self.card_from(&row, context.plugin.as_deref(), context.status, context.kept_on_pc, recent, failing))
        })
    }

    /// Every installed slug, in order.
    pub(crate) fn slugs(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT slug FROM plugins ORDER BY slug")?;
        let slugs = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok(slugs)
    }

    /// The bytes of a plugin's icon.png when it is a real PNG (§4), else
    /// none: the card shows the first letter of its name on a tile.
    pub fn icon(&self, slug: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let row = self.row(slug)?;
        Ok(package::read_path(&self.resolve(&row.dir)).ok().and_then(|p| p.icon))
    }

    /// One plugin in full.
    pub fn show(&self, slug: &str) -> Result<Details, StoreError> {
        Ok(self.details_page(slug, 0)?.details)
    }

    /// Everything the details page shows (§18, §19), read in one snapshot:
    /// the plugin in full, its manifest, the app switches and its last
    /// `failures` failed calls.
    pub fn details_page(&self, slug: &str, failures: usize) -> Result<DetailsPage, StoreError> {
        self.snapshot(|| {
            let (context, row) = self
                .context_and_row(slug, self.generation()?)?
                .ok_or_else(|| StoreError::UnknownPlugin(slug.to_owned()))?;
            let last_failures = if failures == 0 { Vec::new() } else { self.last_failures(slug, failures)? };
            Ok(DetailsPage {
                details: self.details_of(&context, &row)?,
                plugin: context.plugin.clone(),
                prefs: context.prefs.clone(),
                last_failures,
            })
        })
    }

    /// The details of a plugin from its current context and row. Status,
    /// settings, secrets set and switches are the context's, as a card and
    /// a call see them: one plugin has one state whoever reads it. Only a
    /// plugin that cannot be read is read again, for its errors.
    fn details_of(&self, context: &CallContext, row: &Row) -> Result<Details, StoreError> {
        let loaded = context.plugin.clone().map_or_else(|| self.load(row), Loaded::Ready);
        let plugin = context.plugin.as_deref();
        let recent = self.recent_errors(Some(&row.slug))?.get(&row.slug).copied().unwrap_or(0);
        let failing = self.failing(&row.slug, recent)?;
        let card = self.card_from(row, plugin, context.status, context.kept_on_pc, recent, failing);
        let events_on = self.events_on(&row.slug)?;
        let settings = plugin.map(|p| {
            p.settings
                .iter()
                .map(|s| SettingState {
                    key: s.key.clone(),
                    title: s.title.clone(),
                    secret: s.is_secret(),
                    required: s.required,
                    // The context's values: stored, else the default.
                    value: if s.is_secret() { None } else { context.settings.get(&s.key).cloned() },
                    set: s.is_secret() && context.sealed.has(&s.key),
                })
                .collect()
        });
        let actions = plugin.map(|p| {
            p.tools
                .iter()
                .map(|t| ActionState {
                    full_name: t.full_name.to_string(),
                    level: t.level,
                    method: t.request.method.as_str(),
                    url: t.request.url.clone(),
                    enabled: !context.tools_off.contains(&t.name),
                })
                .collect()
        });
        let events = plugin.map(|p| {
            p.events.iter().map(|e| EventState { name: e.name.clone(), on: events_on.contains(&e.name) }).collect()
        });
        let errors = match &loaded {
            Loaded::Invalid(problems) => problems.clone(),
            Loaded::Missing(why) => {
                vec![Problem { code: dcp_format::Code::ReadFailed, path: MANIFEST_FILE.into(), message: why.clone() }]
            }
            _ => Vec::new(),
        };
        Ok(Details {
            settings: settings.unwrap_or_default(),
            actions: actions.unwrap_or_default(),
            events: events.unwrap_or_default(),
            // What the file declares now, which is what calls use (a saved
            // folder's new sites apply at once, §19); the row's otherwise.
            sites: plugin.map_or_else(|| row.permissions.hosts.iter().cloned().collect(), |p| p.hosts.clone()),
            cloud_choice: row.cloud_choice,
            twitch_allowed: row.twitch_allowed,
            manifest_fingerprint: row.manifest_fingerprint.clone(),
            permissions_fingerprint: row.permissions_fingerprint.clone(),
            folder: self.resolve(&row.dir),
            errors,
            review_banner: row.origin == Origin::Import && !row.review_kept,
            card,
        })
    }

    /// The card of a plugin from its row, its manifest when readable, its
    /// status, its number of recent errors and whether its calls keep failing.
    fn card_from(
        &self,
        row: &Row,
        plugin: Option<&Plugin>,
        status: Status,
        kept_on_pc: bool,
        recent_errors: u32,
        failing: Option<Failing>,
    ) -> Card {
        // A saved folder's version shows at once, as every other reader sees it.
        let version = plugin.map_or_else(|| row.version.clone(), |p| p.version.to_string());
        let update_available =
            (row.origin == Origin::Official).then(|| crate::catalog::newer_than(&row.slug, &version)).flatten();
        Card {
            slug: row.slug.clone(),
            name: plugin.map_or_else(|| row.slug.clone(), |p| p.display_name.clone()),
            version,
            status,
            enabled: row.enabled,
            origin: row.origin,
            kept_on_pc: plugin.is_some_and(|p| p.reads_private_data()) && kept_on_pc,
            local_ports: local_ports(row, plugin),
            update_available,
            author: plugin.and_then(|p| p.author.clone()),
            description: plugin.and_then(|p| p.description.clone()),
            has_icon: self.resolve(&row.dir).join(package::ICON_FILE).is_file(),
            recent_errors,
            failing,
        }
    }

    /// The status of a plugin whose files were just read (§18).
    pub(crate) fn status_of(&self, row: &Row, loaded: &Loaded, prefs: &Prefs) -> Result<Status, StoreError> {
        let facts = Facts {
            missing: matches!(loaded, Loaded::Missing(_)),
            invalid: matches!(loaded, Loaded::Invalid(_)),
            modified: matches!(loaded, Loaded::Modified),
            needs_dev_mode: row.origin.needs_dev_mode(!row.permissions.local_ports.is_empty()),
            dev_mode: prefs.dev_mode,
            enabled: row.enabled,
            plugins_enabled: prefs.plugins_enabled,
            needs_setup: match loaded {
                Loaded::Ready(p) => self.needs_setup(p)?,
                _ => false,
            },
            tools_enabled: prefs.tools_enabled,
        };
        Ok(status::status_of_facts(facts))
    }

    /// True when the plugin only works with an AI on this PC (§13).
    pub(crate) fn kept_on_pc(&self, row: &Row, plugin: Option<&Plugin>) -> bool {
        crate::cloud::kept_on_pc(row.cloud_choice, plugin)
    }

    /// A required setting is missing, or a stored secret cannot be read on
    /// this PC (§10, §11, §18 "Needs setup").
    pub(crate) fn needs_setup(&self, plugin: &Plugin) -> Result<bool, StoreError> {
        let stored = self.stored_settings(&plugin.slug)?;
        let sealed = self.sealed_secrets(&plugin.slug)?;
        Ok(plugin.settings.iter().any(|setting| {
            if setting.is_secret() {
                let kept = sealed.iter().find(|(key, _)| *key == setting.key);
                let readable = kept.is_some_and(|(key, bytes)| self.unseal(&plugin.slug, key, bytes).is_some());
                !readable && (setting.required || kept.is_some())
            } else {
                setting.required
                    && !stored.iter().any(|(key, _)| *key == setting.key)
                    && default_of(&setting.kind).is_none()
            }
        }))
    }

    pub(crate) fn stored_settings(&self, slug: &str) -> Result<Vec<(String, serde_json::Value)>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT key, value FROM settings WHERE slug = ?1 ORDER BY key")?;
        let rows = stmt.query_map([slug], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (key, text) = row?;
            out.push((key, serde_json::from_str(&text).unwrap_or(serde_json::Value::Null)));
        }
        Ok(out)
    }

    /// Keys that have a stored value or secret (for an update's review).
    pub(crate) fn stored_keys(&self, slug: &str) -> Result<Vec<String>, StoreError> {
        let mut keys: Vec<String> = self.stored_settings(slug)?.into_iter().map(|(k, _)| k).collect();
        keys.extend(self.stored_keys_secret(slug)?);
        Ok(keys)
    }

    pub(crate) fn stored_keys_secret(&self, slug: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT key FROM secrets WHERE slug = ?1 ORDER BY key")?;
        let keys = stmt.query_map([slug], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok(keys)
    }

    pub(crate) fn tools_off(&self, slug: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT tool FROM tools_off WHERE slug = ?1")?;
        let tools = stmt.query_map([slug], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok(tools)
    }

    pub(crate) fn events_on(&self, slug: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT event FROM events_on WHERE slug = ?1")?;
        let events = stmt.query_map([slug], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok(events)
    }
}

/// A setting's default, as stored values are.
/// The ports of a server on the PC, as the file declares them now (the row's when it cannot be read).
fn local_ports(row: &Row, plugin: Option<&Plugin>) -> Vec<u16> {
    plugin.map_or_else(|| row.permissions.local_ports.iter().copied().collect(), |p| p.local_ports.clone())
}

/// A non-secret setting's value: the stored one, else its default.
pub(crate) fn value_or_default(stored: &[(String, serde_json::Value)], setting: &Setting) -> Option<serde_json::Value> {
    stored.iter().find(|(k, _)| *k == setting.key).map(|(_, v)| v.clone()).or_else(|| default_of(&setting.kind))
}

pub(crate) fn default_of(kind: &SettingKind) -> Option<serde_json::Value> {
    match kind {
        SettingKind::Text { default, .. } => default.clone().map(Into::into),
        // Whole numbers as integers, as `setting_value::check` stores them,
        // so a default renders `10` in `{{config.x}}`, not `10.0`.
        SettingKind::Number { default, .. } => default.map(dcp_format::setting_value::json_number),
        SettingKind::Boolean { default } => default.map(Into::into),
    }
}
