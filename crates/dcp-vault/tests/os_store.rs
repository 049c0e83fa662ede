//! §11: the vault key in the real OS credential store (on Linux, the
//! kernel key store, keyutils), including from another process.
//!
//! The test with a second process is in `os_store_cross_process.rs`, alone
//! in its binary because it rearranges its process's session keyring.
//!
//! Each test uses its own profile id (process id + test name + random
//! suffix) and deletes its key when it ends, so tests can run in parallel
//! and leave nothing behind.

// Tests may unwrap: a failure here is a test failure, with its message.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use dcp_vault::{random_token_hex, KeyStore, OsKeyStore, Sensitive, Vault, VaultError};

/// A profile id unique to this test run; its key is deleted on drop.
struct TestProfile(String);

impl TestProfile {
    fn new(name: &str) -> Self {
        TestProfile(format!("test-{}-{name}-{}", std::process::id(), random_token_hex(4)))
    }
}

impl Drop for TestProfile {
    fn drop(&mut self) {
        let _ = OsKeyStore::new().delete(&self.0);
    }
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn s11_os_store_key_created_then_found_again() {
    let profile = TestProfile::new("found");
    let store = OsKeyStore::new();
    assert!(store.load(&profile.0).unwrap().is_none());
    let created = store.get_or_create(&profile.0).unwrap();
    // A new handle on the store, as after restarting the app.
    let found = OsKeyStore::new().load(&profile.0).unwrap().expect("key kept");
    assert_eq!(created.expose(), found.expose());
    // get_or_create does not replace an existing key.
    let again = OsKeyStore::new().get_or_create(&profile.0).unwrap();
    assert_eq!(created.expose(), again.expose());
    assert!(!format!("{created:?}").contains(&to_hex(created.expose())));
}

#[test]
fn s11_os_store_key_deleted() {
    let profile = TestProfile::new("deleted");
    let store = OsKeyStore::new();
    let vault = Vault::new(Arc::new(store), profile.0.clone());
    let sealed = vault.seal("demo", "token", &Sensitive::from("gone soon")).unwrap();
    vault.delete_key().unwrap();
    assert!(store.load(&profile.0).unwrap().is_none());
    let err = vault.open("demo", "token", &sealed).unwrap_err();
    assert!(matches!(err, VaultError::KeyMissing), "{err:?}");
    // Deleting a missing key is fine.
    store.delete(&profile.0).unwrap();
}

#[test]
fn s11_os_store_two_profiles_have_different_keys() {
    let a = TestProfile::new("two-a");
    let b = TestProfile::new("two-b");
    let store = OsKeyStore::new();
    let key_a = store.get_or_create(&a.0).unwrap();
    let key_b = store.get_or_create(&b.0).unwrap();
    assert_ne!(key_a.expose(), key_b.expose());
    let sealed =
        Vault::new(Arc::new(store), a.0.clone()).seal("demo", "token", &Sensitive::from("a's secret")).unwrap();
    let err = Vault::new(Arc::new(store), b.0.clone()).open("demo", "token", &sealed).unwrap_err();
    assert!(matches!(err, VaultError::CannotDecrypt), "{err:?}");
}

#[cfg(target_os = "linux")]
#[test]
fn s18_os_store_unreadable_key_is_reported_and_never_replaced() {
    use dcp_vault::{KeyStoreError, SERVICE};
    use linux_keyutils::{KeyRing, KeyRingIdentifier};

    let profile = TestProfile::new("corrupt");
    let description = format!("keyring-rs:{}@{SERVICE}", OsKeyStore::user_name(&profile.0));
    // Something else wrote an entry under the vault key's name.
    let ring = KeyRing::get_persistent(KeyRingIdentifier::Session).unwrap();
    ring.add_key(&description, b"not a vault key").unwrap();

    let store = OsKeyStore::new();
    assert_eq!(store.load(&profile.0).unwrap_err(), KeyStoreError::Corrupt);
    let vault = Vault::new(Arc::new(store), profile.0.clone());
    let err = vault.seal("demo", "token", &Sensitive::from("value")).unwrap_err();
    assert_eq!(err.code(), "vault_unavailable", "{err:?}");
    let other = Vault::new(Arc::new(dcp_vault::testing::MemoryKeyStore::new()), "x")
        .seal("demo", "token", &Sensitive::from("value"))
        .unwrap();
    let err = vault.open("demo", "token", &other).unwrap_err();
    assert!(matches!(err, VaultError::CannotDecrypt), "{err:?}");
    // Still the foreign entry: nothing was overwritten.
    assert_eq!(store.load(&profile.0).unwrap_err(), KeyStoreError::Corrupt);
    // Deleting the key is the way out; the next seal makes a new one.
    vault.delete_key().unwrap();
    let sealed = vault.seal("demo", "token", &Sensitive::from("value")).unwrap();
    assert_eq!(vault.open("demo", "token", &sealed).unwrap().expose(), "value");
}
