//! Tools (§6): names, descriptions, hints, risk and side effects, and the
//! computed level (§12); arguments, request and response are delegated.

use super::auth::Auth;
use super::json::Value;
use super::network::Network;
use super::request::Scope;
use super::settings::Settings;
use super::{ai_text, request, response, schema, translated, type_name, unknown_keys, Path};
use crate::limits;
use crate::model::Tool;
use crate::names::{self, ToolRef};
use crate::problem::{Code, Problems};
use crate::risk::{self, Level, SideEffects};

const FIELDS: &[&str] = &["description", "hint", "risk", "sideEffects", "inputSchema", "request", "response"];

/// What every tool is checked against.
pub(super) struct Context<'a> {
    pub slug: &'a str,
    pub official: bool,
    pub settings: &'a Settings,
    pub network: &'a Network,
    pub auth: &'a Auth,
}

/// Returns the tools that passed, and every declared tool name (for events).
pub(super) fn check(tools: Option<&Value>, cx: &Context, p: &mut Problems) -> (Vec<Tool>, Vec<String>) {
    let map = match tools {
        None => {
            p.push(Code::NoTools, "tools", "a plugin needs at least one tool");
            return (Vec::new(), Vec::new());
        }
        Some(Value::Object(map)) => map,
        Some(other) => {
            p.push(
                Code::BadFormat,
                "tools",
                format!("tools must be an object keyed by tool name, not {}", type_name(other)),
            );
            return (Vec::new(), Vec::new());
        }
    };
    if map.is_empty() {
        p.push(Code::NoTools, "tools", "a plugin needs at least one tool");
    } else if map.len() > *limits::TOOLS.end() {
        p.push(Code::TooManyTools, "tools", format!("{} tools; 15 at most", map.len()));
    }
    let names = map.keys().map(str::to_owned).collect();
    let tools = map.iter().filter_map(|(name, value)| tool(name, value, cx, p)).collect();
    (tools, names)
}

fn tool(name: &str, value: &Value, cx: &Context, p: &mut Problems) -> Option<Tool> {
    let tools = Path::top("tools");
    let path = tools.key(name);
    let before = p.error_count();
    check_name(name, path, p);
    let Value::Object(map) = value else {
        p.push(Code::BadFormat, path, format!("a tool must be an object, not {}", type_name(value)));
        return None;
    };
    unknown_keys(map, FIELDS, Code::BadFormat, path, p);
    let description = match map.get("description") {
        Some(Value::String(d)) => {
            ai_text(p, path.key("description"), d, limits::TOOL_DESCRIPTION_CHARS, Code::BadText);
            d.to_string()
        }
        _ => {
            p.push(
                Code::BadText,
                path.key("description"),
                "a tool needs a description: one line, 200 characters at most, in English",
            );
            String::new()
        }
    };
    let hint = translated(
        map.get("hint"),
        path.key("hint"),
        "hint",
        "a short verb phrase",
        limits::HINT_CHARS,
        Code::BadHint,
        p,
    );
    let declared_risk = parse_field(map.get("risk"), Level::parse, "risk", "R0 to R3", path, p).unwrap_or(Level::R0);
    let side_effects = parse_field(
        map.get("sideEffects"),
        SideEffects::parse,
        "sideEffects",
        "none, reversible, irreversible, third-party or physical-security",
        path,
        p,
    );
    let arguments = schema::check(map.get("inputSchema"), path.key("inputSchema"), p);
    let declared_arguments = declared_properties(map.get("inputSchema"));
    let scope = Scope { declared_arguments, settings: cx.settings, network: cx.network, auth: cx.auth };
    let request = request::check(map.get("request"), path.key("request"), &scope, p);
    let response = response::check(map.get("response"), path.key("response"), p);
    let (request, response) = (request?, response?);
    let level = risk::compute(declared_risk, side_effects, request.method, &request.target);
    if level == Level::R4 && !cx.official {
        p.push(Code::RiskForbidden, path.key("risk"), "R4 is reserved for official plugins");
    }
    // A bad slug is the top level's problem; the tool is then not made.
    let full_name = ToolRef::new(cx.slug, name).ok()?;
    (p.error_count() == before).then(|| Tool {
        name: name.to_owned(),
        full_name,
        description,
        hint,
        declared_risk,
        side_effects,
        level,
        arguments,
        request,
        response,
    })
}

/// The full name `<slug>__<tool>` needs no check of its own: a slug of at
/// most 20 and a tool name of at most 40 make at most 62 characters, within
/// the 64 of §6 (a unit test keeps the limits honest).
fn check_name(name: &str, path: Path, p: &mut Problems) {
    if !names::is_tool_name(name) {
        p.push(Code::BadToolName, path, "a tool name is 1 to 40 of a-z, 0-9 and _");
    }
}

fn declared_properties<'m>(schema: Option<&'m Value>) -> Vec<&'m str> {
    schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|props| props.keys().collect())
        .unwrap_or_default()
}

fn parse_field<T>(
    value: Option<&Value>,
    parse: fn(&str) -> Option<T>,
    key: &str,
    allowed: &str,
    path: Path,
    p: &mut Problems,
) -> Option<T> {
    let value = value?;
    let parsed = value.as_str().and_then(parse);
    if parsed.is_none() {
        p.push(Code::BadRisk, path.key(key), format!("{value} is not a known {key}: use {allowed}"));
    }
    parsed
}

#[cfg(test)]
mod tests {
    use crate::limits;

    #[test]
    fn s6_longest_slug_and_tool_name_fit_the_full_name_limit() {
        assert!(limits::SLUG_CHARS.end() + 2 + limits::TOOL_NAME_CHARS <= limits::FULL_TOOL_NAME_CHARS);
    }
}
