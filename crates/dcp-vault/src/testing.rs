//! Key stores for tests whose subject is not the OS credential store.
//!
//! * [`MemoryKeyStore`] keeps keys in process memory. Use it to test what
//!   the store does with sealed secrets without touching the real
//!   credential store. Never use it in the app: its keys die with the
//!   process, so every secret would show "Needs setup" at the next start.
//! * [`UnavailableKeyStore`] fails every call, as a PC with no working
//!   credential store does; with it, saving a secret fails with
//!   `vault_unavailable` (§22).
//!
//! They are always compiled (they have no dependency and no I/O) so that the
//! crates calling the vault can use them in their own tests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::KeyStoreError;
use crate::key_store::{KeyStore, VaultKey};

/// Vault keys in process memory, for tests. Clones share the same keys.
#[derive(Debug, Default, Clone)]
pub struct MemoryKeyStore {
    keys: Arc<Mutex<HashMap<String, VaultKey>>>,
}

impl MemoryKeyStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
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
