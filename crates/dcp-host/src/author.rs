//! A plugin author's tools, without a profile: check a package as the
//! importer would, pack a folder into the .zip §4 allows, check a manifest
//! being written. The command line's `validate`, `pack` and `init` call
//! these instead of reading packages and running the validator themselves.

use dcp_format::package::{self, Package, Source};
use dcp_format::version::Version;
use dcp_format::{Options, Problems};
use std::path::Path;

/// The files a package may hold besides the manifest and the icon (§4).
pub use dcp_format::package::{EXTRA_FILES, ICON_FILE, MANIFEST_FILE};

/// A package as the importer would judge it.
#[derive(Debug, Clone)]
pub struct PackageCheck {
    /// Every problem found, errors and warnings; reading problems included.
    pub problems: Problems,
    /// The slug, when the manifest names a well-formed one.
    pub slug: Option<String>,
    /// The plugin, when it has no error.
    pub plugin: Option<CheckedPlugin>,
    /// Why an icon.png of the package is not used (not a real PNG).
    pub icon_ignored: Option<String>,
    /// The files the package holds, in package order (manifest, icon, extras).
    pub files: Vec<String>,
}

/// The plugin of a package without an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedPlugin {
    /// Slug.
    pub slug: String,
    /// Name shown to players.
    pub name: String,
    /// Version.
    pub version: String,
}

/// A folder packed: its check, and the .zip when the plugin passes.
#[derive(Debug, Clone)]
pub struct Packed {
    /// The folder as the importer would judge it.
    pub check: PackageCheck,
    /// The package's bytes, only for a plugin without an error.
    pub zip: Option<Vec<u8>>,
    /// `<slug>-<version>.zip`, the name a pack gets by default.
    pub file_name: Option<String>,
}

/// Checks the .json, .zip or folder at `path` for an app of `app_version`
/// (this app's by default).
pub fn validate_path(path: &Path, app_version: Option<Version>) -> PackageCheck {
    let options = Options { app_version: app_version.unwrap_or(Version::APP), ..Options::default() };
    match package::read_path(path) {
        Ok(pkg) => check(&pkg, &options),
        Err(e) => unreadable(e),
    }
}

/// Packs a plugin folder (§4): the .zip holds only the files a package may.
pub fn pack(folder: &Path) -> Packed {
    let pkg = match package::read_path(folder) {
        Ok(pkg) => pkg,
        Err(e) => return Packed { check: unreadable(e), zip: None, file_name: None },
    };
    debug_assert_eq!(pkg.source, Source::Folder);
    let mut check = check(&pkg, &Options::default());
    let Some(plugin) = check.plugin.clone() else { return Packed { check, zip: None, file_name: None } };
    match package::to_zip(&pkg) {
        Ok(bytes) => {
            let file_name = format!("{}-{}.zip", plugin.slug, plugin.version);
            Packed { check, zip: Some(bytes), file_name: Some(file_name) }
        }
        Err(e) => {
            check.problems.push(e.code, e.path, e.message);
            Packed { check, zip: None, file_name: None }
        }
    }
}

/// Checks a manifest's bytes with the default options (a new plugin).
pub fn validate_manifest(bytes: &[u8]) -> Problems {
    dcp_format::validate_manifest(bytes, &Options::default()).problems
}

/// What a port is reserved for, when a plugin may not declare it (§15).
pub fn reserved_port(port: u16) -> Option<&'static str> {
    dcp_format::hosts::reserved_port(port)
}

fn check(pkg: &Package, options: &Options) -> PackageCheck {
    let report = dcp_format::check_package(pkg, options);
    let mut files = vec![MANIFEST_FILE.to_owned()];
    if pkg.icon.is_some() {
        files.push(ICON_FILE.to_owned());
    }
    files.extend(pkg.extras.iter().map(|(name, _)| name.clone()));
    PackageCheck {
        plugin: report.plugin.map(|p| CheckedPlugin {
            slug: p.slug,
            name: p.display_name,
            version: p.version.to_string(),
        }),
        problems: report.problems,
        slug: report.slug,
        icon_ignored: pkg.icon_ignored.clone(),
        files,
    }
}

fn unreadable(e: package::PackageError) -> PackageCheck {
    let mut problems = Problems::default();
    problems.push(e.code, e.path, e.message);
    PackageCheck { problems, slug: None, plugin: None, icon_ignored: None, files: Vec::new() }
}
