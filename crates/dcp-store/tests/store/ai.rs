//! The companion's AI as the profile keeps it (issue 22, §11, §13): its
//! key sealed like a secret, never in clear on disk, and bound to the
//! origin (scheme, host and port) it was given for (issue 32).

use crate::common::*;
use dcp_store::KeyOrigin;
use dcp_vault::Sensitive;

const KEY: &str = "sk-or-v1-0123456789abcdef-companion";

/// `https://openrouter.ai/api/v1`'s origin, its port its scheme's default.
const OPENROUTER: KeyOrigin<'static> =
    KeyOrigin { origin: "https://openrouter.ai:443", legacy_host: Some("openrouter.ai") };

fn online(f: &Fixture) {
    f.store.set_ai(Some(("https://openrouter.ai/api/v1", OPENROUTER)), Some("llama-3.1-8b")).expect("set");
}

fn origin(origin: &'static str) -> KeyOrigin<'static> {
    KeyOrigin { origin, legacy_host: None }
}

#[test]
fn s11_the_ai_key_is_sealed_and_never_in_clear_on_disk() {
    let f = Fixture::new();
    online(&f);
    f.store.set_ai_key(&OPENROUTER, &Sensitive::new(KEY.to_owned())).expect("key");
    let kept = f.store.ai().expect("ai");
    assert_eq!(
        (kept.url.as_deref(), kept.model.as_deref(), kept.key_for(&OPENROUTER)),
        (Some("https://openrouter.ai/api/v1"), Some("llama-3.1-8b"), true)
    );
    assert!(!format!("{kept:?}").contains(KEY));
    assert!(!contains(&f.db_bytes(), KEY), "sealed in the database");
    for entry in walk(&f.root()) {
        assert!(!contains(&std::fs::read(&entry).expect("file"), KEY), "{}", entry.display());
    }
    let opened = f.store.ai_key(&OPENROUTER).expect("open").expect("a key");
    assert_eq!(opened.expose(), KEY);
}

/// Issue 32: a key is sent only to the origin it was given for: asked for
/// another host, or the same host on another port or scheme, there is
/// none; a URL of another origin forgets it (and says so); the same origin
/// (another path, another model) keeps it.
#[test]
fn s13_issue32_the_ai_key_is_bound_to_its_origin() {
    let f = Fixture::new();
    let pc = origin("http://127.0.0.1:11434");
    f.store.set_ai(Some(("http://127.0.0.1:11434/v1", pc)), Some("llama3.2")).expect("set");
    f.store.set_ai_key(&pc, &Sensitive::new(KEY.to_owned())).expect("key");
    assert!(f.store.ai_key(&pc).expect("read").is_some(), "its own origin");
    for other in
        ["http://127.0.0.1:1234", "https://127.0.0.1:11434", "http://localhost:11434", "http://evil.example.com:11434"]
    {
        assert!(f.store.ai_key(&origin(other)).expect("read").is_none(), "{other}");
        assert!(!f.store.ai().expect("ai").key_for(&origin(other)), "{other}");
    }

    let forgot = f.store.set_ai(Some(("http://127.0.0.1:11434/api/v1", pc)), Some("other")).expect("same origin");
    assert!(!forgot && f.store.ai().expect("ai").key_for(&pc), "same origin: kept");

    let forgot = f.store.set_ai(Some(("http://127.0.0.1:1234/v1", origin("http://127.0.0.1:1234"))), None);
    assert!(forgot.expect("another port"), "another port: the key is forgotten, and that is said");
    let kept = f.store.ai().expect("ai");
    assert_eq!((kept.key_bound, kept.model.as_deref()), (None, Some("other")), "the model is kept");
    assert!(f.store.ai_key(&pc).expect("read").is_none());
    assert_eq!(f.count("SELECT count(*) FROM ai_connection WHERE sealed_key IS NOT NULL"), 0);
    assert!(!f.store.set_ai(Some(("http://127.0.0.1:11434/v1", pc)), None).expect("back"), "nothing left to forget");
}

/// Issue 32: a key kept before origins (bound to a host only, sealed for
/// that host) is still the key of that host's URL when its port is its
/// scheme's default, and of no other origin; the next URL of another
/// origin forgets it.
#[test]
fn s13_issue32_a_key_bound_to_a_host_only_counts_only_on_the_default_port() {
    let f = Fixture::new();
    online(&f);
    // What a version before issue 32 wrote: key_host is the host, the seal bound to it.
    f.store.set_ai_key(&origin("openrouter.ai"), &Sensitive::new(KEY.to_owned())).expect("a host-bound key");
    assert_eq!(f.store.ai().expect("ai").key_bound.as_deref(), Some("openrouter.ai"));
    assert_eq!(f.store.ai_key(&OPENROUTER).expect("open").expect("kept").expose(), KEY);
    assert!(f.store.ai().expect("ai").key_for(&OPENROUTER));

    let other_port = origin("https://openrouter.ai:8443");
    assert!(f.store.ai_key(&other_port).expect("read").is_none(), "not on another port");
    assert!(!f.store.ai().expect("ai").key_for(&other_port));
    assert!(f.store.set_ai(Some(("https://openrouter.ai:8443/v1", other_port)), None).expect("set"), "forgotten");
    assert_eq!(f.store.ai().expect("ai").key_bound, None);
}

#[test]
fn issue22_nothing_set_reads_empty_and_clear_forgets_the_key() {
    let f = Fixture::new();
    assert_eq!(f.store.ai().expect("ai"), dcp_store::AiStored::default());
    online(&f);
    f.store.set_ai_key(&OPENROUTER, &Sensitive::new(KEY.to_owned())).expect("key");
    f.store.clear_ai_key().expect("clear");
    assert_eq!(f.store.ai().expect("ai").key_bound, None);
    assert!(f.store.ai_key(&OPENROUTER).expect("read").is_none());
}

/// Issue 34: the answer length the player set is kept beside the AI, kept
/// when the URL, the model or the key change, and forgotten for the
/// default; set before any URL, it is kept too.
#[test]
fn issue34_the_answer_length_is_kept_until_set_back_to_the_default() {
    let f = Fixture::new();
    f.store.set_ai_max_tokens(Some(512)).expect("before any URL");
    assert_eq!(f.store.ai().expect("ai").max_tokens, Some(512));
    online(&f);
    f.store.set_ai_key(&OPENROUTER, &Sensitive::new(KEY.to_owned())).expect("key");
    f.store.set_ai_max_tokens(Some(4096)).expect("set");
    f.store.set_ai(Some(("http://127.0.0.1:11434/v1", origin("http://127.0.0.1:11434"))), Some("m")).expect("set");
    let kept = f.store.ai().expect("ai");
    assert_eq!((kept.max_tokens, kept.model.as_deref()), (Some(4096), Some("m")));
    f.store.set_ai_max_tokens(None).expect("back to the default");
    assert_eq!(f.store.ai().expect("ai").max_tokens, None);
}
