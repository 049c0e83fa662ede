//! The plugin store: everything the host keeps about plugins in a profile.
//!
//! It owns the profile folder and its database (see [`profile`]), the
//! quarantine and the consent review (§3), install, update and uninstall
//! with a crash-safe commit (§18), statuses and the fingerprint lock (§18),
//! settings and sealed secrets (§10, §11), developer mode and folder
//! plugins (§15, §19), and the official catalog.
//!
//! *Architecture invariant:* only this crate writes the profile; only
//! `dcp-vault` sees a secret in clear, and the store hands secrets back to
//! no caller except the request builder (through [`Store::open_secrets`]).

#![deny(missing_docs)]

mod ai;
pub mod catalog;
pub mod clock;
mod cloud;
mod context;
mod db;
mod error;
mod event_tokens;
mod files;
mod install;
pub mod journal;
pub mod prefs;
pub mod private;
pub mod profile;
mod quarantine;
mod registry;
pub mod review;
mod spelling;
mod stamp;
pub mod status;
mod switches;
pub mod turns;
pub mod watch;

pub use ai::{AiStored, KeyOrigin};
pub use clock::{Clock, SystemClock};
pub use cloud::{CloudChoice, CloudQuestion};
pub use context::{CallContext, SealedSecrets};
pub use error::StoreError;
pub use event_tokens::TOKEN_BYTES;
pub use install::{InstallOptions, Installed};
pub use prefs::{ChatChange, ChatSettings, Prefs, Switch};
pub use profile::Profile;
pub use registry::{ActionState, Card, Details, DetailsPage, EventState, SettingState};
pub use review::{EventView, Origin, Review, SettingView};
pub use status::Status;

use dcp_vault::{KeyStore, Vault};
use rusqlite::{Connection, OptionalExtension};
use std::sync::Arc;

/// A profile opened for reading and writing.
pub struct Store {
    profile: Profile,
    conn: Connection,
    vault: Vault,
    validated: registry::Validated,
    contexts: context::Contexts,
    clock: Arc<dyn Clock>,
}

impl Store {
    /// Opens the profile's database (creating it), binds the vault to this
    /// profile's id, and cleans leftovers of interrupted work.
    pub fn open(profile: Profile, key_store: Arc<dyn KeyStore>) -> Result<Store, StoreError> {
        Store::open_with_clock(profile, key_store, Arc::new(SystemClock))
    }

    /// [`Store::open`] with another clock than the system's (see [`clock`]).
    pub fn open_with_clock(
        profile: Profile,
        key_store: Arc<dyn KeyStore>,
        clock: Arc<dyn Clock>,
    ) -> Result<Store, StoreError> {
        let conn = db::open(&profile.db_path())?;
        let id = profile_id(&conn)?;
        let store = Store {
            profile,
            conn,
            vault: Vault::new(key_store, id),
            validated: Default::default(),
            contexts: Default::default(),
            clock,
        };
        store.clean_leftovers()?;
        Ok(store)
    }

    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Runs the reads of `f` in one read transaction: one snapshot of the
    /// profile, and one round of WAL locks instead of one per statement
    /// (each costs file-lock system calls on every tool call). Inside a
    /// transaction already, `f` simply runs in it.
    pub(crate) fn snapshot<T>(&self, f: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
        if !self.conn.is_autocommit() {
            return f();
        }
        let tx = self.conn.unchecked_transaction()?;
        let out = f()?;
        tx.commit()?;
        Ok(out)
    }

    /// Opens a write transaction holding the write lock from its first
    /// statement (IMMEDIATE), so it waits on the busy timeout for another
    /// writer instead of failing with `SQLITE_BUSY` when a read snapshot
    /// would have to be upgraded: the host runs a window, the door, the
    /// folder watchers and tool calls on one profile at once.
    pub(crate) fn write_tx(&self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        Ok(rusqlite::Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)?)
    }

    /// The app switches.
    pub fn prefs(&self) -> Result<Prefs, StoreError> {
        prefs::read(&self.conn)
    }

    /// Sets an app switch.
    pub fn set_switch(&self, switch: &Switch) -> Result<(), StoreError> {
        prefs::write(&self.conn, switch)
    }

    /// Sets an app switch written as text, `key` = `value`
    /// (`plugins_enabled`, `tools_enabled`, `dev_mode`: `true` or `false`;
    /// `language`).
    pub fn set_pref(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.set_switch(&Switch::parse(key, value)?)
    }
}

/// The profile's own id, made once: it names the vault key in the OS
/// credential store, so a profile copied to another account finds no key.
fn profile_id(conn: &Connection) -> Result<String, StoreError> {
    let existing: Option<String> =
        conn.query_row("SELECT value FROM prefs WHERE key = 'profile_id'", [], |r| r.get(0)).optional()?;
    if let Some(id) = existing {
        return Ok(id);
    }
    let id = files::random_id();
    conn.execute("INSERT OR IGNORE INTO prefs (key, value) VALUES ('profile_id', ?1)", [&id])?;
    Ok(conn.query_row("SELECT value FROM prefs WHERE key = 'profile_id'", [], |r| r.get(0))?)
}
