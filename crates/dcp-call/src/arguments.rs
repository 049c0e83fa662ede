//! The AI's arguments (§7): validated and converted before any request is
//! built. What comes out is exactly what the templates may use.

use dcp_format::limits::TEXT_ARGUMENT_CHARS;
use dcp_format::model::{ArgKind, Argument, Tool};
use dcp_format::setting_value::json_number;
use dcp_format::text::remove_hidden;
use serde_json::{Map, Value};

/// Why the arguments are refused (INVALID_ARGUMENTS): every argument at
/// fault with its reason, all at once, so the AI fixes them in one retry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct InvalidArguments {
    /// Each argument at fault, in the schema's order.
    pub problems: Vec<ArgumentProblem>,
}

/// One argument at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{argument}: {reason}")]
pub struct ArgumentProblem {
    /// The argument.
    pub argument: String,
    /// What is wrong, for the AI.
    pub reason: String,
}

/// The converted arguments, by name; absent optional arguments without a
/// default are not in the map (§8 leaves them out).
pub type Arguments = Map<String, Value>;

/// Validates and converts the AI's arguments for `tool` (§7). Unknown
/// arguments are ignored; `null` counts as absent.
pub fn convert(tool: &Tool, given: &Value) -> Result<Arguments, InvalidArguments> {
    let empty = Map::new();
    let given = match given {
        Value::Object(map) => map,
        Value::Null => &empty,
        _ => return Err(invalid("arguments", "the arguments must be a JSON object")),
    };
    let mut out = Map::new();
    let mut problems = Vec::new();
    for arg in &tool.arguments {
        match given.get(&arg.name).filter(|v| !v.is_null()) {
            Some(value) => match one(arg, value) {
                Ok(converted) => {
                    out.insert(arg.name.clone(), converted);
                }
                Err(e) => problems.extend(e.problems),
            },
            None if arg.required => problems.extend(invalid(&arg.name, "this argument is required").problems),
            None => {
                if let Some(default) = &arg.default {
                    out.insert(arg.name.clone(), default.clone());
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(InvalidArguments { problems })
    }
}

fn invalid(argument: &str, reason: impl Into<String>) -> InvalidArguments {
    InvalidArguments { problems: vec![ArgumentProblem { argument: argument.to_owned(), reason: reason.into() }] }
}

fn one(arg: &Argument, value: &Value) -> Result<Value, InvalidArguments> {
    let converted = match arg.kind {
        ArgKind::String => Value::String(text(arg, value)?),
        ArgKind::Number | ArgKind::Integer => number(arg, value)?,
        ArgKind::Boolean => match value {
            Value::Bool(b) => Value::Bool(*b),
            Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Value::Bool(true),
            Value::String(s) if s.trim().eq_ignore_ascii_case("false") => Value::Bool(false),
            _ => return Err(invalid(&arg.name, "expected true or false")),
        },
    };
    match &arg.enum_values {
        Some(values) => enum_value(arg, values, &converted),
        None => Ok(converted),
    }
}

/// Text: numbers and booleans become text, hidden characters are removed,
/// then it is cut at 500 characters or the argument's maxLength.
fn text(arg: &Argument, value: &Value) -> Result<String, InvalidArguments> {
    let raw = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => return Err(invalid(&arg.name, "expected text")),
    };
    let max = arg.max_length.map_or(TEXT_ARGUMENT_CHARS, |m| (m as usize).min(TEXT_ARGUMENT_CHARS));
    Ok(remove_hidden(&raw).chars().take(max).collect())
}

/// Numbers: numeric strings converted, `integer` whole, bounds enforced.
fn number(arg: &Argument, value: &Value) -> Result<Value, InvalidArguments> {
    let n = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|n| n.is_finite()),
        _ => None,
    };
    let n = n.ok_or_else(|| {
        invalid(
            &arg.name,
            format!("expected a {}", if arg.kind == ArgKind::Integer { "whole number" } else { "number" }),
        )
    })?;
    if arg.minimum.is_some_and(|lo| n < lo) || arg.maximum.is_some_and(|hi| n > hi) {
        let bound = |b: Option<f64>| b.map_or("…".to_owned(), |b| b.to_string());
        return Err(invalid(
            &arg.name,
            format!("expected a number from {} to {}", bound(arg.minimum), bound(arg.maximum)),
        ));
    }
    if arg.kind == ArgKind::Integer {
        if n.fract() != 0.0 || n.abs() > 9.0e15 {
            return Err(invalid(&arg.name, "expected a whole number"));
        }
        return Ok(Value::from(n as i64));
    }
    // Keep the number as the AI wrote it when it is already one (100 stays 100).
    Ok(match value {
        Value::Number(original) => Value::Number(original.clone()),
        _ => json_number(n),
    })
}

/// Enums: matched without regard to case, replaced by the declared value.
fn enum_value(arg: &Argument, values: &[Value], converted: &Value) -> Result<Value, InvalidArguments> {
    let matches = |declared: &Value| match (declared, converted) {
        (Value::String(d), Value::String(c)) => d.to_lowercase() == c.to_lowercase(),
        (Value::Number(d), Value::Number(c)) => d.as_f64() == c.as_f64(),
        _ => false,
    };
    values.iter().find(|d| matches(d)).cloned().ok_or_else(|| {
        let allowed: Vec<String> =
            values.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).collect();
        invalid(&arg.name, format!("expected one of: {}", allowed.join(", ")))
    })
}
