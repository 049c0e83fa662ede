//! The validator (spec §5–§16, §21, §22 "At import").
//!
//! It walks the manifest's JSON once, section by section, and records every
//! problem instead of stopping at the first, so an author fixes a manifest
//! in one pass. Each section returns what it could read even when some of
//! it is wrong, so that later cross-checks (a template naming a setting, a
//! secret used by auth) do not pile spurious errors on top of real ones.
//! A [`Plugin`] comes out only when there is no error at all.
//!
//! The JSON is read by `json.rs` into a tree that borrows the manifest's
//! bytes (not a `serde_json::Value`: see there why); the sections copy out
//! only what the [`Plugin`] keeps.
//!
//! Paths inside `_meta["com.desktopaicompanion"]` are written relative to
//! that block (`tools.add_card.request.url`); top-level fields by their own
//! name (`display_name`, `user_config.api_token`). A section passes down a
//! borrowed `path::Path`, written out only when a problem is recorded.

mod auth;
mod events;
mod json;
mod network;
mod path;
mod request;
mod response;
mod schema;
mod settings;
mod tools;
mod top;

use crate::model::Plugin;
use crate::package::Package;
use crate::problem::{Code, Problems};
use crate::version::Version;
use json::{Map, Value};
use path::Path;
pub use settings::help_link;

/// What the validator is checking against.
#[derive(Debug, Clone)]
pub struct Options {
    /// The app version `minAppVersion` is compared with.
    pub app_version: Version,
    /// True for the official plugins bundled with the app: their slugs and
    /// R4 are allowed (§5, §12).
    pub official: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { app_version: Version::APP, official: false }
    }
}

/// The outcome of validating one manifest.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every problem found.
    pub problems: Problems,
    /// The slug, when the manifest names a well-formed one.
    pub slug: Option<String>,
    /// The validated plugin, present exactly when there is no error.
    pub plugin: Option<Plugin>,
}

impl Report {
    /// True when the plugin passed (warnings allowed).
    pub fn is_ok(&self) -> bool {
        self.plugin.is_some()
    }

    fn refused(code: Code, message: impl Into<String>) -> Report {
        let mut problems = Problems::default();
        problems.push(code, "manifest.json", message);
        Report { problems, slug: None, plugin: None }
    }
}

/// Validates the bytes of a manifest.json.
pub fn validate_manifest(bytes: &[u8], options: &Options) -> Report {
    if bytes.is_empty() {
        return Report::refused(Code::ReadFailed, "the manifest is empty");
    }
    if bytes.len() as u64 > crate::limits::MANIFEST_BYTES {
        return Report::refused(Code::TooLarge, format!("the manifest is {} bytes; 64 KB at most", bytes.len()));
    }
    // Editors on Windows often save UTF-8 with a byte-order mark.
    let json = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let value = match Value::parse(json) {
        Ok(value) => value,
        Err(e) => return Report::refused(Code::NotJson, format!("the manifest is not valid JSON: {e}")),
    };
    let Value::Object(root) = value else {
        return Report::refused(Code::NotJson, "the manifest must be a JSON object { … }");
    };
    let mut problems = Problems::default();
    let (slug, plugin) = top::check(&root, options, &mut problems);
    let plugin = plugin.filter(|_| problems.is_ok()).map(|plugin| crate::fingerprint::seal(plugin, bytes));
    Report { problems, slug, plugin }
}

/// Validates a package's manifest.
pub fn check_package(package: &Package, options: &Options) -> Report {
    validate_manifest(&package.manifest, options)
}

/// Number of characters, as the spec counts them.
fn chars(text: &str) -> usize {
    text.chars().count()
}

/// Records each key of `map` that is not in `allowed`.
fn unknown_keys(map: &Map, allowed: &[&str], code: Code, path: Path, p: &mut Problems) {
    for key in map.keys().filter(|k| !allowed.contains(k)) {
        p.push(code, path.key(key), format!("unknown field \"{key}\" (allowed: {})", allowed.join(", ")));
    }
}

/// Checks a text the AI reads (§5): present, at most `max` characters
/// (`long_code` otherwise), then the checks of [`crate::text`].
fn ai_text(p: &mut Problems, path: Path, text: &str, max: usize, long_code: Code) {
    let n = chars(text);
    if text.trim().is_empty() {
        p.push(long_code, path, "the text is empty");
    } else if n > max {
        p.push(long_code, path, format!("the text is {n} characters; {max} at most"));
    }
    for finding in crate::text::check_ai_text(text) {
        p.push(finding.code, path, finding.message);
    }
}

/// A JSON type name for messages.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A text by language (a hint §6, an event title §16): English required,
/// the other languages of §10 optional, each at most `max` characters and
/// checked like every text the AI reads; `code` for every problem.
fn translated(
    value: Option<&Value>,
    path: Path,
    what: &str,
    example: &str,
    max: usize,
    code: Code,
    p: &mut Problems,
) -> crate::model::Texts {
    use crate::language::Language;
    let mut texts = crate::model::Texts::new();
    let Some(Value::Object(map)) = value else {
        p.push(code, path, format!("a {what} is needed: {{ \"en\": \"{example}\" }}"));
        return texts;
    };
    if !map.contains_key("en") {
        p.push(code, path, format!("the English {what} (en) is required"));
    }
    for (lang, text) in map {
        match text {
            _ if Language::parse(lang).is_none() => {
                p.push(code, path.key(lang), format!("unknown language \"{lang}\" (use {})", Language::codes()))
            }
            Value::String(s) => {
                ai_text(p, path.key(lang), s, max, code);
                texts.insert(lang.to_owned(), s.to_string());
            }
            _ => p.push(code, path.key(lang), format!("a {what} is text")),
        }
    }
    texts
}
