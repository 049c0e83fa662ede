//! The top-level fields (§5) and the `_meta["com.desktopaicompanion"]`
//! block; the other sections are checked by their own modules, in the order
//! their cross-references need (settings, then auth, then tools, events).

use super::json::{Map, Value};
use super::{ai_text, auth, chars, events, network, settings, tools, type_name, unknown_keys, Options, Path};
use crate::limits;
use crate::model::{CloudModels, Plugin};
use crate::problem::{Code, Problems};
use crate::version::Version;

/// The key of the Desktop Companion block inside `_meta`.
pub const META_KEY: &str = "com.desktopaicompanion";

const TOP_FIELDS: &[&str] =
    &["$schema", "name", "version", "display_name", "description", "author", "user_config", "_meta"];
const META_FIELDS: &[&str] =
    &["apiVersion", "kind", "slug", "minAppVersion", "permissions", "auth", "data", "ui", "tools", "events"];

/// Slugs the app keeps for itself (§5).
const RESERVED_SLUGS: &[&str] = &[
    "dc",
    "app",
    "web",
    "system",
    "spotify",
    "tools",
    "tool",
    "plugin",
    "plugins",
    "native",
    "builtin",
    "desktopcompanion",
    "companion",
    "official",
];
/// Slugs of the official plugins (§5, §18): reserved, except for them.
pub const OFFICIAL_SLUGS: &[&str] = &["todoist", "trello"];

pub(super) fn check(root: &Map, options: &Options, p: &mut Problems) -> (Option<String>, Option<Plugin>) {
    unknown_keys(root, TOP_FIELDS, Code::BadFormat, Path::Top, p);
    let name = name(root.get("name"), p);
    let version = version(root.get("version"), "version", p);
    let display_name = display_name(root.get("display_name"), name.as_deref(), p);
    let description = root.get("description").and_then(|d| {
        let text = d.as_str();
        match text {
            Some(t) => ai_text(p, Path::top("description"), t, limits::PLUGIN_DESCRIPTION_CHARS, Code::BadText),
            None => p.push(Code::BadText, "description", "description is one line of text"),
        }
        text.map(str::to_owned)
    });
    let author = author(root.get("author"), p);
    let mut settings = settings::check(root.get("user_config"), p);
    let Some(meta) = meta(root, p) else {
        return (None, None);
    };
    unknown_keys(meta, META_FIELDS, Code::BadFormat, Path::Top, p);
    api_version_and_kind(meta, p);
    let slug = slug(meta.get("slug"), options, p);
    let min_app_version = min_app_version(meta.get("minAppVersion"), options, p);
    let network = network::check(meta.get("permissions"), p);
    let cloud_models = cloud_models(meta.get("data"), p);
    settings::check_ui(meta.get("ui"), &mut settings, p);
    let auth = auth::check(meta.get("auth"), &settings, p);
    for (key, secret) in &settings.declared {
        if *secret && !auth.secrets_used.contains(key) {
            p.push(
                Code::BadAuth,
                format!("user_config.{key}"),
                format!("the secret {key} is not used by auth: send it with {{{{secret.{key}}}}}"),
            );
        }
    }
    let slug_for_names = slug.clone().unwrap_or_default();
    let cx = tools::Context {
        slug: &slug_for_names,
        official: options.official,
        settings: &settings,
        network: &network,
        auth: &auth,
    };
    let (tools, tool_names) = tools::check(meta.get("tools"), &cx, p);
    let events = events::check(meta.get("events"), &tool_names, p);
    let plugin = (|| {
        Some(Plugin {
            display_name: display_name.or_else(|| name.clone())?,
            name: name?,
            version: version?,
            description,
            author,
            slug: slug.clone()?,
            min_app_version: min_app_version.ok()?,
            hosts: network.hosts,
            local_ports: network.ports,
            auth: auth.entries,
            cloud_models: cloud_models?,
            settings: settings.valid,
            tools,
            events,
            fingerprints: Default::default(),
        })
    })();
    (slug, plugin)
}

fn meta<'m, 'a>(root: &'m Map<'a>, p: &mut Problems) -> Option<&'m Map<'a>> {
    match root.get("_meta").and_then(|m| m.get(META_KEY)) {
        Some(Value::Object(meta)) => Some(meta),
        _ => {
            p.push(
                Code::BadFormat,
                "_meta",
                format!("the Desktop Companion block _meta[\"{META_KEY}\"] is missing or not an object"),
            );
            None
        }
    }
}

fn name(value: Option<&Value>, p: &mut Problems) -> Option<String> {
    match value {
        Some(Value::String(n)) if !n.trim().is_empty() && chars(n) <= limits::NAME_CHARS => {
            ai_text(p, Path::top("name"), n, limits::NAME_CHARS, Code::BadFormat);
            Some(n.to_string())
        }
        _ => {
            p.push(Code::BadFormat, "name", "name is required: 1 to 60 characters");
            None
        }
    }
}

fn display_name(value: Option<&Value>, name: Option<&str>, p: &mut Problems) -> Option<String> {
    match value {
        Some(Value::String(d)) => {
            ai_text(p, Path::top("display_name"), d, limits::DISPLAY_NAME_CHARS, Code::BadText);
            Some(d.to_string())
        }
        Some(_) => {
            p.push(Code::BadText, "display_name", "display_name is text, 40 characters at most");
            None
        }
        None => {
            if name.is_some_and(|n| chars(n) > limits::DISPLAY_NAME_CHARS) {
                p.push(
                    Code::BadText,
                    "display_name",
                    "without display_name, name is shown and must fit in 40 characters",
                );
            }
            None
        }
    }
}

fn author(value: Option<&Value>, p: &mut Problems) -> Option<String> {
    let value = value?;
    let Value::Object(map) = value else {
        p.push(Code::BadFormat, "author", format!("author is an object {{ \"name\": … }}, not {}", type_name(value)));
        return None;
    };
    unknown_keys(map, &["name", "email", "url"], Code::BadFormat, Path::top("author"), p);
    for key in map.iter().filter(|(_, v)| !v.is_string()).map(|(k, _)| k) {
        p.push(Code::BadFormat, format!("author.{key}"), format!("author.{key} is text"));
    }
    let name = map.get("name")?.as_str()?;
    Some(name.chars().filter(|c| !crate::text::is_hidden_char(*c)).take(limits::AUTHOR_CHARS).collect())
}

fn version(value: Option<&Value>, path: &str, p: &mut Problems) -> Option<Version> {
    let parsed = value.and_then(Value::as_str).and_then(Version::parse);
    if parsed.is_none() {
        p.push(Code::BadVersion, path, "a version is x.y.z: three numbers of 1 to 4 digits, such as 1.0.0");
    }
    parsed
}

fn api_version_and_kind(meta: &Map, p: &mut Problems) {
    if meta.get("apiVersion").and_then(Value::as_u64) != Some(1) {
        p.push(Code::BadApiVersion, "apiVersion", "apiVersion must be the number 1");
    }
    if meta.get("kind").and_then(Value::as_str) != Some("declarative") {
        p.push(Code::UnsupportedKind, "kind", "kind must be \"declarative\"");
    }
}

fn slug(value: Option<&Value>, options: &Options, p: &mut Problems) -> Option<String> {
    let slug = value.and_then(Value::as_str).unwrap_or_default();
    if !crate::names::is_slug(slug) {
        p.push(Code::BadSlug, "slug", "slug is 2 to 20 characters: lowercase letters and digits only");
        return None;
    }
    let official_slug = OFFICIAL_SLUGS.contains(&slug);
    if RESERVED_SLUGS.contains(&slug) || (official_slug && !options.official) {
        let whose = if official_slug { "an official plugin" } else { "the app" };
        p.push(Code::ReservedSlug, "slug", format!("slug {slug} is reserved by {whose}; choose another"));
    }
    Some(slug.to_owned())
}

/// `Ok(None)` when absent, `Err` when wrong (already recorded).
fn min_app_version(value: Option<&Value>, options: &Options, p: &mut Problems) -> Result<Option<Version>, ()> {
    let Some(value) = value else { return Ok(None) };
    let min = version(Some(value), "minAppVersion", p).ok_or(())?;
    if min > options.app_version {
        p.push(
            Code::AppTooOld,
            "minAppVersion",
            format!("the plugin needs app version {min}; this app is {}", options.app_version),
        );
        return Err(());
    }
    Ok(Some(min))
}

fn cloud_models(data: Option<&Value>, p: &mut Problems) -> Option<CloudModels> {
    let Some(data) = data else {
        return Some(CloudModels::Ask);
    };
    let Value::Object(map) = data else {
        p.push(Code::BadFormat, "data", "data is an object { \"cloudModels\": … }");
        return None;
    };
    unknown_keys(map, &["cloudModels"], Code::BadFormat, Path::top("data"), p);
    match map.get("cloudModels").map(|v| v.as_str()) {
        None => Some(CloudModels::Ask),
        Some(Some("allowed")) => Some(CloudModels::Allowed),
        Some(Some("ask")) => Some(CloudModels::Ask),
        Some(Some("never")) => Some(CloudModels::Never),
        Some(_) => {
            p.push(Code::BadFormat, "data.cloudModels", "cloudModels must be \"allowed\", \"ask\" or \"never\"");
            None
        }
    }
}
