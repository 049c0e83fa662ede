//! §11: a vault key stored in the real OS credential store by one process
//! is found by another process — one that shares nothing with the first
//! but the user, as when the app is started again later.
//!
//! A child process inherits its parent's session keyring, which would make
//! the test pass for the wrong reason (keyring 3's own keyutils store passes
//! it, yet fails between two processes started one after the other; see
//! `key_store.rs`). So on Linux the parent first unlinks the persistent
//! keyring from its session keyring, and the child checks that its session
//! keyring does not reach the key before it asks the vault for it.
//!
//! Alone in its test binary: unlinking a keyring from the session would
//! race with other tests of the same process.

// Tests may unwrap: a failure here is a test failure, with its message.
#![allow(clippy::unwrap_used)]

use std::process::Command;
use std::sync::Arc;

use dcp_vault::{random_token_hex, KeyStore, OsKeyStore, Sensitive, Vault};

const CHILD_PROFILE: &str = "DCP_VAULT_TEST_CHILD_PROFILE";
const CHILD_SEALED: &str = "DCP_VAULT_TEST_CHILD_SEALED";

/// A profile id whose key is deleted on drop, even if the test fails.
struct TestProfile(String);

impl Drop for TestProfile {
    fn drop(&mut self) {
        let _ = OsKeyStore::new().delete(&self.0);
    }
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

/// The keyutils description of a profile's key.
#[cfg(target_os = "linux")]
fn description(profile: &str) -> String {
    format!("keyring-rs:{}@{}", OsKeyStore::user_name(profile), dcp_vault::SERVICE)
}

/// Makes this process's session keyring reach neither the key nor the
/// persistent keyring, like a process started from elsewhere.
#[cfg(target_os = "linux")]
fn forget_session_links(profile: &str) {
    use linux_keyutils::{KeyRing, KeyRingIdentifier};
    let session = KeyRing::from_special_id(KeyRingIdentifier::Session, false).unwrap();
    let persistent = KeyRing::get_persistent(KeyRingIdentifier::Session).unwrap();
    session.unlink_keyring(persistent).unwrap();
    assert!(session.search(&description(profile)).is_err(), "the session keyring still reaches the key");
}

#[cfg(not(target_os = "linux"))]
fn forget_session_links(_profile: &str) {}

#[test]
fn s11_os_store_key_is_found_by_another_process() {
    let profile = TestProfile(format!("test-{}-xproc-{}", std::process::id(), random_token_hex(4)));
    let vault = Vault::new(Arc::new(OsKeyStore::new()), profile.0.clone());
    let from_parent = vault.seal("demo", "token", &Sensitive::from("sealed by the parent")).unwrap();
    forget_session_links(&profile.0);

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
    assert!(output.status.success(), "child failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("1 passed"), "child ran no test:\n{stdout}");
    let sealed_hex = stdout
        .lines()
        .find_map(|line| line.split_once("SEALED=")?.1.split_whitespace().next())
        .unwrap_or_else(|| panic!("no SEALED= line from the child:\n{stdout}"));
    let from_child = vault.open("demo", "token", &from_hex(sealed_hex)).unwrap();
    assert_eq!(from_child.expose(), "sealed by the child");

    vault.delete_key().unwrap();
    assert!(OsKeyStore::new().load(&profile.0).unwrap().is_none());
}

#[test]
#[ignore = "runs only as the child process of s11_os_store_key_is_found_by_another_process"]
fn child_process_uses_the_key_made_by_its_parent() {
    let profile = std::env::var(CHILD_PROFILE).expect("run by the parent test");
    #[cfg(target_os = "linux")]
    {
        use linux_keyutils::{KeyRing, KeyRingIdentifier};
        let session = KeyRing::from_special_id(KeyRingIdentifier::Session, false).unwrap();
        assert!(
            session.search(&description(&profile)).is_err(),
            "the child's session keyring reaches the key: the test would prove nothing"
        );
    }
    let store = OsKeyStore::new();
    // load, not get_or_create: the child must find the parent's key, not
    // make its own.
    assert!(store.load(&profile).unwrap().is_some(), "the key made by the parent process is not visible here");
    let vault = Vault::new(Arc::new(store), profile);
    let from_parent = from_hex(&std::env::var(CHILD_SEALED).unwrap());
    assert_eq!(vault.open("demo", "token", &from_parent).unwrap().expose(), "sealed by the parent");
    let sealed = vault.seal("demo", "token", &Sensitive::from("sealed by the child")).unwrap();
    // On its own line: the harness prints "test <name> ... " before it.
    println!("\nSEALED={} ", to_hex(&sealed));
}
