//! The request builder (§8, §11): the app turns a tool's templates, the
//! AI's converted arguments, the player's settings and the secrets into one
//! HTTP request. Nothing of the plugin runs: values are only inserted, and
//! encoded for the place they go.

use crate::arguments::Arguments;
use dcp_format::codes::CallCode;
use dcp_format::model::{AuthEntry, AuthIn, Method, Target, Tool};
use dcp_format::template::{Piece, Template, ValueTemplate};
use dcp_vault::Sensitive;
use serde_json::{Map, Value};

/// Why a request cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// BAD_REQUEST: a path value of `.` or `..` (it would move up in the
    /// API's path).
    #[error("BAD_REQUEST: {0}")]
    BadRequest(String),
    /// NEEDS_SETUP: a secret the auth block sends is not set (or cannot be
    /// read on this PC).
    #[error("NEEDS_SETUP: the secret {0} is not set")]
    NeedsSetup(String),
}

impl BuildError {
    /// The §22 code.
    pub fn code(&self) -> CallCode {
        match self {
            BuildError::BadRequest(_) => CallCode::BadRequest,
            BuildError::NeedsSetup(_) => CallCode::NeedsSetup,
        }
    }
}

/// A request ready for the network filter. It carries secrets (in auth
/// headers or query parameters), so it has no `Debug`.
pub struct Built {
    /// Method.
    pub method: Method,
    /// Absolute URL; a server on the PC is always reached at 127.0.0.1.
    pub url: String,
    /// Headers from the manifest and auth.
    pub headers: Vec<(String, String)>,
    /// JSON body.
    pub body: Option<Vec<u8>>,
    /// Each auth value as sent (a header's or query parameter's whole
    /// value), for masking: a server may echo it whole.
    pub credentials: Vec<Sensitive>,
}

/// What the templates read besides the arguments.
pub struct Inputs<'a> {
    /// Non-secret settings with their values (stored, else default).
    pub settings: &'a Map<String, Value>,
    /// Secrets by key, opened by the vault; absent when not set.
    pub secret: &'a dyn Fn(&str) -> Option<Sensitive>,
}

/// Builds the request of `tool` (§8), then adds the auth entries (§11).
pub fn build(tool: &Tool, auth: &[AuthEntry], args: &Arguments, inputs: &Inputs) -> Result<Built, BuildError> {
    let request = &tool.request;
    let lookup = |piece: &Piece| -> Option<Value> {
        match piece {
            Piece::Arg(name) => args.get(name).cloned(),
            Piece::Config(name) => inputs.settings.get(name).cloned(),
            Piece::Text(_) | Piece::Secret(_) => None,
        }
    };
    let origin = match &request.target {
        Target::Web { host } => format!("https://{host}"),
        Target::Local { port } => format!("http://127.0.0.1:{port}"),
    };
    let mut url = origin + &path(&request.path, &lookup)?;
    let mut query: Vec<(String, String)> = Vec::new();
    for (name, value) in &request.query {
        if let Some(text) = text_value(value, &lookup) {
            query.push((name.clone(), text));
        }
    }
    let mut headers: Vec<(String, String)> =
        request.headers.iter().map(|(name, t)| (name.clone(), render(t, &lookup))).collect();
    let mut credentials = Vec::with_capacity(auth.len());
    for entry in auth {
        let value = auth_value(&entry.value, inputs)?;
        credentials.push(Sensitive::new(value.clone()));
        match entry.location {
            AuthIn::Header => headers.push((entry.name.clone(), value)),
            AuthIn::Query => query.push((entry.name.clone(), value)),
        }
    }
    let encoded: Vec<String> = query.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
    let fixed = request.fixed_query.iter().cloned();
    let all: Vec<String> = fixed.chain(encoded).collect();
    if !all.is_empty() {
        url.push('?');
        url.push_str(&all.join("&"));
    }
    let body = request.body.as_ref().map(|entries| body(entries, &lookup));
    Ok(Built { method: request.method, url, headers, body, credentials })
}

/// The path: fixed text as written, inserted values URL-encoded so they
/// cannot add segments; `.` and `..` refused.
fn path(template: &Template, lookup: &dyn Fn(&Piece) -> Option<Value>) -> Result<String, BuildError> {
    let mut out = String::new();
    for piece in &template.0 {
        match piece {
            Piece::Text(text) => out.push_str(text),
            other => {
                let value = lookup(other).map(|v| as_text(&v)).unwrap_or_default();
                if value == "." || value == ".." {
                    return Err(BuildError::BadRequest(format!(
                        "the value \"{value}\" cannot be used in the URL path"
                    )));
                }
                out.push_str(&encode(&value));
            }
        }
    }
    Ok(out)
}

/// A query value: left out when it is only a placeholder whose value is
/// absent; otherwise rendered (absent values as empty text).
fn text_value(value: &ValueTemplate, lookup: &dyn Fn(&Piece) -> Option<Value>) -> Option<String> {
    match value {
        ValueTemplate::Fixed(v) => Some(as_text(v)),
        ValueTemplate::Text(t) => match t.lone_placeholder() {
            Some(piece) => lookup(piece).map(|v| as_text(&v)),
            None => Some(render(t, lookup)),
        },
    }
}

/// The JSON body: a lone placeholder keeps its value's type and an absent
/// one leaves the key out; mixed text is a string.
fn body(entries: &[(String, ValueTemplate)], lookup: &dyn Fn(&Piece) -> Option<Value>) -> Vec<u8> {
    let mut map = Map::new();
    for (key, value) in entries {
        let v = match value {
            ValueTemplate::Fixed(v) => Some(v.clone()),
            ValueTemplate::Text(t) => match t.lone_placeholder() {
                Some(piece) => lookup(piece),
                None => Some(Value::String(render(t, lookup))),
            },
        };
        if let Some(v) = v {
            map.insert(key.clone(), v);
        }
    }
    serde_json::to_vec(&Value::Object(map)).unwrap_or_default()
}

/// Renders a template as text; absent values become empty text.
fn render(template: &Template, lookup: &dyn Fn(&Piece) -> Option<Value>) -> String {
    template
        .0
        .iter()
        .map(|piece| match piece {
            Piece::Text(text) => text.clone(),
            other => lookup(other).map(|v| as_text(&v)).unwrap_or_default(),
        })
        .collect()
}

fn auth_value(template: &Template, inputs: &Inputs) -> Result<String, BuildError> {
    let mut out = String::new();
    for piece in &template.0 {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Secret(key) => {
                let secret = (inputs.secret)(key).ok_or_else(|| BuildError::NeedsSetup(key.clone()))?;
                out.push_str(secret.expose());
            }
            Piece::Arg(_) | Piece::Config(_) => {}
        }
    }
    Ok(out)
}

/// A value as text: strings as they are, numbers and booleans as JSON
/// writes them, null as empty text.
fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Percent-encodes everything but the unreserved characters of RFC 3986,
/// so a value can neither add a path segment nor a query parameter.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
