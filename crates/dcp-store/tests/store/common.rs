//! Shared helpers of the store's integration tests: temp profiles on real
//! files and a real SQLite database, the example plugins, manifest edits.

use dcp_store::{Clock, CloudChoice, InstallOptions, Profile, Store, StoreError, SystemClock};
use dcp_vault::testing::MemoryKeyStore;
use dcp_vault::{KeyStore, Sensitive};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use dcp_store::Status;

pub const SECRET: &str = "tok-3c1f9a-unique-secret-value-77";

/// The example plugins folder.
pub fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples")
}

/// An example's manifest as JSON.
pub fn example(name: &str) -> Value {
    let text = std::fs::read_to_string(examples().join(name).join("manifest.json")).expect("example manifest");
    serde_json::from_str(&text).expect("example is JSON")
}

/// The Desktop Companion block of a manifest.
pub fn meta(manifest: &mut Value) -> &mut Value {
    &mut manifest["_meta"]["com.desktopaicompanion"]
}

/// A temp profile and its store.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub keys: Arc<dyn KeyStore>,
    pub store: Store,
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture::with_keys(Arc::new(MemoryKeyStore::new()))
    }

    pub fn with_keys(keys: Arc<dyn KeyStore>) -> Fixture {
        Fixture::with(keys, Arc::new(SystemClock))
    }

    /// A store reading `clock` instead of the system's.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Fixture {
        Fixture::with(Arc::new(MemoryKeyStore::new()), clock)
    }

    fn with(keys: Arc<dyn KeyStore>, clock: Arc<dyn Clock>) -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let profile = Profile::at(dir.path().join("profile")).expect("profile");
        let store = Store::open_with_clock(profile, keys.clone(), clock).expect("store opens");
        Fixture { dir, keys, store }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("profile")
    }

    /// Opens the same profile again (as the next start of the app would).
    pub fn reopen(&mut self) {
        self.store = Store::open(Profile::at(self.root()).expect("profile"), self.keys.clone()).expect("store reopens");
    }

    /// Writes a manifest to a file outside the profile and returns its path.
    pub fn file(&self, name: &str, manifest: &Value) -> PathBuf {
        let files = self.dir.path().join("files");
        std::fs::create_dir_all(&files).expect("files dir");
        let path = files.join(name);
        std::fs::write(&path, serde_json::to_string_pretty(manifest).expect("json")).expect("write manifest");
        path
    }

    /// Imports an example from its folder's manifest.json.
    pub fn import_example(&self, name: &str) -> Result<dcp_store::Review, StoreError> {
        self.store.import(&examples().join(name).join("manifest.json"))
    }

    pub fn dev_mode(&self, on: bool) {
        self.store.set_pref("dev_mode", if on { "true" } else { "false" }).expect("dev mode");
    }

    /// A raw connection to the profile's database.
    pub fn sql(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.root().join("host.sqlite")).expect("raw db")
    }

    pub fn count(&self, sql: &str) -> i64 {
        self.sql().query_row(sql, [], |r| r.get(0)).expect("count")
    }

    /// Every byte of the database (main file, WAL and shared memory).
    pub fn db_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(self.root()).expect("profile").flatten() {
            if entry.file_name().to_string_lossy().starts_with("host.sqlite") {
                out.extend(std::fs::read(entry.path()).expect("db file"));
            }
        }
        out
    }

    /// The status of an installed plugin.
    pub fn status(&self, slug: &str) -> Status {
        self.store.show(slug).expect("show").card.status
    }
}

/// True when `needle` occurs in `hay`.
pub fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

pub fn options(settings: &[(&str, Value)], secrets: &[(&str, &str)], cloud: Option<CloudChoice>) -> InstallOptions {
    InstallOptions {
        settings: settings.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect(),
        secrets: secrets.iter().map(|(k, v)| ((*k).to_owned(), Sensitive::new((*v).to_owned()))).collect(),
        cloud,
    }
}

/// The first §22 code of an error.
pub fn code(error: &StoreError) -> String {
    error.code().map_or("<none>".into(), |c| c.to_string())
}

/// Installs my-tasks with its token and the cloud answer.
pub fn install_my_tasks(f: &Fixture) {
    let review = f.import_example("my-tasks").expect("import my-tasks");
    f.store
        .install(&review.review, options(&[], &[("api_token", SECRET)], Some(CloudChoice::Allow)))
        .expect("install my-tasks");
}

/// Copies an example folder to `dest`.
pub fn copy_dir(from: &Path, dest: &Path) {
    std::fs::create_dir_all(dest).expect("dest");
    for entry in std::fs::read_dir(from).expect("src").flatten() {
        std::fs::copy(entry.path(), dest.join(entry.file_name())).expect("copy");
    }
}

/// Every file under `dir`.
pub fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
