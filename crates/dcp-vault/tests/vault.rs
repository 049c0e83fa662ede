//! §10, §11, §18, §22: sealing and opening secrets, with keys held in
//! memory (the OS store is the subject of `os_store.rs`).

// Tests may unwrap: a failure here is a test failure, with its message.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use dcp_vault::testing::{MemoryKeyStore, UnavailableKeyStore};
use dcp_vault::{random_token_hex, KeyStore, Persistence, Sensitive, Vault, VaultError, FORMAT_V1};

const VALUE: &str = "pat-1234567890-abcdef";

fn vault() -> Vault {
    Vault::new(Arc::new(MemoryKeyStore::new()), "profile-a")
}

fn secret() -> Sensitive {
    Sensitive::from(VALUE)
}

#[test]
fn s11_secret_round_trips() {
    let vault = vault();
    let sealed = vault.seal("trello", "api_token", &secret()).unwrap();
    assert_eq!(sealed[0], FORMAT_V1);
    assert_eq!(sealed.len(), 1 + 24 + VALUE.len() + 16);
    let opened = vault.open("trello", "api_token", &sealed).unwrap();
    assert_eq!(opened.expose(), VALUE);
}

#[test]
fn s11_secret_round_trips_empty_and_long_and_non_ascii() {
    let vault = vault();
    for value in [String::new(), "é€🔑".repeat(100), "x".repeat(2000)] {
        let sealed = vault.seal("demo", "token", &Sensitive::from(value.as_str())).unwrap();
        assert_eq!(vault.open("demo", "token", &sealed).unwrap().expose(), value);
    }
}

#[test]
fn s11_ciphertext_holds_no_clear_text() {
    let sealed = vault().seal("trello", "api_token", &secret()).unwrap();
    assert!(!sealed.windows(VALUE.len()).any(|w| w == VALUE.as_bytes()));
}

#[test]
fn s11_nonces_differ_between_two_seals_of_the_same_value() {
    let vault = vault();
    let a = vault.seal("trello", "api_token", &secret()).unwrap();
    let b = vault.seal("trello", "api_token", &secret()).unwrap();
    assert_ne!(a[1..25], b[1..25], "nonce reused");
    assert_ne!(a, b);
}

#[test]
fn s11_secret_copied_to_another_plugin_does_not_decrypt() {
    let vault = vault();
    let sealed = vault.seal("trello", "api_token", &secret()).unwrap();
    let err = vault.open("github", "api_token", &sealed).unwrap_err();
    assert!(matches!(err, VaultError::CannotDecrypt), "{err:?}");
    assert!(err.needs_setup(), "{err:?}");
}

#[test]
fn s11_secret_copied_to_another_setting_does_not_decrypt() {
    let vault = vault();
    let sealed = vault.seal("trello", "api_key", &secret()).unwrap();
    let err = vault.open("trello", "token", &sealed).unwrap_err();
    assert!(matches!(err, VaultError::CannotDecrypt), "{err:?}");
}

#[test]
fn s11_slug_and_key_boundaries_cannot_be_shifted() {
    // "ab" + "c" must not be the same row as "a" + "bc".
    let vault = vault();
    let sealed = vault.seal("ab", "c", &secret()).unwrap();
    for (slug, key) in [("a", "bc"), ("abc", "")] {
        let err = vault.open(slug, key, &sealed).unwrap_err();
        assert!(matches!(err, VaultError::CannotDecrypt), "{slug}/{key}: {err:?}");
    }
}

#[test]
fn s11_profile_copied_to_another_account_does_not_decrypt() {
    // Two accounts, each with its own credential store: the ciphertext
    // moves with the copied profile, the key does not.
    let sealed = Vault::new(Arc::new(MemoryKeyStore::new()), "profile").seal("trello", "api_token", &secret()).unwrap();
    let other = MemoryKeyStore::new();
    // The other account already has a key of its own for this profile id.
    other.get_or_create("profile").unwrap();
    let err = Vault::new(Arc::new(other), "profile").open("trello", "api_token", &sealed).unwrap_err();
    assert!(matches!(err, VaultError::CannotDecrypt), "{err:?}");
    assert!(err.needs_setup());
}

#[test]
fn s11_profile_b_key_does_not_open_profile_a_secret() {
    let store = Arc::new(MemoryKeyStore::new());
    let a = Vault::new(store.clone(), "profile-a");
    let b = Vault::new(store, "profile-b");
    let sealed = a.seal("trello", "api_token", &secret()).unwrap();
    b.seal("trello", "api_token", &secret()).unwrap(); // B has a key now
    let err = b.open("trello", "api_token", &sealed).unwrap_err();
    assert!(matches!(err, VaultError::CannotDecrypt), "{err:?}");
    assert_eq!(a.open("trello", "api_token", &sealed).unwrap().expose(), VALUE);
}

#[test]
fn s18_missing_key_is_key_missing_not_a_new_key() {
    // A reboot cleared the kernel store, or the profile was copied to a PC
    // where it never had a key.
    let sealed = vault().seal("trello", "api_token", &secret()).unwrap();
    let store = MemoryKeyStore::new();
    let vault = Vault::new(Arc::new(store.clone()), "profile-a");
    let err = vault.open("trello", "api_token", &sealed).unwrap_err();
    assert!(matches!(err, VaultError::KeyMissing), "{err:?}");
    assert!(err.needs_setup(), "{err:?}");
    // Opening did not create a key behind the caller's back.
    assert!(store.load("profile-a").unwrap().is_none());
}

#[test]
fn s18_after_key_deleted_old_secret_needs_setup_and_a_new_one_can_be_saved() {
    let vault = vault();
    let old = vault.seal("trello", "api_token", &secret()).unwrap();
    vault.delete_key().unwrap();
    assert!(matches!(vault.open("trello", "api_token", &old), Err(VaultError::KeyMissing)));
    // The player types the secret again: a new key is made.
    let new = vault.seal("trello", "api_token", &secret()).unwrap();
    assert_eq!(vault.open("trello", "api_token", &new).unwrap().expose(), VALUE);
    assert!(matches!(vault.open("trello", "api_token", &old), Err(VaultError::CannotDecrypt)));
}

#[test]
fn s11_every_tampered_byte_fails() {
    let vault = vault();
    let sealed = vault.seal("trello", "api_token", &secret()).unwrap();
    for i in 0..sealed.len() {
        let mut bad = sealed.clone();
        bad[i] ^= 0x01;
        let err = vault.open("trello", "api_token", &bad).unwrap_err();
        assert!(err.needs_setup(), "byte {i}: {err:?}");
    }
    // Bytes appended after the tag fail too.
    let mut longer = sealed.clone();
    longer.push(0);
    let err = vault.open("trello", "api_token", &longer).unwrap_err();
    assert!(matches!(err, VaultError::CannotDecrypt), "{err:?}");
}

#[test]
fn s11_truncated_empty_or_garbage_input_fails_without_panic() {
    let vault = vault();
    let sealed = vault.seal("trello", "api_token", &secret()).unwrap();
    assert!(matches!(vault.open("trello", "api_token", &[]), Err(VaultError::Malformed("empty"))));
    for len in 1..sealed.len() {
        let err = vault.open("trello", "api_token", &sealed[..len]).unwrap_err();
        assert!(err.needs_setup(), "len {len}: {err:?}");
    }
    let mut unknown_version = sealed.clone();
    unknown_version[0] = 2;
    assert!(matches!(
        vault.open("trello", "api_token", &unknown_version),
        Err(VaultError::Malformed("unknown format version"))
    ));
    // Pseudo-random garbage of many lengths, starting with the right version.
    let mut state: u32 = 0x1234_5678;
    for len in 0..300 {
        let mut bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state.to_le_bytes()[0]
            })
            .collect();
        if let Some(first) = bytes.first_mut() {
            *first = FORMAT_V1;
        }
        let err = vault.open("trello", "api_token", &bytes).unwrap_err();
        assert!(matches!(err, VaultError::Malformed(_) | VaultError::CannotDecrypt), "len {len}: {err:?}");
    }
}

#[test]
fn s22_vault_unavailable_when_no_credential_store_works() {
    let vault = Vault::new(Arc::new(UnavailableKeyStore), "profile-a");
    let err = vault.seal("trello", "api_token", &secret()).unwrap_err();
    assert!(matches!(err, VaultError::Unavailable { .. }), "{err:?}");
    assert!(matches!(err, VaultError::Unavailable { .. }), "{err:?}");
    assert!(!err.needs_setup());
    assert!(!err.to_string().contains(VALUE));
    assert!(!format!("{err:?}").contains(VALUE));

    // Opening can't reach the key either: same code, not a panic.
    let sealed = vault_sealed();
    let err = vault.open("trello", "api_token", &sealed).unwrap_err();
    assert!(matches!(err, VaultError::Unavailable { .. }), "{err:?}");
}

fn vault_sealed() -> Vec<u8> {
    vault().seal("trello", "api_token", &secret()).unwrap()
}

#[test]
fn s22_no_error_message_contains_the_secret() {
    let vault = vault();
    let sealed = vault.seal("trello", "api_token", &secret()).unwrap();
    let mut errors = vec![
        vault.open("github", "api_token", &sealed).unwrap_err(),
        vault.open("trello", "api_token", &sealed[..10]).unwrap_err(),
        vault.open("trello", "api_token", &[]).unwrap_err(),
    ];
    vault.delete_key().unwrap();
    errors.push(vault.open("trello", "api_token", &sealed).unwrap_err());
    for err in errors {
        assert!(!err.to_string().contains(VALUE));
        assert!(!format!("{err:?}").contains(VALUE));
    }
}

#[test]
fn s16_event_tokens_are_lowercase_hex_from_the_os_generator() {
    let a = random_token_hex(32);
    let b = random_token_hex(32);
    assert_eq!(a.len(), 64);
    assert!(a.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')), "{a}");
    assert_ne!(a, b);
    assert_eq!(random_token_hex(0), "");
    assert_eq!(random_token_hex(1).len(), 2);
}

#[test]
fn s11_first_seals_from_many_threads_share_one_key() {
    let vault = vault();
    let sealed: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            (0..8).map(|_| scope.spawn(|| vault.seal("trello", "api_token", &secret()).unwrap())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for bytes in sealed {
        assert_eq!(vault.open("trello", "api_token", &bytes).unwrap().expose(), VALUE);
    }
}

#[test]
fn s11_vault_reports_how_long_its_key_lasts_and_what_to_tell_the_player() {
    // What the app shows next to secret settings comes from the key store.
    let lasting = Vault::new(Arc::new(MemoryKeyStore::new()), "profile-a");
    assert_eq!(lasting.persistence(), Persistence::Persistent);
    assert_eq!(lasting.persistence().warning(), None);
    assert_eq!(lasting.persistence().as_str(), "persistent");

    let store = MemoryKeyStore::new().with_persistence(Persistence::UntilRestart);
    let until_restart = Vault::new(Arc::new(store), "profile-a");
    assert_eq!(until_restart.persistence(), Persistence::UntilRestart);
    assert_eq!(until_restart.persistence().as_str(), "until_restart");
    let warning = until_restart.persistence().warning().unwrap();
    assert!(warning.contains("restart") && warning.contains("ask"), "{warning}");
    // Sealing still works: the warning is about later, not now.
    let sealed = until_restart.seal("demo", "token", &secret()).unwrap();
    assert_eq!(until_restart.open("demo", "token", &sealed).unwrap().expose(), VALUE);
}
