//! Import and Load a folder (§3, §19): checking a package, keeping it in
//! quarantine until the player decides, the review, and cleaning leftovers.
//! A leftover is only ever a copy the store wrote (`files::made_by_store`):
//! a folder someone else put in the profile is never deleted.

use crate::error::StoreError;
use crate::files::{self, CopyLock};
use crate::review::{self, Origin, Previous, Review};
use crate::spelling;
use crate::Store;
use dcp_format::model::Plugin;
use dcp_format::package::{self, Package};
use dcp_format::{Code, Options, Problem};
use rusqlite::params;
use std::path::{Path, PathBuf};

/// A review older than a day is a leftover.
const REVIEW_SECONDS: i64 = 24 * 3600;
/// An emptied slug folder is removed once it is this old.
const EMPTY_FOLDER_SECONDS: u64 = 600;

impl Store {
    /// Imports a .json or .zip: checks it, copies it into quarantine and
    /// returns the review the consent screen shows (§3).
    pub fn import(&self, path: &Path) -> Result<Review, StoreError> {
        self.quarantine(&importable(path)?, Origin::Import, None)
    }

    /// Loads a plugin folder in place (§19): developer mode only, never a
    /// folder inside the app's own plugins folder. That check comes first,
    /// before the folder is read.
    pub fn load_folder(&self, dir: &Path) -> Result<Review, StoreError> {
        if self.inside_profile(dir) {
            return Err(StoreError::refused(
                Code::BadFolder,
                "package",
                "this folder is inside the app's own plugins folder: load your own copy instead",
            ));
        }
        // As Windows users spell it (`C:\…`): std's canonical form there is
        // the verbatim `\\?\C:\…`, which would show in every message and
        // `--json` naming the folder. dunce keeps it verbatim only where the
        // plain form would name another file (a reserved name, a long path).
        let dir = dunce::canonicalize(dir)
            .map_err(|e| StoreError::refused(Code::ReadFailed, "package", format!("{}: {e}", dir.display())))?;
        if !self.prefs()?.dev_mode {
            return Err(StoreError::refused(
                Code::DevModeRequired,
                "package",
                "Load a folder needs developer mode: turn it on first",
            ));
        }
        let package = package::read_path(&dir).map_err(|e| StoreError::Refused(single(e.into())))?;
        self.quarantine(&package, Origin::Folder, Some(dir))
    }

    /// True when `dir` is the profile (its plugins folder with it) or inside
    /// it, as written (a link inside pointing out included: the player sees
    /// it in the plugins folder) or with every link resolved (a link outside
    /// pointing in). A path that does not exist is judged as written; an
    /// empty one is left to the read, which refuses it.
    fn inside_profile(&self, dir: &Path) -> bool {
        let root = self.profile.root();
        let as_written = |p: &Path| std::path::absolute(p).map(|a| lexical(&a));
        let written = matches!((as_written(dir), as_written(root)), (Ok(d), Ok(r)) if d.starts_with(&r));
        let resolved = matches!((dir.canonicalize(), root.canonicalize()), (Ok(d), Ok(r)) if d.starts_with(&r));
        written || resolved
    }

    /// Validates, applies the host's checks, and records the review. A
    /// folder stays where it is; other packages are copied into quarantine.
    pub(crate) fn quarantine(
        &self,
        package: &Package,
        origin: Origin,
        folder: Option<PathBuf>,
    ) -> Result<Review, StoreError> {
        let (plugin, warnings) = self.validated(package, origin)?;
        let id = files::random_id();
        // Held until the review row names the copy (see `CopyLock`).
        let (dir, _copy) = match folder {
            Some(dir) => (dir, None),
            None => {
                let copy = CopyLock::take(&self.profile, &id)?;
                let dir = PathBuf::from("quarantine").join(&id);
                files::write_copy(&self.profile, &dir, package)?;
                (dir, Some(copy))
            }
        };
        self.conn.execute(
            "INSERT INTO reviews (id, slug, origin, dir, created_at, manifest_fingerprint) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, plugin.slug, origin.as_str(), dir.to_string_lossy(), self.now(), plugin.fingerprints.manifest],
        )?;
        let mut review = self.review_of(&id, &plugin, origin)?;
        review.warnings = warnings;
        Ok(review)
    }

    /// Validates a package and applies the host's checks of §22 "At import".
    pub(crate) fn validated(&self, package: &Package, origin: Origin) -> Result<(Plugin, Vec<Problem>), StoreError> {
        let options = Options { official: origin == Origin::Official, ..Options::default() };
        let report = dcp_format::check_package(package, &options);
        let Some(plugin) = report.plugin else { return Err(StoreError::Refused(report.problems)) };
        if origin.needs_dev_mode(plugin.talks_to_pc()) && !self.prefs()?.dev_mode {
            let (path, why) = if plugin.talks_to_pc() {
                (
                    "permissions.network.local.ports",
                    "this plugin talks to a program on this PC: turn on developer mode first",
                )
            } else {
                ("package", "a plugin from a folder needs developer mode: turn it on first")
            };
            return Err(StoreError::refused(Code::DevModeRequired, path, why));
        }
        Ok((plugin, report.problems.warnings))
    }

    /// The review of a pending package, against what is installed now.
    fn review_of(&self, id: &str, plugin: &Plugin, origin: Origin) -> Result<Review, StoreError> {
        let language = self.prefs()?.language;
        let existing = self.entry_row(&plugin.slug)?;
        let setting_keys = match &existing {
            Some(_) => self.stored_keys(&plugin.slug)?,
            None => Vec::new(),
        };
        let events_on = match &existing {
            Some(_) => self.events_on(&plugin.slug)?,
            None => Vec::new(),
        };
        let old = existing.as_ref().map(|row| Previous {
            version: row.version.clone(),
            permissions: row.permissions.clone(),
            cloud_choice: row.cloud_choice,
            setting_keys: &setting_keys,
            events_on: &events_on,
            manifest_fingerprint: &row.manifest_fingerprint,
        });
        Ok(review::build(id, plugin, origin, language, old))
    }

    /// Shows a pending review again.
    pub fn review(&self, id: &str) -> Result<Review, StoreError> {
        let (plugin, origin, _) = self.pending(id)?;
        self.review_of(id, &plugin, origin)
    }

    /// The pending package of a review, validated again now.
    pub(crate) fn pending(&self, id: &str) -> Result<(Plugin, Origin, (PathBuf, Package)), StoreError> {
        let row: Option<(Origin, String, Option<String>)> = rusqlite::OptionalExtension::optional(
            self.conn.query_row("SELECT origin, dir, manifest_fingerprint FROM reviews WHERE id = ?1", [id], |r| {
                Ok((spelling::column(r, 0)?, r.get(1)?, r.get(2)?))
            }),
        )?;
        let (origin, dir, reviewed) = row.ok_or_else(|| StoreError::UnknownReview(id.to_owned()))?;
        let dir = self.resolve(Path::new(&dir));
        let package = package::read_path(&dir).map_err(|e| StoreError::Refused(single(e.into())))?;
        let (plugin, _) = self.validated(&package, origin)?;
        // The player consented to what the review showed, not to whatever
        // the quarantined copy or the folder holds now.
        if reviewed.is_some_and(|fp| fp != plugin.fingerprints.manifest) {
            let again = if origin == Origin::Folder { "load the folder again" } else { "import it again" };
            return Err(StoreError::ReviewOutdated(format!(
                "the plugin changed since its review {id}: {again} to review it"
            )));
        }
        Ok((plugin, origin, (dir, package)))
    }

    /// Cancel: forgets the review and deletes the quarantined copy (never a
    /// loaded folder).
    pub fn cancel(&self, id: &str) -> Result<(), StoreError> {
        let row: Option<(Origin, String)> = rusqlite::OptionalExtension::optional(self.conn.query_row(
            "SELECT origin, dir FROM reviews WHERE id = ?1",
            [id],
            |r| Ok((spelling::column(r, 0)?, r.get(1)?)),
        ))?;
        let (origin, dir) = row.ok_or_else(|| StoreError::UnknownReview(id.to_owned()))?;
        self.conn.execute("DELETE FROM reviews WHERE id = ?1", [id])?;
        if origin != Origin::Folder {
            files::delete_copy(&self.profile, &self.resolve(Path::new(&dir)))?;
        }
        Ok(())
    }

    /// Removes what an interrupted import or install left behind: reviews
    /// older than a day, then the copies no row names (see
    /// [`Store::remove_orphan_copies`]).
    pub(crate) fn clean_leftovers(&self) -> Result<(), StoreError> {
        let stale = self.now() - REVIEW_SECONDS;
        let mut old = self.conn.prepare("SELECT id FROM reviews WHERE created_at < ?1")?;
        let ids: Vec<String> = old.query_map([stale], |r| r.get(0))?.collect::<Result<_, _>>()?;
        for id in ids {
            self.cancel(&id)?;
        }
        self.remove_orphan_copies()
    }

    /// Removes the copies (quarantined packages, generation folders) that no
    /// row names and no live process is writing: what a killed import,
    /// install or update left, at once rather than after a delay. Only a
    /// folder the store wrote is a copy ([`files::made_by_store`]): any
    /// other folder in `plugins/` or `quarantine/` is left alone. A copy's
    /// [`CopyLock`] held by another process means it is being written; once
    /// the lock is taken here the rows are read again, since a writer that
    /// just finished committed its row before letting go.
    pub(crate) fn remove_orphan_copies(&self) -> Result<(), StoreError> {
        let known = self.known_copies()?;
        for copy in self.copies()?.into_iter().filter(|c| !known.contains(c)) {
            let place = copy.strip_prefix(self.profile.root()).unwrap_or(&copy);
            if !files::made_by_store(&self.profile, place) {
                continue;
            }
            let id = copy.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let Some(_lock) = CopyLock::try_take(&self.profile, &id)? else { continue };
            if !self.known_copies()?.contains(&copy) {
                files::delete_copy(&self.profile, &copy)?;
            }
        }
        self.remove_empty_slug_dirs();
        // What a deletion or a writer killed midway left (see `files`).
        files::empty_trash(&self.profile)?;
        files::remove_stale_copy_locks(&self.profile)?;
        Ok(())
    }

    /// Every folder that a row may name.
    fn known_copies(&self) -> Result<Vec<PathBuf>, StoreError> {
        let mut known = self.conn.prepare_cached("SELECT dir FROM reviews UNION SELECT dir FROM plugins")?;
        let dirs = known.query_map([], |r| r.get::<_, String>(0))?;
        Ok(dirs.map(|d| d.map(|d| self.resolve(Path::new(&d)))).collect::<Result<_, _>>()?)
    }

    /// The folders where copies are written: `quarantine/<id>/` and
    /// `plugins/<slug>/<id>/` (whoever put them there).
    fn copies(&self) -> Result<Vec<PathBuf>, StoreError> {
        let folders = |dir: &Path| -> Vec<PathBuf> {
            let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
            entries.filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).map(|e| e.path()).collect()
        };
        let mut copies = folders(&self.profile.quarantine_dir());
        for slug_dir in folders(&self.profile.plugins_dir()) {
            copies.extend(folders(&slug_dir));
        }
        Ok(copies)
    }

    /// An emptied `plugins/<slug>/` holds nothing; it goes once it has been
    /// left empty a while (an install creates it just before its copy).
    fn remove_empty_slug_dirs(&self) {
        for slug_dir in std::fs::read_dir(self.profile.plugins_dir()).into_iter().flatten().flatten() {
            let slug_dir = slug_dir.path();
            if std::fs::read_dir(&slug_dir).is_ok_and(|mut d| d.next().is_none())
                && files::age_seconds(&slug_dir) > EMPTY_FOLDER_SECONDS
            {
                let _ = std::fs::remove_dir(&slug_dir);
            }
        }
    }
}

/// `path` with its `.` and `..` parts applied as written, links unresolved
/// (`std::path::absolute` keeps `..` on Unix).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn single(problem: dcp_format::Problem) -> dcp_format::Problems {
    let mut problems = dcp_format::Problems::default();
    problems.push(problem.code, problem.path, problem.message);
    problems
}

/// Reads a file to import: a .json or a .zip, never a folder (a folder is
/// loaded in place with Load a folder, §19).
fn importable(path: &Path) -> Result<Package, StoreError> {
    let package = package::read_path(path).map_err(|e| StoreError::Refused(single(e.into())))?;
    if package.source == package::Source::Folder {
        let why = "a folder is not imported: load it with Load a folder (developer mode), or import its manifest.json or a .zip";
        return Err(StoreError::refused(Code::UnsupportedPackage, "package", why));
    }
    Ok(package)
}
