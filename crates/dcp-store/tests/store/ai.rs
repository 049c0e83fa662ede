//! The companion's AI as the profile keeps it (issue 22, §11, §13): its
//! key sealed like a secret, never in clear on disk, and bound to the host
//! it was given for.

use crate::common::*;
use dcp_vault::Sensitive;

const KEY: &str = "sk-or-v1-0123456789abcdef-companion";

fn online(f: &Fixture) {
    f.store.set_ai(Some(("https://openrouter.ai/api/v1", "openrouter.ai")), Some("llama-3.1-8b")).expect("set");
}

#[test]
fn s11_the_ai_key_is_sealed_and_never_in_clear_on_disk() {
    let f = Fixture::new();
    online(&f);
    f.store.set_ai_key("openrouter.ai", &Sensitive::new(KEY.to_owned())).expect("key");
    let kept = f.store.ai().expect("ai");
    assert_eq!(
        (kept.url.as_deref(), kept.model.as_deref(), kept.key_set),
        (Some("https://openrouter.ai/api/v1"), Some("llama-3.1-8b"), true)
    );
    assert!(!format!("{kept:?}").contains(KEY));
    assert!(!contains(&f.db_bytes(), KEY), "sealed in the database");
    for entry in walk(&f.root()) {
        assert!(!contains(&std::fs::read(&entry).expect("file"), KEY), "{}", entry.display());
    }
    let opened = f.store.ai_key("openrouter.ai").expect("open").expect("a key");
    assert_eq!(opened.expose(), KEY);
}

/// A key is sent only to the host it was given for: asked for another
/// host, there is none; a URL on another host forgets it; the same host
/// (another path, another model) keeps it.
#[test]
fn s13_the_ai_key_is_bound_to_its_host() {
    let f = Fixture::new();
    online(&f);
    f.store.set_ai_key("openrouter.ai", &Sensitive::new(KEY.to_owned())).expect("key");
    assert!(f.store.ai_key("evil.example.com").expect("read").is_none());

    f.store.set_ai(Some(("https://openrouter.ai/api/v2", "openrouter.ai")), Some("other")).expect("same host");
    assert!(f.store.ai().expect("ai").key_set, "same host: kept");
    assert!(f.store.ai_key("openrouter.ai").expect("read").is_some());

    f.store.set_ai(Some(("https://api.example.com/v1", "api.example.com")), None).expect("other host");
    let kept = f.store.ai().expect("ai");
    assert!(!kept.key_set, "another host: the key is forgotten");
    assert_eq!(kept.model.as_deref(), Some("other"), "the model is kept");
    assert!(f.store.ai_key("openrouter.ai").expect("read").is_none());
    assert_eq!(f.count("SELECT count(*) FROM ai_connection WHERE sealed_key IS NOT NULL"), 0);
}

#[test]
fn issue22_nothing_set_reads_empty_and_clear_forgets_the_key() {
    let f = Fixture::new();
    assert_eq!(f.store.ai().expect("ai"), dcp_store::AiStored::default());
    online(&f);
    f.store.set_ai_key("openrouter.ai", &Sensitive::new(KEY.to_owned())).expect("key");
    f.store.clear_ai_key().expect("clear");
    assert!(!f.store.ai().expect("ai").key_set);
    assert!(f.store.ai_key("openrouter.ai").expect("read").is_none());
}
