//! §18 "A failed install keeps the screen open with the problem next to
//! the field it concerns": a refused install or Save carries every field's
//! problem at once in `fields` (key, §22 code, message), so a window puts
//! each next to its field without reading the message.

mod common;

use common::*;
use dcp_host::SettingsCode;
use dcp_host::{ApiError, CloudChoice, ErrorCode, InstallOptions, Sensitive};
use serde_json::{json, Value};

/// The `(key, code)` of each field problem, sorted.
fn fields(e: &ApiError) -> Vec<(String, &'static str)> {
    let mut out: Vec<_> = e.fields.iter().map(|f| (f.key.clone(), f.code.as_str())).collect();
    out.sort();
    out
}

fn secret(key: &str, value: &str) -> (String, Sensitive) {
    (key.to_owned(), Sensitive::new(value.to_owned()))
}

fn setting(key: &str, value: Value) -> (String, Value) {
    (key.to_owned(), value)
}

/// A bad setting and a bad secret at once: both are named, each with its own reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s18_install_names_every_bad_field_with_its_code() {
    let f = fixture();
    let file = folder(f.dir.path(), "trello", &example("trello-perso")).join("manifest.json");
    let review = f.host.import_path(file).await.expect("review");
    let options = InstallOptions {
        settings: vec![setting("board", json!("https://trello.com/b/abcd1234/home"))],
        secrets: vec![secret("api_key", "key\u{7}with a bell"), secret("token", "t0k3n")],
        cloud: None,
    };
    let refused = f.host.install(&review.review, options).await.expect_err("two bad values");
    assert_eq!(refused.code, ErrorCode::Settings(SettingsCode::BadSettings));
    assert_eq!(fields(&refused), [("api_key".to_owned(), "bad_text"), ("board".to_owned(), "bad_format")]);
    assert!(refused.fields.iter().all(|p| !p.message.is_empty()), "{:?}", refused.fields);
    assert!(!serde_json::to_string(&refused).expect("JSON").contains("with a bell"), "no secret crosses");

    // Two required fields left empty: both named as missing_settings.
    let options = InstallOptions { secrets: vec![secret("api_key", "k3y")], ..Default::default() };
    let missing = f.host.install(&review.review, options).await.expect_err("two empty fields");
    assert_eq!(missing.code, ErrorCode::Settings(SettingsCode::MissingSettings));
    assert_eq!(fields(&missing), [("board".to_owned(), "missing_settings"), ("token".to_owned(), "missing_settings")]);

    // A bad value and an empty required field at once: bad_settings names both.
    let options = InstallOptions {
        settings: vec![setting("board", json!("https://trello.com/b/abcd1234/home"))],
        secrets: vec![secret("api_key", "k3y")],
        cloud: None,
    };
    let both = f.host.install(&review.review, options).await.expect_err("a bad value and an empty field");
    assert_eq!(both.code, ErrorCode::Settings(SettingsCode::BadSettings));
    assert_eq!(fields(&both), [("board".to_owned(), "bad_format"), ("token".to_owned(), "missing_settings")]);
    assert!(both.message.contains("also fill in token"), "{}", both.message);
}

/// Save: an id pasted as an address and a setting the plugin does not have.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s10_save_names_every_bad_field_with_its_code() {
    let f = fixture();
    let options = InstallOptions {
        settings: vec![setting("board", json!("abcd1234"))],
        secrets: vec![secret("api_key", "k3y"), secret("token", "t0k3n")],
        cloud: Some(CloudChoice::Local),
    };
    install_manifest(&f.host, f.dir.path(), "trello", &example("trello-perso"), options).await;
    let values = vec![setting("board", json!("https://trello.com/b/abcd1234/home")), setting("colour", json!("red"))];
    let refused = f.host.save_settings("trelloperso", values).await.expect_err("two bad values");
    assert_eq!(refused.code, ErrorCode::Settings(SettingsCode::BadSettings));
    assert_eq!(fields(&refused), [("board".to_owned(), "bad_format"), ("colour".to_owned(), "unknown_setting")]);
    let sent = serde_json::to_value(&refused).expect("JSON");
    assert_eq!(sent["fields"][0]["key"], "board", "fields cross the boundary: {sent}");
    let details = f.host.details("trelloperso").await.expect("details");
    let board = details.settings.iter().find(|s| s.key == "board").expect("board");
    assert_eq!(board.value, Some(json!("abcd1234")), "nothing is saved unless every value passes");
}

/// §10 `min`/`max`: the consent screen and Options both carry a number's
/// range so the window can say it before Save, and a value outside it is
/// refused as out_of_bounds with nothing saved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s10_a_number_setting_carries_its_range_and_a_value_out_of_it_is_refused() {
    let f = fixture();
    let file = folder(f.dir.path(), "tasks", &example("my-tasks")).join("manifest.json");
    let review = f.host.import_path(file).await.expect("review");
    let range = |key: &str| {
        let s = review.settings.iter().find(|s| s.key == key).expect("setting");
        (s.min, s.max)
    };
    assert_eq!(range("max_tasks"), (Some(1.0), Some(50.0)));
    assert_eq!(range("api_token"), (None, None), "a text has no range");

    let options = InstallOptions {
        secrets: vec![secret("api_token", "t0k3n")],
        cloud: Some(CloudChoice::Local),
        ..Default::default()
    };
    install_manifest(&f.host, f.dir.path(), "tasks2", &example("my-tasks"), options).await;
    let details = f.host.details("mytasks").await.expect("details");
    let max_tasks = details.settings.iter().find(|s| s.key == "max_tasks").expect("max_tasks");
    assert_eq!((max_tasks.min, max_tasks.max), (Some(1.0), Some(50.0)));
    let sent = serde_json::to_value(max_tasks).expect("JSON");
    assert_eq!((sent["min"].clone(), sent["max"].clone()), (json!(1.0), json!(50.0)), "{sent}");

    let refused = f.host.save_settings("mytasks", vec![setting("max_tasks", json!(51))]).await.expect_err("51 > 50");
    assert_eq!(refused.code, ErrorCode::Settings(SettingsCode::BadSettings));
    assert_eq!(fields(&refused), [("max_tasks".to_owned(), "out_of_bounds")]);
    let details = f.host.details("mytasks").await.expect("details");
    let max_tasks = details.settings.iter().find(|s| s.key == "max_tasks").expect("max_tasks");
    assert_eq!(max_tasks.value, Some(json!(10)), "the default stays");
}
