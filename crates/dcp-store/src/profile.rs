//! The profile: the one folder that holds all of a player's plugin state.
//!
//! ```text
//! <profile>/
//!   host.sqlite           registry, settings, sealed secrets, switches, prefs, reviews (WAL)
//!   plugins/<slug>/<gen>/  the installed files of each imported plugin, one generation folder
//!                          per install or update (see install.rs for why)
//!   quarantine/<review>/   a package waiting for the player's consent
//!                          (each copy holds `.dcplugin-copy`, naming its place: see files.rs)
//!   locks/                 lock files: one call at a time per plugin, copies being written
//!   trash/<id>/            a copy being deleted: renamed here first, emptied at every open
//! ```
//!
//! Everything in it is the player's only (see [`crate::private`]).
//!
//! By default the profile is the app's data folder for the OS (the one the
//! Tauri app uses, named by its identifier); `dcplugin --profile DIR` or
//! `DCPLUGIN_PROFILE` point elsewhere.

use crate::private;
use std::path::{Path, PathBuf};

/// The app's identifier: the name of its data folder.
pub const APP_ID: &str = "com.desktopaicompanion.plugins";
/// The environment variable naming a profile folder.
pub const PROFILE_ENV: &str = "DCPLUGIN_PROFILE";
/// The folder of lock files, under the profile.
pub const LOCKS_DIR: &str = "locks";

/// The folders and files of one profile.
#[derive(Debug, Clone)]
pub struct Profile {
    root: PathBuf,
}

impl Profile {
    /// The profile at `root`, creating its folders and its database file
    /// for the user only, and repairing the modes of an existing one.
    pub fn at(root: impl Into<PathBuf>) -> std::io::Result<Profile> {
        let profile = Profile { root: root.into() };
        private::create_dir_all(&profile.plugins_dir())?;
        private::create_dir_all(&profile.quarantine_dir())?;
        // Created here, empty, so that SQLite (which gives its WAL,
        // shared-memory and journal files the database file's mode) never
        // creates it with the umask's mode. An empty file is an empty database.
        private::file_options().create(true).append(true).open(profile.db_path())?;
        private::repair(&profile.root)?;
        Ok(profile)
    }

    /// The profile named explicitly, else by `DCPLUGIN_PROFILE`, else the
    /// OS data folder of the app.
    pub fn locate(explicit: Option<PathBuf>) -> std::io::Result<Profile> {
        let root = explicit
            .or_else(|| std::env::var_os(PROFILE_ENV).filter(|v| !v.is_empty()).map(PathBuf::from))
            .or_else(|| dirs::data_dir().map(|d| d.join(APP_ID)))
            .ok_or_else(|| std::io::Error::other("no data folder on this system: use --profile DIR"))?;
        Profile::at(root)
    }

    /// The profile's root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where imported plugins are installed.
    pub fn plugins_dir(&self) -> PathBuf {
        self.root.join("plugins")
    }

    /// Where packages wait for consent.
    pub fn quarantine_dir(&self) -> PathBuf {
        self.root.join("quarantine")
    }

    /// Where lock files are kept.
    pub fn locks_dir(&self) -> PathBuf {
        self.root.join(LOCKS_DIR)
    }

    /// The database file.
    pub fn db_path(&self) -> PathBuf {
        self.root.join("host.sqlite")
    }
}

#[cfg(test)]
mod tests {
    use super::APP_ID;

    /// The window's shell (Tauri) names its data folder by its own
    /// identifier; the command line finds the same folder by `APP_ID`.
    #[test]
    fn the_app_id_is_the_tauri_identifier() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../src-tauri/tauri.conf.json");
        let text = std::fs::read_to_string(path).expect("src-tauri/tauri.conf.json");
        let conf: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(conf["identifier"].as_str(), Some(APP_ID));
    }
}
