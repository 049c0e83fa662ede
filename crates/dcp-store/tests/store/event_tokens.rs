//! §16 event tokens in the store: 64 hex characters, made when first asked,
//! stable until New token, sealed (never stored in clear), bound to the
//! plugin, gone with the plugin.

use dcp_store::{InstallOptions, Profile, Store, StoreError};
use dcp_vault::testing::MemoryKeyStore;
use dcp_vault::Sensitive;
use std::path::Path;
use std::sync::Arc;

fn pomodoro(store: &Store) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples/pomodoro/manifest.json");
    store.set_pref("dev_mode", "true").expect("dev mode");
    let review = store.import(&path).expect("review");
    let options = InstallOptions {
        secrets: vec![("token".into(), Sensitive::new("server-token".into()))],
        ..InstallOptions::default()
    };
    store.install(&review.review, options).expect("installed");
}

#[test]
fn s16_token_is_made_once_replaced_by_new_and_sealed() {
    let dir = tempfile::tempdir().expect("profile");
    let store = Store::open(Profile::at(dir.path()).expect("profile"), Arc::new(MemoryKeyStore::new())).expect("store");
    pomodoro(&store);
    assert_eq!(store.event_token_sealed("pomodoro").expect("read"), None, "made only when asked");
    let first = store.event_token("pomodoro").expect("token");
    assert_eq!(first.expose().len(), 64);
    assert!(first.expose().bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    assert_eq!(store.event_token("pomodoro").expect("again").expose(), first.expose(), "stable");
    let sealed = store.event_token_sealed("pomodoro").expect("read").expect("stored");
    assert!(!sealed.windows(64).any(|w| w == first.expose().as_bytes()), "never in clear");
    let db = std::fs::read(dir.path().join("host.sqlite")).expect("db");
    assert!(!db.windows(64).any(|w| w == first.expose().as_bytes()));

    let second = store.new_event_token("pomodoro").expect("new");
    assert_ne!(second.expose(), first.expose());
    assert_eq!(store.event_token("pomodoro").expect("token").expose(), second.expose());
    let sealed = store.event_token_sealed("pomodoro").expect("read").expect("stored");
    let other = store.open_event_token("other", &sealed).expect_err("bound to its plugin");
    assert!(matches!(other, StoreError::VaultUnavailable(_)), "{other:?}");

    store.uninstall("pomodoro").expect("uninstall");
    assert_eq!(store.event_token_sealed("pomodoro").expect("read"), None, "gone with the plugin");
    let gone = store.event_token("pomodoro").expect_err("uninstalled");
    assert!(matches!(&gone, StoreError::UnknownPlugin(slug) if slug == "pomodoro"), "{gone:?}");
}

#[test]
fn s16_no_token_for_a_plugin_without_events() {
    let dir = tempfile::tempdir().expect("profile");
    let store = Store::open(Profile::at(dir.path()).expect("profile"), Arc::new(MemoryKeyStore::new())).expect("store");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples/exchange-rates/manifest.json");
    let review = store.import(&path).expect("review");
    store.install(&review.review, InstallOptions::default()).expect("installed");
    let none = store.event_token("fx").expect_err("no event");
    assert!(matches!(none, StoreError::NoSuchName(_)), "{none:?}");
}
