//! Issue 32 "Bound to the origin" (§13): the AI's key set for
//! `http://127.0.0.1:A/v1` is never sent to the program on `127.0.0.1:B`
//! after the URL changes (two ports of this PC are two programs): a changed
//! origin forgets the key, and the host's answer says the player must type
//! it again.

mod common;

use common::*;
use dcp_host::Sensitive;
use std::sync::{Arc, Mutex};

const KEY: &str = "sk-local-0123456789abcdef";

/// A program on the PC answering a model list, recording each request's
/// `Authorization` header.
fn ai_server(port: u16) -> Arc<Mutex<Vec<Option<String>>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    pc_server_answering(port, move |authorization| {
        record.lock().expect("record").push(authorization.map(str::to_owned));
        ("200 OK", r#"{"object":"list","data":[{"id":"m","object":"model"}]}"#.to_owned())
    });
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s13_issue32_a_key_set_for_one_port_never_reaches_another() {
    let f = fixture();
    let (a, b) = (free_port(), free_port());
    let (seen_a, seen_b) = (ai_server(a), ai_server(b));
    let url = |port: u16| Some(format!("http://127.0.0.1:{port}/v1"));

    f.host.set_ai(url(a), Some("m".into())).await.expect("port A");
    let keyed = f.host.set_ai_key(Sensitive::from(KEY)).await.expect("the key");
    assert!(keyed.key_set && !keyed.key_forgotten);
    let reached = f.host.ai_test(true).await.expect("test A");
    assert!(reached.ok, "{reached:?}");
    // The model list, then whether the model can use tools (issue 34): all of A's origin, all with its key.
    let seen = seen_a.lock().expect("seen").clone();
    assert!(!seen.is_empty() && seen.iter().all(|k| k.as_deref() == Some(&format!("Bearer {KEY}"))), "A gets its key");

    // Another path of the same origin keeps it.
    let same = f.host.set_ai(Some(format!("http://127.0.0.1:{a}/api/v1")), None).await.expect("same origin");
    assert!(same.key_set && !same.key_forgotten);
    assert!(!serde_json::to_value(&same).expect("JSON").as_object().expect("object").contains_key("key_forgotten"));

    let moved = f.host.set_ai(url(b), None).await.expect("port B");
    assert!(!moved.key_set && moved.key_forgotten, "the answer says the key must be typed again: {moved:?}");
    assert_eq!(serde_json::to_value(&moved).expect("JSON")["key_forgotten"], true);
    let reached = f.host.ai_test(true).await.expect("test B");
    assert!(reached.ok, "{reached:?}");
    let seen = seen_b.lock().expect("seen").clone();
    assert!(!seen.is_empty() && seen.iter().all(Option::is_none), "B gets requests, with no key: {seen:?}");
    assert!(!f.host.ai_connection().await.expect("connection").has_key(), "no key for B");

    let back = f.host.set_ai(url(a), None).await.expect("back to A");
    assert!(!back.key_set && !back.key_forgotten, "forgotten, not hidden: {back:?}");
    assert!(!f.host.ai().await.expect("ai").key_set);
}
