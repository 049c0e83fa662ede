//! The JSON shapes a window sends and receives, as the app contract fixes
//! them: what comes in deserializes, a secret never goes back out.

use dcp_host::{ApiError, CloudChoice, ErrorCode, HostCode, InstallOptions, Place, Source};
use serde_json::json;

/// The consent screen's Install: settings as [key, value], secrets as
/// [key, text] that become Sensitive and print as [secret].
#[test]
fn an_install_request_comes_in_with_its_secrets_sealed_from_view() {
    let request =
        json!({"settings": [["city", "Lyon"], ["days", 3]], "secrets": [["token", "abc-123"]], "cloud": "local"});
    let options: InstallOptions = serde_json::from_value(request).expect("an install request");
    assert_eq!(options.settings, [("city".to_owned(), json!("Lyon")), ("days".to_owned(), json!(3))]);
    assert_eq!(options.cloud, Some(CloudChoice::Local));
    let (key, secret) = &options.secrets[0];
    assert_eq!((key.as_str(), secret.expose()), ("token", "abc-123"));
    assert!(!format!("{options:?}").contains("abc-123"), "Debug shows [secret]");
    assert!(serde_json::to_string(secret).is_err(), "a secret never serializes");
}

#[test]
fn try_an_actions_source_and_model_come_in_by_their_names() {
    let (source, model): (Source, Place) = serde_json::from_value(json!(["keyboard", "online"])).expect("names");
    assert_eq!((source, model), (Source::Keyboard, Place::Online));
}

/// Every command rejects with `{code, message, problems, fields}`, the
/// lists empty when none (a window reads them without checking they are there).
#[test]
fn an_error_always_carries_its_problem_list() {
    let error = ApiError::new(ErrorCode::Host(HostCode::BadInput), "only https links open from the app");
    assert_eq!(
        serde_json::to_value(&error).expect("JSON"),
        json!({"code": "bad_input", "message": "only https links open from the app", "problems": [], "fields": []})
    );
}
