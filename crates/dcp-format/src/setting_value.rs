//! The values a player types into settings (§10, §22 "When installing or
//! saving settings"): each checked against its setting and turned into the
//! value stored, or refused with the reason of `bad_settings`.

use crate::model::{Setting, SettingKind};
use serde::Serialize;
use serde_json::Value;

crate::spelled! {
    /// Why a value is refused: the reasons `bad_settings` carries (§22).
    pub enum BadSetting {
        /// Not of the setting's type.
        BadType => "bad_type",
        /// A number outside min and max.
        OutOfBounds => "out_of_bounds",
        /// Text too long or holding control or invisible characters.
        BadText => "bad_text",
        /// Not an id (`format: "id"`).
        BadFormat => "bad_format",
        /// Empty.
        Empty => "empty",
        /// No such setting.
        UnknownSetting => "unknown_setting",
    }
}

/// A refused value: the reason and a sentence for the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedValue {
    /// The reason code.
    pub reason: BadSetting,
    /// What to do about it (never repeats a secret's value).
    pub message: String,
}

fn refuse(reason: BadSetting, message: impl Into<String>) -> RefusedValue {
    RefusedValue { reason, message: message.into() }
}

/// Checks a value for `setting` and returns the value to store. Text may be
/// given for a number (`"10"`) or a boolean (`"true"`), as typed in a field
/// or on a command line. An id is trimmed; a pasted address is refused with
/// a message saying which part to copy.
pub fn check(setting: &Setting, value: &Value) -> Result<Value, RefusedValue> {
    match &setting.kind {
        SettingKind::Text { max_length, sensitive, id_format, .. } => {
            let Value::String(text) = value else { return Err(refuse(BadSetting::BadType, "expected text")) };
            text_value(text, *max_length, *sensitive, *id_format).map(Value::String)
        }
        SettingKind::Number { min, max, .. } => {
            let n = match value {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok().filter(|n| n.is_finite()),
                _ => None,
            };
            let n = n.ok_or_else(|| refuse(BadSetting::BadType, "expected a number"))?;
            if min.is_some_and(|lo| n < lo) || max.is_some_and(|hi| n > hi) {
                let range = format!("{} to {}", min.map_or("…".into(), fmt), max.map_or("…".into(), fmt));
                return Err(refuse(BadSetting::OutOfBounds, format!("expected a number from {range}")));
            }
            Ok(json_number(n))
        }
        SettingKind::Boolean { .. } => match value {
            Value::Bool(b) => Ok(Value::Bool(*b)),
            Value::String(s) if s.trim() == "true" => Ok(Value::Bool(true)),
            Value::String(s) if s.trim() == "false" => Ok(Value::Bool(false)),
            _ => Err(refuse(BadSetting::BadType, "expected true or false")),
        },
    }
}

/// A number as JSON, whole numbers as integers, so a template renders `10`
/// rather than `10.0`: used for setting values, defaults and arguments.
pub fn json_number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

fn fmt(n: f64) -> String {
    if n.fract() == 0.0 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

fn text_value(text: &str, max_length: u64, sensitive: bool, id_format: bool) -> Result<String, RefusedValue> {
    let text = if id_format { text.trim() } else { text };
    if text.is_empty() {
        return Err(refuse(BadSetting::Empty, "the value is empty"));
    }
    if text.chars().any(crate::text::is_hidden_char) {
        return Err(refuse(BadSetting::BadText, "the value holds control or invisible characters"));
    }
    let n = text.chars().count() as u64;
    if n > max_length {
        let what = if sensitive { "the secret" } else { "the text" };
        return Err(refuse(BadSetting::BadText, format!("{what} is {n} characters; {max_length} at most")));
    }
    if id_format && !is_id(text) {
        let message = if text.contains("://") || text.contains('/') || text.contains('.') {
            "paste only the id, not the whole address: the letters, digits, - and _ part"
        } else {
            "an id is 1 to 64 letters, digits, - and _"
        };
        return Err(refuse(BadSetting::BadFormat, message));
    }
    Ok(text.to_owned())
}

/// The `format: "id"` rule (§10): letters, digits, `-` and `_`, 1 to 64.
pub fn is_id(value: &str) -> bool {
    (1..=crate::limits::ID_SETTING_CHARS).contains(&value.len())
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Texts;
    use serde_json::json;

    fn setting(kind: SettingKind) -> Setting {
        Setting {
            key: "k".into(),
            kind,
            title: "K".into(),
            description: None,
            required: true,
            help_url: None,
            labels: Texts::new(),
            descriptions: Texts::new(),
        }
    }

    fn reason(s: &Setting, v: Value) -> Option<BadSetting> {
        check(s, &v).err().map(|r| r.reason)
    }

    #[test]
    fn s10_id_values_are_trimmed_and_addresses_refused() {
        let id = setting(SettingKind::Text { max_length: 64, sensitive: false, id_format: true, default: None });
        assert_eq!(check(&id, &json!("  abc-12_X  ")), Ok(json!("abc-12_X")));
        let pasted = check(&id, &json!("https://trello.com/b/abc123/my-board")).expect_err("refused");
        assert_eq!(pasted.reason, BadSetting::BadFormat);
        assert!(pasted.message.contains("not the whole address"));
        assert_eq!(reason(&id, json!("a b")), Some(BadSetting::BadFormat));
        assert_eq!(reason(&id, json!("   ")), Some(BadSetting::Empty));
        assert_eq!(reason(&id, json!("a".repeat(65))), Some(BadSetting::BadText));
    }

    #[test]
    fn s10_text_numbers_and_booleans() {
        let text = setting(SettingKind::Text { max_length: 5, sensitive: false, id_format: false, default: None });
        assert_eq!(check(&text, &json!("hello")), Ok(json!("hello")));
        assert_eq!(reason(&text, json!("hello!")), Some(BadSetting::BadText));
        assert_eq!(reason(&text, json!("a\u{200B}b")), Some(BadSetting::BadText));
        assert_eq!(reason(&text, json!("")), Some(BadSetting::Empty));
        assert_eq!(reason(&text, json!(5)), Some(BadSetting::BadType));
        let number = setting(SettingKind::Number { min: Some(1.0), max: Some(50.0), default: None });
        assert_eq!(check(&number, &json!("10")), Ok(json!(10)));
        assert_eq!(check(&number, &json!(2.5)), Ok(json!(2.5)));
        assert_eq!(check(&number, &json!(50)), Ok(json!(50)));
        assert_eq!(reason(&number, json!(51)), Some(BadSetting::OutOfBounds));
        assert_eq!(reason(&number, json!(0.5)), Some(BadSetting::OutOfBounds));
        assert_eq!(reason(&number, json!("ten")), Some(BadSetting::BadType));
        assert_eq!(reason(&number, json!("NaN")), Some(BadSetting::BadType));
        let flag = setting(SettingKind::Boolean { default: None });
        assert_eq!(check(&flag, &json!("true")), Ok(json!(true)));
        assert_eq!(reason(&flag, json!("yes")), Some(BadSetting::BadType));
    }

    #[test]
    fn s11_a_refused_secret_never_echoes_its_value() {
        let secret = setting(SettingKind::Text { max_length: 10, sensitive: true, id_format: false, default: None });
        let refusal = check(&secret, &json!("sk-verylongsecretvalue")).expect_err("too long");
        assert!(!refusal.message.contains("sk-verylong"));
    }
}
