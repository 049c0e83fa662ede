//! The auth block (§11): how secrets are sent, and the only place a
//! `{{secret.x}}` may appear.

use super::json::Value;
use super::settings::Settings;
use super::{chars, type_name, unknown_keys, Path};
use crate::limits;
use crate::model::{AuthEntry, AuthIn};
use crate::problem::{Code, Problems};
use crate::template::{Piece, Template};
use std::collections::BTreeSet;

/// What the auth block uses, for the cross-checks with settings and tools.
#[derive(Debug, Default)]
pub(super) struct Auth {
    pub entries: Vec<AuthEntry>,
    /// Header names, lowercased.
    pub headers: BTreeSet<String>,
    pub query: BTreeSet<String>,
    pub secrets_used: BTreeSet<String>,
}

pub(super) fn check(auth: Option<&Value>, settings: &Settings, p: &mut Problems) -> Auth {
    let mut out = Auth::default();
    let Some(auth) = auth else { return out };
    let top = Path::top("auth");
    let entries: Vec<(Path, &Value)> = match auth {
        Value::Object(_) => vec![(top, auth)],
        Value::Array(list) => {
            if !limits::AUTH_ENTRIES.contains(&list.len()) {
                p.push(Code::BadAuth, "auth", format!("{} auth entries; 1 to 3", list.len()));
            }
            list.iter().enumerate().map(|(i, v)| (top.index(i), v)).collect()
        }
        other => {
            p.push(
                Code::BadAuth,
                "auth",
                format!("auth must be an entry or a list of entries, not {}", type_name(other)),
            );
            return out;
        }
    };
    for (path, value) in entries {
        if let Some(entry) = entry(value, path, settings, &mut out, p) {
            out.entries.push(entry);
        }
    }
    if out.secrets_used.is_empty() && !out.entries.is_empty() {
        p.push(Code::BadAuth, "auth", "auth must send at least one secret with {{secret.<setting>}}");
    }
    out
}

fn entry(value: &Value, path: Path, settings: &Settings, out: &mut Auth, p: &mut Problems) -> Option<AuthEntry> {
    let before = p.error_count();
    let Value::Object(map) = value else {
        p.push(Code::BadAuth, path, "an auth entry is an object with in, name and value");
        return None;
    };
    unknown_keys(map, &["in", "name", "value"], Code::BadAuth, path, p);
    let location = match map.get("in") {
        None => Some(AuthIn::Header),
        Some(text) => text.as_str().and_then(AuthIn::parse),
    };
    let location = location.unwrap_or_else(|| {
        p.push(Code::BadAuth, path.key("in"), "in must be \"header\" or \"query\"");
        AuthIn::Header
    });
    let name = map.get("name").and_then(Value::as_str).unwrap_or_default();
    let name_ok = match location {
        AuthIn::Header => super::request::header_name_problem(name).is_none(),
        AuthIn::Query => is_query_name(name),
    };
    if !name_ok {
        let rule = match location {
            AuthIn::Header => "a header name of letters, digits and -, not a forbidden header (§8)",
            AuthIn::Query => "a parameter name of letters, digits, _, . and -",
        };
        p.push(Code::BadAuth, path.key("name"), format!("name must be {rule}, 40 characters at most"));
    }
    let set = match location {
        AuthIn::Header => &mut out.headers,
        AuthIn::Query => &mut out.query,
    };
    let folded = match location {
        AuthIn::Header => name.to_ascii_lowercase(),
        AuthIn::Query => name.to_owned(),
    };
    if name_ok && !set.insert(folded) {
        p.push(Code::BadAuth, path.key("name"), format!("{name} is used by two auth entries"));
    }
    let value = template(map.get("value"), path.key("value"), settings, out, p);
    (p.error_count() == before).then(|| AuthEntry { location, name: name.to_owned(), value: value.unwrap_or_default() })
}

fn template(
    value: Option<&Value>,
    path: Path,
    settings: &Settings,
    out: &mut Auth,
    p: &mut Problems,
) -> Option<Template> {
    let text = match value {
        Some(Value::String(s))
            if !s.is_empty() && chars(s) <= limits::AUTH_VALUE_CHARS && !s.chars().any(crate::text::is_hidden_char) =>
        {
            s
        }
        _ => {
            p.push(Code::BadAuth, path, "value must be one line of 1 to 300 characters");
            return None;
        }
    };
    let template = match Template::parse(text) {
        Ok(t) => t,
        Err(why) => {
            p.push(Code::BadAuth, path, why);
            return None;
        }
    };
    for piece in template.placeholders() {
        match piece {
            Piece::Secret(name) if settings.is_secret(name) == Some(true) => {
                out.secrets_used.insert(name.clone());
            }
            Piece::Secret(name) => p.push(
                Code::BadAuth,
                path,
                format!("{{{{secret.{name}}}}} does not name a secret setting (sensitive: true)"),
            ),
            _ => p.push(Code::BadAuth, path, "auth values hold fixed text and {{secret.<setting>}} only"),
        }
    }
    Some(template)
}

/// A query parameter name usable by auth (§11): letters, digits, `_`, `.`, `-`.
fn is_query_name(name: &str) -> bool {
    (1..=limits::HEADER_NAME_CHARS).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}
