//! Reading a plugin package (spec §4): a .json file, a .zip, or a folder.
//!
//! STUB: being written; the signatures below are the contract.

use crate::problem::{Code, Problem};
use std::path::Path;

/// Where a package came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A single manifest file ending in .json.
    Json,
    /// A .zip package.
    Zip,
    /// A folder holding manifest.json (Load a folder, `dcplugin pack`).
    Folder,
}

/// The files of a package, read within the limits of §4.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// Where it came from.
    pub source: Source,
    /// The manifest's bytes, at most 64 KB.
    pub manifest: Vec<u8>,
    /// icon.png, only when it is a real PNG.
    pub icon: Option<Vec<u8>>,
    /// Why an icon.png present in the package is not used (not a real PNG).
    pub icon_ignored: Option<String>,
    /// readme.md and license files, kept beside the manifest, by name.
    pub extras: Vec<(String, Vec<u8>)>,
}

/// Why a package cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct PackageError {
    /// The §22 code.
    pub code: Code,
    /// The entry concerned, or `package`.
    pub path: String,
    /// Why.
    pub message: String,
}

impl From<PackageError> for Problem {
    fn from(e: PackageError) -> Self {
        Problem {
            code: e.code,
            path: e.path,
            message: e.message,
        }
    }
}

/// Reads a .json, a .zip or a folder.
pub fn read_path(_path: &Path) -> Result<Package, PackageError> {
    unimplemented!()
}

/// Reads a package from bytes; `file_name` decides .json or .zip.
pub fn read_bytes(_file_name: &str, _bytes: &[u8]) -> Result<Package, PackageError> {
    unimplemented!()
}
