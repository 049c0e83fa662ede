//! A tool's `inputSchema` (§7): a small JSON Schema of at most 10 flat
//! properties of four types, with a fixed set of keywords.

use super::json::{Map, Value};
use super::{ai_text, type_name, unknown_keys, Path};
use crate::limits;
use crate::model::{ArgKind, Argument};
use crate::problem::{Code, Problems};
use crate::template::is_identifier;

/// The keywords of §7, and `pattern`, which has its own refusal above.
const KEYWORDS: &[&str] = &["type", "description", "enum", "minimum", "maximum", "maxLength", "default", "pattern"];

pub(super) fn check(schema: Option<&Value>, path: Path, p: &mut Problems) -> Vec<Argument> {
    let Some(schema) = schema else {
        return Vec::new();
    };
    let bad = |p: &mut Problems, why: String| p.push(Code::BadSchema, path, why);
    let Value::Object(root) = schema else {
        bad(p, format!("inputSchema must be an object, not {}", type_name(schema)));
        return Vec::new();
    };
    unknown_keys(root, &["type", "properties", "required"], Code::BadSchema, path, p);
    if root.get("type").and_then(Value::as_str) != Some("object") {
        bad(p, "the root must be { \"type\": \"object\", \"properties\": { … } }".into());
    }
    let properties = match root.get("properties") {
        Some(Value::Object(props)) => props,
        _ => {
            bad(p, "properties must be an object (use {} for a tool without arguments)".into());
            return Vec::new();
        }
    };
    if properties.len() > limits::PROPERTIES {
        bad(p, format!("{} properties; 10 at most", properties.len()));
    }
    let required = required_names(root.get("required"), properties, path, p);
    let props_path = path.key("properties");
    properties
        .iter()
        .filter_map(|(name, value)| property(name, value, required.contains(&name), props_path.key(name), p))
        .collect()
}

fn required_names<'a>(value: Option<&'a Value>, properties: &Map, path: Path, p: &mut Problems) -> Vec<&'a str> {
    let path = path.key("required");
    let Some(value) = value else {
        return Vec::new();
    };
    let Some(list) = value.as_array() else {
        p.push(Code::BadSchema, path, "required must be a list of property names");
        return Vec::new();
    };
    let mut names = Vec::new();
    for item in list {
        match item.as_str() {
            Some(name) if !properties.contains_key(name) => {
                p.push(Code::BadSchema, path, format!("\"{name}\" is required but not in properties"))
            }
            Some(name) if names.contains(&name) => p.push(Code::BadSchema, path, format!("\"{name}\" is listed twice")),
            Some(name) => names.push(name),
            None => p.push(Code::BadSchema, path, format!("{item} is not a property name")),
        }
    }
    names
}

fn property(name: &str, value: &Value, required: bool, path: Path, p: &mut Problems) -> Option<Argument> {
    let before = p.error_count();
    if !is_identifier(name) {
        p.push(
            Code::BadSchema,
            path,
            "a property name starts with a letter, then letters, digits or _ (31 characters at most)",
        );
    }
    let Value::Object(prop) = value else {
        p.push(Code::BadSchema, path, format!("a property must be an object, not {}", type_name(value)));
        return None;
    };
    if prop.contains_key("pattern") {
        p.push(
            Code::BadSchema,
            path.key("pattern"),
            "pattern is refused: the app never runs a plugin's regular expression; use enum or maxLength",
        );
    }
    unknown_keys(prop, KEYWORDS, Code::BadSchema, path, p);
    let kind = match prop.get("type").and_then(Value::as_str).and_then(ArgKind::parse) {
        Some(kind) => kind,
        None => {
            p.push(
                Code::BadSchema,
                path.key("type"),
                "type must be string, number, integer or boolean (no arrays, no objects)",
            );
            return None;
        }
    };
    let description = prop.get("description").and_then(|d| {
        let text = d.as_str();
        if text.is_none() {
            p.push(Code::BadSchema, path.key("description"), "description must be text");
        }
        text.inspect(|t| ai_text(p, path.key("description"), t, limits::PROPERTY_DESCRIPTION_CHARS, Code::BadText))
            .map(str::to_owned)
    });
    let arg = Argument {
        name: name.to_owned(),
        kind,
        description,
        required,
        enum_values: enum_values(prop.get("enum"), kind, path, p),
        minimum: bound(prop, "minimum", kind, path, p),
        maximum: bound(prop, "maximum", kind, path, p),
        max_length: max_length(prop.get("maxLength"), kind, path, p),
        default: prop.get("default").map(Value::to_json),
    };
    if let (Some(lo), Some(hi)) = (arg.minimum, arg.maximum) {
        if lo > hi {
            p.push(Code::BadSchema, path.key("minimum"), "minimum is greater than maximum");
        }
    }
    if let Some(default) = &arg.default {
        if let Err(why) = fits(&arg, default) {
            p.push(Code::BadSchema, path.key("default"), format!("the default {default} {why}"));
        }
    }
    (p.error_count() == before).then_some(arg)
}

fn enum_values(value: Option<&Value>, kind: ArgKind, path: Path, p: &mut Problems) -> Option<Vec<serde_json::Value>> {
    let list = value?.as_array().filter(|l| limits::ENUM_VALUES.contains(&l.len()));
    let path = path.key("enum");
    let Some(list) = list else {
        p.push(Code::BadSchema, path, "enum must be a list of 1 to 50 values");
        return None;
    };
    let list: Vec<serde_json::Value> = list.iter().map(Value::to_json).collect();
    let fits_kind = |v: &serde_json::Value| match kind {
        ArgKind::String => v.is_string(),
        ArgKind::Number => v.is_number(),
        ArgKind::Integer => v.is_i64() || v.is_u64(),
        ArgKind::Boolean => false,
    };
    if let Some(bad) = list.iter().find(|v| !fits_kind(v)) {
        p.push(
            Code::BadSchema,
            path,
            format!("{bad} is not a {} value (enums hold strings or numbers of the property's type)", kind.as_str()),
        );
        return None;
    }
    let folded = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_lowercase);
    for (i, v) in list.iter().enumerate() {
        if list[..i].iter().any(|w| folded(w) == folded(v)) {
            // Enums are matched without case (§7), so "usd" and "USD" collide.
            p.push(Code::BadSchema, path, format!("{v} is listed twice (values are matched without regard to case)"));
            return None;
        }
    }
    Some(list)
}

fn bound(prop: &Map, key: &str, kind: ArgKind, path: Path, p: &mut Problems) -> Option<f64> {
    let value = prop.get(key)?;
    let ok = match kind {
        ArgKind::Number => value.as_f64(),
        ArgKind::Integer => value.as_i64().map(|n| n as f64),
        _ => None,
    };
    if ok.is_none() {
        p.push(
            Code::BadSchema,
            path.key(key),
            format!("{key} is only for number and integer properties, and must be one of that type"),
        );
    }
    ok
}

fn max_length(value: Option<&Value>, kind: ArgKind, path: Path, p: &mut Problems) -> Option<u64> {
    let value = value?;
    let n = value.as_u64().filter(|n| *n >= 1 && kind == ArgKind::String);
    if n.is_none() {
        p.push(
            Code::BadSchema,
            path.key("maxLength"),
            "maxLength is a whole number of at least 1, for string properties",
        );
    }
    n
}

/// Whether a value satisfies the argument's rules; used for `default`.
fn fits(arg: &Argument, value: &serde_json::Value) -> Result<(), &'static str> {
    let typed = match arg.kind {
        ArgKind::String => value.as_str().map(|s| s.chars().count() as u64 <= arg.max_length.unwrap_or(u64::MAX)),
        ArgKind::Number => value.as_f64().map(|_| true),
        ArgKind::Integer => value.as_i64().map(|_| true),
        ArgKind::Boolean => value.as_bool().map(|_| true),
    };
    match typed {
        None => return Err("is not of the property's type"),
        Some(false) => return Err("is longer than maxLength"),
        Some(true) => {}
    }
    if let Some(n) = value.as_f64() {
        if arg.minimum.is_some_and(|lo| n < lo) || arg.maximum.is_some_and(|hi| n > hi) {
            return Err("is outside minimum and maximum");
        }
    }
    match &arg.enum_values {
        Some(values) if !values.contains(value) => Err("is not one of the enum values"),
        _ => Ok(()),
    }
}
