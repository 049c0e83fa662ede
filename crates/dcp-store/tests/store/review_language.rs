//! §6 "About hints" and §10 "Translating settings": the consent screen
//! shows hints and setting texts in the player's language, English when the
//! plugin has no translation; and the app switches refuse bad values.

use dcp_store::{Profile, Store, StoreError};
use dcp_vault::testing::MemoryKeyStore;
use std::path::Path;
use std::sync::Arc;

fn example(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples").join(name).join("manifest.json")
}

fn store(dir: &Path) -> Store {
    Store::open(Profile::at(dir).expect("profile"), Arc::new(MemoryKeyStore::new())).expect("store")
}

#[test]
fn s10_the_review_speaks_the_players_language_with_english_as_fallback() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    s.set_pref("language", "fr").expect("language");
    let trello = s.import(&example("trello-perso")).expect("review");
    let hints: Vec<&str> = trello.actions.iter().map(|a| a.hint.as_str()).collect();
    assert_eq!(hints, vec!["lire votre tableau Trello", "ajouter une carte à votre tableau Trello"]);
    let titles: Vec<&str> = trello.settings.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(titles, vec!["Clé de l'app", "Jeton", "Tableau"]);
    let tasks = s.import(&example("my-tasks")).expect("review");
    assert_eq!(tasks.actions[0].hint, "read your tasks", "no French hint: English is shown");
    assert_eq!(tasks.settings[0].label, "API token", "no French label: the title is shown");

    s.set_pref("language", "en").expect("language");
    let english = s.review(&trello.review).expect("review again");
    assert_eq!(english.actions[0].hint, "read your Trello board");
    assert_eq!(english.settings[2].label, "Board");
}

#[test]
fn s18_app_switches_refuse_bad_values_and_unknown_names() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store(dir.path());
    for (key, value) in [("language", "xx"), ("dev_mode", "yes"), ("plugins_enabled", "1"), ("tools_enabled", "")] {
        let e = s.set_pref(key, value).expect_err(key);
        assert!(matches!(e, StoreError::BadValue(_)), "{key}={value}: {e:?}");
    }
    let e = s.set_pref("volume", "3").expect_err("no such switch");
    assert!(matches!(e, StoreError::NoSuchName(_)), "{e:?}");
    let prefs = s.prefs().expect("prefs");
    assert_eq!(
        (prefs.language.as_str(), prefs.dev_mode, prefs.plugins_enabled, prefs.tools_enabled),
        ("en", false, true, true)
    );
}
