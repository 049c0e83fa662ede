//! §11: a secret never comes back out — not in a log, an error or over IPC.

// Tests may unwrap: a failure here is a test failure, with its message.
#![allow(clippy::unwrap_used)]

use dcp_vault::Sensitive;

const VALUE: &str = "tok_live_9f8e7d6c5b4a";

#[test]
fn s11_secret_debug_and_display_are_redacted() {
    let secret = Sensitive::from(VALUE);
    let debug = format!("{secret:?}");
    let display = secret.to_string();
    let pretty = format!("{secret:#?} {secret:>40}");
    for text in [&debug, &display, &pretty] {
        assert!(!text.contains(VALUE), "leaked in {text:?}");
        assert!(text.contains("[secret]"), "{text:?}");
    }
    // Inside a derived Debug of a caller's struct too.
    #[derive(Debug)]
    #[allow(dead_code)]
    struct Row {
        key: &'static str,
        value: Sensitive,
    }
    let row = format!("{:?}", Row { key: "api_token", value: Sensitive::from(VALUE) });
    assert!(!row.contains(VALUE), "{row}");
}

#[test]
fn s11_secret_refuses_to_serialize() {
    let secret = Sensitive::from(VALUE);
    let err = serde_json::to_string(&secret).expect_err("a secret must not serialize");
    assert!(!err.to_string().contains(VALUE));

    // Nor hidden in a larger value.
    let map = std::collections::BTreeMap::from([("api_token", Sensitive::from(VALUE))]);
    assert!(serde_json::to_string(&map).is_err());
    assert!(serde_json::to_value(&map).is_err());
}

#[test]
fn s11_secret_comes_in_by_deserialize_and_out_only_by_expose() {
    let secret: Sensitive = serde_json::from_str(&format!("\"{VALUE}\"")).unwrap();
    assert_eq!(secret.expose(), VALUE);
    assert!(!secret.is_empty());
    assert!(Sensitive::from("").is_empty());
}
