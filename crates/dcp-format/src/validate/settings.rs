//! Settings (`user_config`, §10) and their translations (`ui`, §10).

use super::json::{Map, Value};
use super::{chars, type_name, unknown_keys, Path};
use crate::hosts::check_public_domain;
use crate::language::Language;
use crate::limits;
use crate::model::{Setting, SettingKind};
use crate::problem::{Code, Problems};
use crate::template::is_identifier;
use crate::url_parts::split;
use std::collections::BTreeMap;

/// Words that make a setting name look like a secret (§10). They are matched
/// anywhere in the lowercased name with `_` and `-` removed, so every naming
/// style is caught (`api_key`, `apiKey`, `AccessToken`); a harmless name
/// such as `keyboard` is refused too, which costs an author a rename and
/// never leaks a secret.
const SECRET_WORDS: &[&str] =
    &["key", "apikey", "token", "secret", "password", "passwd", "pwd", "webhook", "bearer", "auth", "credential"];

const FIELDS: &[&str] = &[
    "type",
    "title",
    "description",
    "required",
    "default",
    "min",
    "max",
    "maxLength",
    "sensitive",
    "format",
    "helpUrl",
];

/// The settings: every declared key (even a broken one, so templates naming
/// it are not reported twice) and the settings that passed.
#[derive(Debug, Default)]
pub(super) struct Settings {
    /// Key → is a secret.
    pub declared: BTreeMap<String, bool>,
    pub valid: Vec<Setting>,
}

impl Settings {
    pub fn is_secret(&self, key: &str) -> Option<bool> {
        self.declared.get(key).copied()
    }
}

pub(super) fn check(user_config: Option<&Value>, p: &mut Problems) -> Settings {
    let mut settings = Settings::default();
    let Some(user_config) = user_config else {
        return settings;
    };
    let Value::Object(map) = user_config else {
        p.push(
            Code::BadUserConfig,
            "user_config",
            format!("user_config must be an object, not {}", type_name(user_config)),
        );
        return settings;
    };
    if map.len() > limits::SETTINGS {
        p.push(Code::BadUserConfig, "user_config", format!("{} settings; 20 at most", map.len()));
    }
    let user_config = Path::top("user_config");
    for (key, value) in map {
        let path = user_config.key(key);
        let secret = value.get("sensitive") == Some(&Value::Bool(true));
        settings.declared.insert(key.to_owned(), secret);
        if looks_secret(key) && !secret {
            p.push(
                Code::SecretNotSensitive,
                path,
                format!("\"{key}\" is named like a secret: add \"sensitive\": true"),
            );
        }
        if let Some(setting) = one(key, value, path, p) {
            settings.valid.push(setting);
        }
    }
    settings
}

fn looks_secret(key: &str) -> bool {
    let folded: String = key.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect();
    SECRET_WORDS.iter().any(|w| folded.contains(w))
}

fn one(key: &str, value: &Value, path: Path, p: &mut Problems) -> Option<Setting> {
    let before = p.error_count();
    if !is_identifier(key) {
        p.push(
            Code::BadUserConfig,
            path,
            "a setting key starts with a letter, then letters, digits or _ (31 characters at most)",
        );
    }
    let Value::Object(field) = value else {
        p.push(Code::BadUserConfig, path, format!("a setting must be an object, not {}", type_name(value)));
        return None;
    };
    unknown_keys(field, FIELDS, Code::BadUserConfig, path, p);
    let title = text(field, "title", limits::SETTING_TITLE_CHARS, path, p).unwrap_or_else(|| key.to_owned());
    let description = text(field, "description", limits::SETTING_DESCRIPTION_CHARS, path, p);
    let required = flag(field, "required", path, p);
    let help_url = text(field, "helpUrl", limits::HELP_URL_CHARS, path, p);
    if let Some(url) = &help_url {
        if let Err(why) = help_link(url) {
            p.push(Code::BadUserConfig, path.key("helpUrl"), why);
        }
    }
    let kind = kind(field, path, p)?;
    (p.error_count() == before).then(|| Setting {
        key: key.to_owned(),
        kind,
        title,
        description,
        required,
        help_url,
        labels: BTreeMap::new(),
        descriptions: BTreeMap::new(),
    })
}

fn kind(field: &Map, path: Path, p: &mut Problems) -> Option<SettingKind> {
    let bad = |p: &mut Problems, key: &str, why: String| p.push(Code::BadUserConfig, path.key(key), why);
    let sensitive = flag(field, "sensitive", path, p);
    let kind = match field.get("type").and_then(Value::as_str) {
        Some("string") => text_kind(field, sensitive, path, p)?,
        Some(other @ ("number" | "boolean")) => {
            for key in ["sensitive", "format", "maxLength"].into_iter().filter(|k| field.contains_key(k)) {
                bad(p, key, format!("{key} is only for text settings"));
            }
            if other == "number" {
                number_kind(field, path, p)?
            } else {
                boolean_kind(field, path, p)?
            }
        }
        _ => {
            bad(p, "type", "type must be \"string\", \"number\" or \"boolean\"".into());
            return None;
        }
    };
    Some(kind)
}

fn text_kind(field: &Map, sensitive: bool, path: Path, p: &mut Problems) -> Option<SettingKind> {
    let bad = |p: &mut Problems, key: &str, why: String| p.push(Code::BadUserConfig, path.key(key), why);
    for key in ["min", "max"].into_iter().filter(|k| field.contains_key(k)) {
        bad(p, key, format!("{key} is only for number settings"));
    }
    let cap = if sensitive { limits::SECRET_SETTING_CHARS } else { limits::TEXT_SETTING_CHARS };
    let max_length = match field.get("maxLength") {
        None => cap,
        Some(v) => match v.as_u64().filter(|n| (1..=cap).contains(n)) {
            Some(n) => n,
            None => {
                bad(p, "maxLength", format!("maxLength must be a whole number from 1 to {cap}"));
                return None;
            }
        },
    };
    let id_format = match field.get("format") {
        None => false,
        Some(Value::String(f)) if f == "id" && !sensitive => true,
        Some(Value::String(f)) if f == "id" => {
            bad(p, "format", "format \"id\" is not for secrets".into());
            return None;
        }
        Some(_) => {
            bad(p, "format", "the only format is \"id\"".into());
            return None;
        }
    };
    let default = match field.get("default") {
        None => None,
        Some(_) if sensitive => {
            bad(p, "default", "a secret cannot have a default".into());
            return None;
        }
        Some(Value::String(d)) if chars(d) as u64 <= max_length && (!id_format || crate::setting_value::is_id(d)) => {
            Some(d.to_string())
        }
        Some(_) => {
            bad(p, "default", "the default must be text that fits maxLength (and the id format)".into());
            return None;
        }
    };
    Some(SettingKind::Text { max_length, sensitive, id_format, default })
}

fn number_kind(field: &Map, path: Path, p: &mut Problems) -> Option<SettingKind> {
    let bad = |p: &mut Problems, key: &str, why: &str| p.push(Code::BadUserConfig, path.key(key), why);
    let number = |key: &str| match field.get(key) {
        None => Ok(None),
        Some(v) => v.as_f64().map(Some).ok_or(key.to_owned()),
    };
    let (min, max, default) = match (number("min"), number("max"), number("default")) {
        (Ok(min), Ok(max), Ok(default)) => (min, max, default),
        (Err(key), _, _) | (_, Err(key), _) | (_, _, Err(key)) => {
            bad(p, &key, "must be a number");
            return None;
        }
    };
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            bad(p, "min", "min is greater than max");
            return None;
        }
    }
    if let Some(d) = default {
        if min.is_some_and(|lo| d < lo) || max.is_some_and(|hi| d > hi) {
            bad(p, "default", "the default is outside min and max");
            return None;
        }
    }
    Some(SettingKind::Number { min, max, default })
}

fn boolean_kind(field: &Map, path: Path, p: &mut Problems) -> Option<SettingKind> {
    for key in ["min", "max"].into_iter().filter(|k| field.contains_key(k)) {
        p.push(Code::BadUserConfig, path.key(key), format!("{key} is only for number settings"));
    }
    match field.get("default") {
        None => Some(SettingKind::Boolean { default: None }),
        Some(Value::Bool(b)) => Some(SettingKind::Boolean { default: Some(*b) }),
        Some(_) => {
            p.push(Code::BadUserConfig, path.key("default"), "the default of a boolean setting is true or false");
            None
        }
    }
}

/// §10's check of a setting's `helpUrl`: https, a public domain, no port,
/// no credentials; else why not. The desktop shell checks a link again
/// with it before opening it.
pub fn help_link(url: &str) -> Result<(), String> {
    let parts = split(url)?;
    if parts.scheme != "https" {
        return Err("a help link must start with https://".into());
    }
    if parts.has_credentials {
        return Err("a help link cannot contain credentials".into());
    }
    if parts.port.is_some() {
        return Err("a help link cannot name a port".into());
    }
    check_public_domain(parts.host)
}

/// An optional string field of at most `max` characters.
fn text(field: &Map, key: &str, max: usize, path: Path, p: &mut Problems) -> Option<String> {
    match field.get(key)? {
        Value::String(s) if chars(s) <= max && !s.trim().is_empty() && !s.chars().any(crate::text::is_hidden_char) => {
            Some(s.to_string())
        }
        _ => {
            p.push(Code::BadUserConfig, path.key(key), format!("{key} must be one line of 1 to {max} characters"));
            None
        }
    }
}

fn flag(field: &Map, key: &str, path: Path, p: &mut Problems) -> bool {
    match field.get(key) {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            p.push(Code::BadUserConfig, path.key(key), format!("{key} must be true or false"));
            false
        }
    }
}

/// `ui.labels` and `ui.descriptions` (§10): by language, then by setting.
pub(super) fn check_ui(ui: Option<&Value>, settings: &mut Settings, p: &mut Problems) {
    let Some(ui) = ui else { return };
    let Value::Object(ui) = ui else {
        p.push(Code::BadUserConfig, "ui", "ui must be an object with labels and descriptions");
        return;
    };
    let ui_path = Path::top("ui");
    unknown_keys(ui, &["labels", "descriptions"], Code::BadUserConfig, ui_path, p);
    for (section, max) in [("labels", limits::SETTING_TITLE_CHARS), ("descriptions", limits::SETTING_DESCRIPTION_CHARS)]
    {
        let Some(by_lang) = ui.get(section) else {
            continue;
        };
        for (lang, key, text) in translations(by_lang, ui_path.key(section), max, settings, p) {
            if let Some(setting) = settings.valid.iter_mut().find(|s| s.key == key) {
                let target = if section == "labels" { &mut setting.labels } else { &mut setting.descriptions };
                target.insert(lang, text);
            }
        }
    }
}

fn translations(
    value: &Value,
    path: Path,
    max: usize,
    settings: &Settings,
    p: &mut Problems,
) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let Value::Object(by_lang) = value else {
        p.push(Code::BadUserConfig, path, "expected an object by language, then by setting");
        return out;
    };
    for (lang, entries) in by_lang {
        let lang_path = path.key(lang);
        if Language::parse(lang).is_none() {
            p.push(Code::BadUserConfig, lang_path, format!("unknown language \"{lang}\" (use {})", Language::codes()));
            continue;
        }
        let Value::Object(entries) = entries else {
            p.push(Code::BadUserConfig, lang_path, "expected an object by setting");
            continue;
        };
        for (key, text) in entries {
            let entry_path = lang_path.key(key);
            match text {
                _ if !settings.declared.contains_key(key) => {
                    p.push(Code::BadUserConfig, entry_path, format!("there is no setting \"{key}\" to translate"))
                }
                Value::String(s)
                    if chars(s) <= max && !s.trim().is_empty() && !s.chars().any(crate::text::is_hidden_char) =>
                {
                    out.push((lang.to_owned(), key.to_owned(), s.to_string()))
                }
                _ => p.push(
                    Code::BadUserConfig,
                    entry_path,
                    format!("a translation is one line of 1 to {max} characters"),
                ),
            }
        }
    }
    out
}
