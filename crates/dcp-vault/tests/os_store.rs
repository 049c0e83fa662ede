//! §11: the vault key in the real OS credential store (on Linux, the
//! kernel key store, keyutils, and the Secret Service where one answers;
//! on Windows, the Credential Manager, under Wine its own), including from
//! another process.
//!
//! The test of a second process finding the key is in
//! `os_store_cross_process.rs`, alone in its binary because it rearranges
//! its process's session keyring. The Secret Service tests at the end also
//! run a child process but change nothing the other tests share. They need a
//! Secret Service: `scripts/lib/with-keyring.sh cargo test -p dcp-vault`
//! provides one (without it they check what they can and say what they
//! skipped).
//!
//! Each test uses its own profile id (process id + test name + random
//! suffix) and deletes its key when it ends, so tests can run in parallel
//! and leave nothing behind.

// Tests may unwrap: a failure here is a test failure, with its message.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

#[cfg(target_os = "linux")]
use dcp_vault::Persistence;
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

/// Something else writes an entry under the vault key's name: in the
/// kernel key store, which Linux reads first.
#[cfg(target_os = "linux")]
fn write_foreign_entry(profile: &str) {
    use linux_keyutils::{KeyRing, KeyRingIdentifier};
    let description = format!("keyring-rs:{}@{}", OsKeyStore::user_name(profile), dcp_vault::SERVICE);
    let ring = KeyRing::get_persistent(KeyRingIdentifier::Session).unwrap();
    ring.add_key(&description, b"not a vault key").unwrap();
}

/// Something else writes an entry under the vault key's name: in the
/// Windows Credential Manager.
#[cfg(windows)]
fn write_foreign_entry(profile: &str) {
    credential_manager_entry(profile).set_password("not a vault key").unwrap();
}

#[cfg(any(target_os = "linux", windows))]
#[test]
fn s18_os_store_unreadable_key_is_reported_and_never_replaced() {
    use dcp_vault::KeyStoreError;

    let profile = TestProfile::new("corrupt");
    write_foreign_entry(&profile.0);

    let store = OsKeyStore::new();
    assert_eq!(store.load(&profile.0).unwrap_err(), KeyStoreError::Corrupt);
    let vault = Vault::new(Arc::new(store), profile.0.clone());
    let err = vault.seal("demo", "token", &Sensitive::from("value")).unwrap_err();
    assert!(matches!(err, dcp_vault::VaultError::Unavailable { .. }), "{err:?}");
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

// ---- Windows: the Credential Manager ------------------------------------------
//
// Under Wine (scripts/build-windows --test) this is Wine's own Credential
// Manager, kept in the Wine prefix's registry; see docs/development.md.

/// The profile's key entry in the Windows Credential Manager, reached
/// without the vault: keyring's Windows store, named as the vault names it.
#[cfg(windows)]
fn credential_manager_entry(profile: &str) -> keyring::Entry {
    use keyring::windows::WinCredential;
    let credential = WinCredential::new_with_target(None, dcp_vault::SERVICE, &OsKeyStore::user_name(profile)).unwrap();
    keyring::Entry::new_with_credential(Box::new(credential))
}

/// The profile's key as the Credential Manager holds it.
#[cfg(windows)]
fn credential_manager_copy(profile: &str) -> Option<String> {
    match credential_manager_entry(profile).get_password() {
        Ok(hex) => Some(hex),
        Err(keyring::Error::NoEntry) => None,
        Err(err) => panic!("the Credential Manager failed: {err}"),
    }
}

/// A folder standing for the profile folder, removed on drop.
#[cfg(windows)]
struct ProfileFolder(std::path::PathBuf);

#[cfg(windows)]
impl Drop for ProfileFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every file under `dir` (and its folders) whose bytes contain one of
/// `needles`, with the needle's index.
#[cfg(windows)]
fn files_containing(dir: &std::path::Path, needles: &[Vec<u8>]) -> Vec<(std::path::PathBuf, usize)> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            for (index, needle) in needles.iter().enumerate() {
                if bytes.windows(needle.len()).any(|window| window == needle.as_slice()) {
                    found.push((path.clone(), index));
                }
            }
        }
    }
    found
}

/// `text` as UTF-16LE, as Windows programs write text.
#[cfg(windows)]
fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// §11 on Windows: the key goes to the Credential Manager (keyring's
/// Windows store, tied to the account), the profile folder holds only the
/// ciphertext, and a new vault of the same profile opens it.
#[cfg(windows)]
#[test]
fn s11_windows_the_key_is_in_the_credential_manager_and_no_profile_file_holds_it() {
    const SECRET: &str = "a Windows secret 7f3a";
    let profile = TestProfile::new("wincred");
    let folder = ProfileFolder(std::env::temp_dir().join(format!("dcp-vault-{}", profile.0)));
    std::fs::create_dir_all(&folder.0).unwrap();
    let vault = Vault::new(Arc::new(OsKeyStore::new()), profile.0.clone());
    assert_eq!(vault.persistence(), dcp_vault::Persistence::Persistent, "kept on disk by Windows");
    use dcp_vault::CredentialStore;
    assert_eq!(CredentialStore::THIS_PLATFORM, CredentialStore::WindowsCredentialManager, "what the shells name");
    assert_eq!(credential_manager_copy(&profile.0), None);
    // What the store keeps in the profile: the ciphertext and the profile id.
    let sealed = vault.seal("demo", "token", &Sensitive::from(SECRET)).unwrap();
    std::fs::write(folder.0.join("secret.bin"), &sealed).unwrap();
    std::fs::write(folder.0.join("profile_id"), &profile.0).unwrap();

    let key = OsKeyStore::new().load(&profile.0).unwrap().expect("key kept");
    let hex = credential_manager_copy(&profile.0).expect("the key is not in the Windows Credential Manager");
    assert_eq!(hex, to_hex(key.expose()), "the Credential Manager holds the vault's key");

    // A new vault of the same profile, as after restarting the app.
    let again = Vault::new(Arc::new(OsKeyStore::new()), profile.0.clone());
    let stored = std::fs::read(folder.0.join("secret.bin")).unwrap();
    assert_eq!(again.open("demo", "token", &stored).unwrap().expose(), SECRET);

    let needles =
        [SECRET.as_bytes().to_vec(), utf16le(SECRET), key.expose().to_vec(), hex.as_bytes().to_vec(), utf16le(&hex)];
    assert_eq!(files_containing(&folder.0, &needles), vec![], "a profile file holds the secret or the key");
    assert!(!files_containing(&folder.0, &[profile.0.as_bytes().to_vec()]).is_empty(), "the search reads the files");

    again.delete_key().unwrap();
    assert_eq!(credential_manager_copy(&profile.0), None, "deleted from the Credential Manager");
}

/// §22 on Windows: when the Credential Manager refuses the key's entry,
/// saving a secret is refused (`vault_unavailable`) and nothing is kept.
/// A real store that cannot be reached at all (an account with no
/// credential store, such as a service's) can't be made under Wine; an
/// entry name longer than the Credential Manager takes goes the same way,
/// through keyring's Windows store and the vault's mapping of its error.
#[cfg(windows)]
#[test]
fn s22_windows_a_credential_manager_refusal_is_vault_unavailable() {
    let profile = TestProfile(format!("test-{}-refused-{}", std::process::id(), "x".repeat(600)));
    let vault = Vault::new(Arc::new(OsKeyStore::new()), profile.0.clone());
    let err = vault.seal("demo", "token", &Sensitive::from("never kept")).unwrap_err();
    assert!(matches!(err, VaultError::Unavailable { .. }), "{err:?}");
    assert!(!err.needs_setup(), "a refusal to save, not a secret to ask again");
    assert!(err.to_string().contains("credential store"), "{err}");
}

// ---- Linux: the Secret Service keeps the key across reboots ------------------
//
// The tests below run a child process: this same test binary, one ignored
// test selected by name. A child shares nothing in memory with its parent, so
// it sees what the app sees when started again later.

/// Set by `scripts/lib/with-keyring.sh`: a Secret Service must answer, so a
/// test needing one fails instead of skipping.
#[cfg(target_os = "linux")]
const MUST_HAVE_SECRET_SERVICE: &str = "DCP_TEST_SECRET_SERVICE";
#[cfg(target_os = "linux")]
const CHILD_PROFILE: &str = "DCP_VAULT_TEST_CHILD_PROFILE";
#[cfg(target_os = "linux")]
const CHILD_SEALED: &str = "DCP_VAULT_TEST_CHILD_SEALED";

/// Whether a Secret Service answers here. Without one, fails when
/// `DCP_TEST_SECRET_SERVICE=1`, else prints why `test` skips its part.
#[cfg(target_os = "linux")]
fn secret_service_here(test: &str) -> bool {
    if OsKeyStore::new().persistence() == Persistence::Persistent {
        return true;
    }
    let required = std::env::var(MUST_HAVE_SECRET_SERVICE).is_ok_and(|value| value == "1");
    assert!(!required, "{MUST_HAVE_SECRET_SERVICE}=1 but no Secret Service answers on the session bus");
    eprintln!("{test}: Secret Service part skipped: none answers (run it through scripts/lib/with-keyring.sh)");
    false
}

/// The profile's key as the kernel keyring holds it (the cache).
#[cfg(target_os = "linux")]
fn kernel_copy(profile: &str) -> Option<linux_keyutils::Key> {
    use linux_keyutils::{KeyRing, KeyRingIdentifier};
    let description = format!("keyring-rs:{}@{}", OsKeyStore::user_name(profile), dcp_vault::SERVICE);
    KeyRing::get_persistent(KeyRingIdentifier::Session).unwrap().search(&description).ok()
}

/// The profile's key as the Secret Service holds it, read without the vault.
#[cfg(target_os = "linux")]
fn secret_service_copy(profile: &str) -> Option<String> {
    use keyring::secret_service::SsCredential;
    let credential = SsCredential::new_with_target(None, dcp_vault::SERVICE, &OsKeyStore::user_name(profile)).unwrap();
    match keyring::Entry::new_with_credential(Box::new(credential)).get_password() {
        Ok(hex) => Some(hex),
        Err(keyring::Error::NoEntry) => None,
        Err(err) => panic!("the Secret Service failed: {err}"),
    }
}

/// Runs the ignored test `name` of this binary in a new process, with
/// `envs` set and `unset` removed; returns its standard output.
#[cfg(target_os = "linux")]
fn run_child(name: &str, envs: &[(&str, &str)], unset: &[&str]) -> String {
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", name, "--ignored", "--nocapture", "--test-threads=1"]);
    command.envs(envs.iter().copied());
    for name in unset {
        command.env_remove(name);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "child failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("1 passed"), "child ran no test:\n{stdout}");
    stdout
}

#[cfg(target_os = "linux")]
fn from_hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

#[cfg(target_os = "linux")]
#[test]
fn s11_secret_service_key_survives_a_cleared_kernel_keyring() {
    let test = "s11_secret_service_key_survives_a_cleared_kernel_keyring";
    if !secret_service_here(test) {
        return;
    }
    let profile = TestProfile::new("reboot");
    let vault = Vault::new(Arc::new(OsKeyStore::new()), profile.0.clone());
    assert_eq!(vault.persistence(), Persistence::Persistent);
    assert_eq!(vault.persistence().warning(), None);
    let sealed = vault.seal("demo", "token", &Sensitive::from("kept across reboots")).unwrap();
    let lasting = secret_service_copy(&profile.0).expect("the key was not stored in the Secret Service");

    // What a reboot does: the kernel's copy is gone, the Secret Service's is not.
    kernel_copy(&profile.0).expect("the key was not cached in the kernel keyring").invalidate().unwrap();
    assert!(kernel_copy(&profile.0).is_none(), "the kernel keyring still holds the key");

    run_child(
        "child_opens_a_secret_after_the_kernel_keyring_was_cleared",
        &[(CHILD_PROFILE, &profile.0), (CHILD_SEALED, &to_hex(&sealed))],
        &[],
    );
    // The child put the key back into the kernel cache.
    let cached = kernel_copy(&profile.0).expect("the child did not refill the kernel keyring").read_to_vec().unwrap();
    assert_eq!(cached, lasting.as_bytes());
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "runs only as the child process of s11_secret_service_key_survives_a_cleared_kernel_keyring"]
fn child_opens_a_secret_after_the_kernel_keyring_was_cleared() {
    let profile = std::env::var(CHILD_PROFILE).expect("run by the parent test");
    assert!(kernel_copy(&profile).is_none(), "the kernel keyring holds the key: the test would prove nothing");
    let vault = Vault::new(Arc::new(OsKeyStore::new()), profile);
    let sealed = from_hex(&std::env::var(CHILD_SEALED).unwrap());
    assert_eq!(vault.open("demo", "token", &sealed).unwrap().expose(), "kept across reboots");
}

#[cfg(target_os = "linux")]
#[test]
fn s11_without_secret_service_the_kernel_keyring_keeps_the_key_until_restart() {
    let profile = TestProfile::new("no-ss");
    // No session bus at all, as on a server or a console login.
    let stdout = run_child(
        "child_without_secret_service_seals_with_the_kernel_keyring",
        &[(CHILD_PROFILE, &profile.0)],
        &["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"],
    );
    let sealed_hex = stdout
        .lines()
        .find_map(|line| line.split_once("SEALED=")?.1.split_whitespace().next())
        .unwrap_or_else(|| panic!("no SEALED= line from the child:\n{stdout}"));
    let kernel = kernel_copy(&profile.0).expect("the key is not in the kernel keyring");

    let test = "s11_without_secret_service_the_kernel_keyring_keeps_the_key_until_restart";
    if !secret_service_here(test) {
        return;
    }
    assert_eq!(secret_service_copy(&profile.0), None, "the child reached a Secret Service");
    // Read where a Secret Service answers, the key is copied there, so it
    // survives the next reboot too.
    let vault = Vault::new(Arc::new(OsKeyStore::new()), profile.0.clone());
    assert_eq!(vault.open("demo", "token", &from_hex(sealed_hex)).unwrap().expose(), "sealed without a keyring");
    let lasting = secret_service_copy(&profile.0).expect("the key was not copied to the Secret Service");
    assert_eq!(lasting.as_bytes(), kernel.read_to_vec().unwrap());
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "runs only as the child process of s11_without_secret_service_the_kernel_keyring_keeps_the_key_until_restart"]
fn child_without_secret_service_seals_with_the_kernel_keyring() {
    let profile = std::env::var(CHILD_PROFILE).expect("run by the parent test");
    let vault = Vault::new(Arc::new(OsKeyStore::new()), profile);
    assert_eq!(vault.persistence(), Persistence::UntilRestart);
    assert!(vault.persistence().warning().is_some_and(|text| text.contains("restart")));
    let sealed = vault.seal("demo", "token", &Sensitive::from("sealed without a keyring")).unwrap();
    assert_eq!(vault.open("demo", "token", &sealed).unwrap().expose(), "sealed without a keyring");
    // On its own line: the harness prints "test <name> ... " before it.
    println!("\nSEALED={} ", to_hex(&sealed));
}
