//! The validator (spec §5–§16, §21, §22 "At import").
//!
//! STUB: being written.

use crate::model::Plugin;
use crate::package::Package;
use crate::problem::Problems;
use crate::version::Version;

/// What the validator is checking against.
#[derive(Debug, Clone)]
pub struct Options {
    /// The app version `minAppVersion` is compared with.
    pub app_version: Version,
    /// True for the official plugins bundled with the app (R4 and the
    /// official slugs allowed).
    pub official: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { app_version: Version::APP, official: false }
    }
}

/// The outcome of validating one manifest.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every problem found.
    pub problems: Problems,
    /// The slug, when the manifest names a readable one.
    pub slug: Option<String>,
    /// The validated plugin, present exactly when there is no error.
    pub plugin: Option<Plugin>,
}

/// Validates manifest bytes.
pub fn validate_manifest(_bytes: &[u8], _options: &Options) -> Report {
    Report { problems: Problems::default(), slug: None, plugin: None }
}

/// Validates a package's manifest.
pub fn check_package(package: &Package, options: &Options) -> Report {
    validate_manifest(&package.manifest, options)
}
