//! Key stores for tests whose subject is not the OS credential store.
//!
//! * [`MemoryKeyStore`] keeps keys in process memory. Use it to test what
//!   the store does with sealed secrets without touching the real
//!   credential store. Never use it in the app: its keys die with the
//!   process, so every secret would show "Needs setup" at the next start.
//! * [`UnavailableKeyStore`] fails every call, as a PC with no working
//!   credential store does; with it, saving a secret fails with
//!   `vault_unavailable` (§22). Its [`KeyStore::persistence`] is the
//!   default, `Persistent`: nothing is kept, so there is nothing to warn
//!   about.
//!
//! They are always compiled (they have no dependency and no I/O) so that the
//! crates calling the vault can use them in their own tests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::KeyStoreError;
use crate::key_store::{KeyStore, Persistence, VaultKey};

/// Vault keys in process memory, for tests. Clones share the same keys.
///
/// It stands in for the OS store, so it reports
/// [`Persistence::Persistent`] unless told otherwise
/// ([`MemoryKeyStore::with_persistence`]), even though its keys die with the
/// process.
#[derive(Debug, Clone)]
pub struct MemoryKeyStore {
    keys: Arc<Mutex<HashMap<String, VaultKey>>>,
    persistence: Persistence,
}

impl Default for MemoryKeyStore {
    fn default() -> Self {
        MemoryKeyStore { keys: Arc::default(), persistence: Persistence::Persistent }
    }
}

impl MemoryKeyStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same store reporting `persistence`: with
    /// [`Persistence::UntilRestart`], a test sees what a Linux PC without a
    /// Secret Service shows.
    pub fn with_persistence(mut self, persistence: Persistence) -> Self {
        self.persistence = persistence;
        self
    }
}

impl KeyStore for MemoryKeyStore {
    fn load(&self, profile_id: &str) -> Result<Option<VaultKey>, KeyStoreError> {
        let keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(keys.get(profile_id).map(|key| VaultKey::from_bytes(*key.expose())))
    }

    fn store(&self, profile_id: &str, key: &VaultKey) -> Result<(), KeyStoreError> {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        keys.insert(profile_id.to_owned(), VaultKey::from_bytes(*key.expose()));
        Ok(())
    }

    fn delete(&self, profile_id: &str) -> Result<(), KeyStoreError> {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        keys.remove(profile_id);
        Ok(())
    }

    fn persistence(&self) -> Persistence {
        self.persistence
    }
}

/// A key store that always fails, like a PC with no working credential
/// store.
#[derive(Debug, Default, Clone, Copy)]
pub struct UnavailableKeyStore;

impl UnavailableKeyStore {
    fn error() -> KeyStoreError {
        KeyStoreError::Unavailable("no credential store works on this PC (test double)".into())
    }
}

impl KeyStore for UnavailableKeyStore {
    fn load(&self, _profile_id: &str) -> Result<Option<VaultKey>, KeyStoreError> {
        Err(Self::error())
    }

    fn store(&self, _profile_id: &str, _key: &VaultKey) -> Result<(), KeyStoreError> {
        Err(Self::error())
    }

    fn delete(&self, _profile_id: &str) -> Result<(), KeyStoreError> {
        Err(Self::error())
    }
}
