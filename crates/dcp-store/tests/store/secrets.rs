//! Secrets (§11): never shown, never in clear on disk, bound to their
//! plugin and to the PC account's key store.

use crate::common::*;
use dcp_store::{Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use dcp_vault::{KeyStore, OsKeyStore};
use std::sync::Arc;

#[test]
fn s11_show_and_list_never_contain_a_secret_value() {
    let f = Fixture::new();
    install_my_tasks(&f);
    let d = f.store.show("mytasks").expect("show");
    let token = d.settings.iter().find(|s| s.key == "api_token").expect("token");
    assert!(token.secret && token.set && token.value.is_none());
    let json = serde_json::to_string(&d).expect("json");
    assert!(!json.contains(SECRET), "{json}");
    assert!(!format!("{d:?}").contains(SECRET));
    let list = serde_json::to_string(&f.store.list().expect("list")).expect("json");
    assert!(!list.contains(SECRET));
}

#[test]
fn s11_the_database_never_holds_a_secret_in_clear() {
    let f = Fixture::new();
    install_my_tasks(&f);
    f.store.set_secret("mytasks", "api_token", "replaced-secret-0xdeadbeef".into()).expect("replace");
    let bytes = f.db_bytes();
    assert!(!bytes.is_empty());
    assert!(!contains(&bytes, SECRET));
    assert!(!contains(&bytes, "replaced-secret-0xdeadbeef"));
    let sealed: Vec<u8> = f
        .sql()
        .query_row("SELECT sealed FROM secrets WHERE slug='mytasks' AND key='api_token'", [], |r| r.get(0))
        .expect("row");
    assert!(sealed.len() > "replaced-secret-0xdeadbeef".len(), "sealed, with nonce and tag");
    // Nothing in clear anywhere else in the profile either.
    for entry in walk(&f.root()) {
        let bytes = std::fs::read(&entry).expect("file");
        assert!(!contains(&bytes, SECRET) && !contains(&bytes, "replaced-secret-0xdeadbeef"), "{}", entry.display());
    }
}

#[test]
fn s11_a_secret_copied_into_another_plugins_row_does_not_open() {
    let f = Fixture::new();
    f.dev_mode(true);
    let r = f.import_example("local-server").expect("import");
    f.store.install(&r.review, options(&[], &[("token", "token-of-mypc-1")], None)).expect("install mypc");
    let r = f.import_example("pomodoro").expect("import");
    f.store.install(&r.review, options(&[], &[("token", "token-of-pomodoro-2")], None)).expect("install pomodoro");
    assert_eq!(f.status("pomodoro"), Status::Active);
    let changed = f
        .sql()
        .execute("UPDATE secrets SET sealed = (SELECT sealed FROM secrets WHERE slug='mypc' AND key='token') WHERE slug='pomodoro' AND key='token'", [])
        .expect("raw copy");
    assert_eq!(changed, 1);
    assert_eq!(f.status("pomodoro"), Status::NeedsSetup, "same key name, other plugin: does not open");
    assert_eq!(f.status("mypc"), Status::Active);
    // Within one plugin, a secret moved to another key does not open either.
    let r = f.import_example("trello-perso").expect("import");
    f.store
        .install(
            &r.review,
            options(
                &[("board", serde_json::json!("AbC123"))],
                &[("api_key", "k-1"), ("token", "t-2")],
                Some(dcp_store::CloudChoice::Allow),
            ),
        )
        .expect("install trello");
    f.sql()
        .execute("UPDATE secrets SET sealed = (SELECT sealed FROM secrets WHERE slug='trelloperso' AND key='api_key') WHERE slug='trelloperso' AND key='token'", [])
        .expect("raw copy");
    assert_eq!(f.status("trelloperso"), Status::NeedsSetup);
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("dir");
    for entry in std::fs::read_dir(from).expect("dir").flatten() {
        let dest = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
}

#[test]
fn s11_a_copied_profile_opened_by_another_account_needs_setup_until_the_secret_is_typed_again() {
    let f = Fixture::new();
    install_my_tasks(&f);
    f.store.set_settings("mytasks", &[("max_tasks".into(), serde_json::json!(12))]).expect("set");
    assert_eq!(f.status("mytasks"), Status::Active);
    let other = tempfile::tempdir().expect("temp");
    copy_tree(&f.root(), other.path());
    // Another OS account: its credential store does not hold this profile's key.
    let store =
        Store::open(Profile::at(other.path()).expect("profile"), Arc::new(MemoryKeyStore::new())).expect("open copy");
    let d = store.show("mytasks").expect("show");
    assert_eq!(d.card.status, Status::NeedsSetup);
    assert_eq!(
        d.settings.iter().find(|s| s.key == "max_tasks").and_then(|s| s.value.clone()),
        Some(serde_json::json!(12)),
        "plain settings travel"
    );
    store.set_secret("mytasks", "api_token", "typed-again-on-the-other-pc".into()).expect("set again");
    assert_eq!(store.show("mytasks").expect("show").card.status, Status::Active);
    // The original profile is unaffected.
    assert_eq!(f.status("mytasks"), Status::Active);
}

#[test]
fn s11_deleting_the_vault_key_from_the_os_store_needs_setup() {
    let keys: Arc<dyn KeyStore> = Arc::new(OsKeyStore::new());
    let f = Fixture::with_keys(keys);
    install_my_tasks(&f);
    assert_eq!(f.status("mytasks"), Status::Active);
    let profile_id: String =
        f.sql().query_row("SELECT value FROM prefs WHERE key='profile_id'", [], |r| r.get(0)).expect("id");
    let os = OsKeyStore::new();
    assert!(os.load(&profile_id).expect("os store works").is_some(), "the key lives in the OS store");
    // A reboot clears keyutils: the key is gone.
    os.delete(&profile_id).expect("delete key");
    assert_eq!(f.status("mytasks"), Status::NeedsSetup);
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets WHERE slug='mytasks'"), 1, "the sealed row stays, unreadable");
    f.store.set_secret("mytasks", "api_token", SECRET.into()).expect("set again makes a new key");
    assert_eq!(f.status("mytasks"), Status::Active);
    os.delete(&profile_id).expect("clean up the test key");
}

#[test]
fn s11_uninstall_deletes_the_secrets_rows() {
    let f = Fixture::new();
    install_my_tasks(&f);
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets"), 1);
    f.store.uninstall("mytasks").expect("uninstall");
    assert_eq!(f.count("SELECT COUNT(*) FROM secrets"), 0);
}
