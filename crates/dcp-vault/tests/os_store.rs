//! §11: the vault key in the real OS credential store (on Linux, the
//! kernel key store, keyutils), including from another process.
//!
//! Each test uses its own profile id (process id + test name + random
//! suffix) and deletes its key when it ends, so tests can run in parallel
//! and leave nothing behind.

// Tests may unwrap: a failure here is a test failure, with its message.
#![allow(clippy::unwrap_used)]

use std::process::Command;
use std::sync::Arc;

use dcp_vault::{random_token_hex, KeyStore, OsKeyStore, Sensitive, Vault, VaultError};

const CHILD_PROFILE: &str = "DCP_VAULT_TEST_CHILD_PROFILE";
const CHILD_SEALED: &str = "DCP_VAULT_TEST_CHILD_SEALED";

/// A profile id unique to this test run; its key is deleted on drop.
struct TestProfile(String);

impl TestProfile {
    fn new(name: &str) -> Self {
        TestProfile(format!(
            "test-{}-{name}-{}",
            std::process::id(),
            random_token_hex(4)
        ))
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

fn from_hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn s11_os_store_key_created_then_found_again() {
    let profile = TestProfile::new("found");
    let store = OsKeyStore::new();
    assert!(store.load(&profile.0).unwrap().is_none());
    let created = store.get_or_create(&profile.0).unwrap();
    // A new handle on the store, as after restarting the app.
    let found = OsKeyStore::new()
        .load(&profile.0)
        .unwrap()
        .expect("key kept");
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
    let sealed = vault
        .seal("demo", "token", &Sensitive::from("gone soon"))
        .unwrap();
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
    let sealed = Vault::new(Arc::new(store), a.0.clone())
        .seal("demo", "token", &Sensitive::from("a's secret"))
        .unwrap();
    let err = Vault::new(Arc::new(store), b.0.clone())
        .open("demo", "token", &sealed)
        .unwrap_err();
    assert!(matches!(err, VaultError::CannotDecrypt), "{err:?}");
}

#[test]
fn s11_os_store_key_is_found_by_another_process() {
    let profile = TestProfile::new("xproc");
    let vault = Vault::new(Arc::new(OsKeyStore::new()), profile.0.clone());
    let from_parent = vault
        .seal("demo", "token", &Sensitive::from("sealed by the parent"))
        .unwrap();

    // Run this same test binary again, only the child test below.
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_process_uses_the_key_made_by_its_parent",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_PROFILE, &profile.0)
        .env(CHILD_SEALED, to_hex(&from_parent))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "child failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("1 passed"), "child ran no test:\n{stdout}");
    let sealed_hex = stdout
        .lines()
        .find_map(|line| line.split_once("SEALED=")?.1.split_whitespace().next())
        .unwrap_or_else(|| panic!("no SEALED= line from the child:\n{stdout}"));
    let from_child = vault.open("demo", "token", &from_hex(sealed_hex)).unwrap();
    assert_eq!(from_child.expose(), "sealed by the child");
}

#[test]
#[ignore = "runs only as the child process of s11_os_store_key_is_found_by_another_process"]
fn child_process_uses_the_key_made_by_its_parent() {
    let profile = std::env::var(CHILD_PROFILE).expect("run by the parent test");
    let store = OsKeyStore::new();
    // load, not get_or_create: the child must find the parent's key, not
    // make its own.
    assert!(
        store.load(&profile).unwrap().is_some(),
        "the key made by the parent process is not visible here"
    );
    let vault = Vault::new(Arc::new(store), profile);
    let from_parent = from_hex(&std::env::var(CHILD_SEALED).unwrap());
    assert_eq!(
        vault.open("demo", "token", &from_parent).unwrap().expose(),
        "sealed by the parent"
    );
    let sealed = vault
        .seal("demo", "token", &Sensitive::from("sealed by the child"))
        .unwrap();
    // On its own line: the harness prints "test <name> ... " before it.
    println!("\nSEALED={} ", to_hex(&sealed));
}
