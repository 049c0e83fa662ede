//! A tool's `request` (§8, §14, §15): method, URL, query, headers, body and
//! the templates in them.

use super::auth::Auth;
use super::json::Value;
use super::network::Network;
use super::settings::Settings;
use super::{type_name, unknown_keys, Path};
use crate::limits;
use crate::model::{Method, Request, Target};
use crate::problem::{Code, Problems};
use crate::template::{Piece, Template, ValueTemplate};
use crate::url_parts::split;

/// Why `name` cannot be a header a plugin sets (§8), or `None` when it can.
pub(super) fn header_name_problem(name: &str) -> Option<String> {
    if !(1..=limits::HEADER_NAME_CHARS).contains(&name.len())
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        Some(format!("\"{name}\" is not a header name (letters, digits and -, 40 characters at most)"))
    } else if crate::headers::is_forbidden(name) {
        Some(format!("{name} is set by the app and cannot be set by a plugin"))
    } else {
        None
    }
}

/// What a request's templates may name.
pub(super) struct Scope<'a> {
    /// Every property name, valid or not, so a broken property is not reported twice.
    pub declared_arguments: Vec<&'a str>,
    pub settings: &'a Settings,
    pub network: &'a Network,
    pub auth: &'a Auth,
}

/// Where a template stands, which decides what it may hold.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Path,
    Query,
    Header,
    Body,
}

pub(super) fn check(request: Option<&Value>, path: Path, scope: &Scope, p: &mut Problems) -> Option<Request> {
    let before = p.error_count();
    let Some(Value::Object(map)) = request else {
        p.push(Code::BadRequest, path, "a tool needs a request object with at least a url");
        return None;
    };
    unknown_keys(map, &["method", "url", "query", "headers", "body"], Code::BadRequest, path, p);
    let method = match map.get("method") {
        None => Some(Method::GET),
        Some(v) => {
            let method = v.as_str().and_then(Method::parse);
            if method.is_none() {
                p.push(Code::BadRequest, path.key("method"), "method must be GET, POST, PUT, PATCH or DELETE");
            }
            method
        }
    };
    let url = url(map.get("url"), path.key("url"), scope, p);
    let query = entries(map.get("query"), "query", limits::QUERY_ENTRIES, Place::Query, path, scope, p);
    let headers = headers(map.get("headers"), path.key("headers"), scope, p);
    let body =
        map.get("body").map(|_| entries(map.get("body"), "body", limits::BODY_ENTRIES, Place::Body, path, scope, p));
    if method == Some(Method::GET) && body.is_some() {
        p.push(Code::BadRequest, path.key("body"), "a GET request cannot have a body");
    }
    for (name, _) in &query {
        if scope.auth.query.contains(name) {
            p.push(Code::BadAuth, path.key("query").key(name), format!("{name} is already sent by auth"));
        }
    }
    for (name, _) in &headers {
        if scope.auth.headers.contains(&name.to_ascii_lowercase()) {
            p.push(Code::BadAuth, path.key("headers").key(name), format!("{name} is already sent by auth"));
        }
    }
    let (raw_url, target, url_path, fixed_query) = url?;
    (p.error_count() == before).then(|| Request {
        method: method.unwrap_or(Method::GET),
        url: raw_url,
        target,
        path: url_path,
        fixed_query,
        query,
        headers,
        body,
    })
}

type UrlParts = (String, Target, Template, Option<String>);

fn url(value: Option<&Value>, path: Path, scope: &Scope, p: &mut Problems) -> Option<UrlParts> {
    let Some(raw) = value.and_then(Value::as_str) else {
        p.push(Code::BadRequest, path, "url must be an absolute https:// URL");
        return None;
    };
    let parts = match split(raw) {
        Ok(parts) => parts,
        Err(why) => {
            p.push(Code::BadRequest, path, why);
            return None;
        }
    };
    if parts.has_credentials {
        p.push(Code::BadRequest, path, "credentials in a URL are refused; send secrets with auth");
        return None;
    }
    if parts.host.contains("{{") {
        p.push(Code::BadRequest, path, "the domain must be written literally, without a template");
        return None;
    }
    let target = match parts.scheme {
        "https" => web_target(parts.host, parts.port, scope, path, p)?,
        "http" => local_target(parts.host, parts.port, scope, path, p)?,
        other => {
            p.push(
                Code::BadRequest,
                path,
                format!("{other}:// is not allowed: use https:// (or http://127.0.0.1:<port> for a server on the PC)"),
            );
            return None;
        }
    };
    let (url_path, fixed_query) = path_and_query(parts.rest, path, scope, p)?;
    Some((raw.to_owned(), target, url_path, fixed_query))
}

fn web_target(host: &str, port: Option<&str>, scope: &Scope, path: Path, p: &mut Problems) -> Option<Target> {
    if port.is_some() {
        p.push(Code::BadRequest, path, "HTTPS goes to port 443: write the URL without a port");
        return None;
    }
    if !scope.network.hosts.iter().any(|h| h == host) {
        p.push(Code::HostNotDeclared, path, format!("host {host} is not in permissions.network.hosts"));
        return None;
    }
    Some(Target::Web { host: host.to_owned() })
}

fn local_target(host: &str, port: Option<&str>, scope: &Scope, path: Path, p: &mut Problems) -> Option<Target> {
    if !crate::hosts::is_pc_host(host) {
        p.push(
            Code::BadRequest,
            path,
            format!("http:// is only for a server on the PC (127.0.0.1 or localhost); use https:// for {host}"),
        );
        return None;
    }
    let port = port.unwrap_or("80");
    match port.parse::<u16>() {
        Ok(n) if scope.network.ports.contains(&n) => Some(Target::Local { port: n }),
        _ => {
            p.push(Code::LocalPortNotDeclared, path, format!("port {port} is not in permissions.network.local.ports"));
            None
        }
    }
}

fn path_and_query(rest: &str, path: Path, scope: &Scope, p: &mut Problems) -> Option<(Template, Option<String>)> {
    if rest.contains('#') {
        p.push(Code::BadRequest, path, "a URL cannot have a #fragment");
        return None;
    }
    let (url_path, query) = match rest.split_once('?') {
        Some((url_path, query)) => (url_path, Some(query)),
        None => (rest, None),
    };
    if query.is_some_and(|q| q.contains("{{")) {
        p.push(Code::BadRequest, path, "put templated query parameters in query, not in the URL");
        return None;
    }
    let template = template(url_path, Place::Path, path, scope, p)?;
    Some((template, query.filter(|q| !q.is_empty()).map(str::to_owned)))
}

fn headers(value: Option<&Value>, path: Path, scope: &Scope, p: &mut Problems) -> Vec<(String, Template)> {
    let Some(value) = value else {
        return Vec::new();
    };
    let Value::Object(map) = value else {
        p.push(Code::BadRequest, path, format!("headers must be an object, not {}", type_name(value)));
        return Vec::new();
    };
    if map.len() > limits::HEADER_ENTRIES {
        p.push(Code::BadRequest, path, format!("{} headers; 10 at most", map.len()));
    }
    let mut out = Vec::new();
    for (name, value) in map {
        let entry_path = path.key(name);
        if let Some(why) = header_name_problem(name) {
            p.push(Code::BadHeader, entry_path, why);
            continue;
        }
        let Some(text) = value.as_str() else {
            p.push(Code::BadRequest, entry_path, "a header value is text");
            continue;
        };
        if text.chars().any(crate::text::is_hidden_char) {
            p.push(Code::BadRequest, entry_path, "a header value is one line without control characters");
            continue;
        }
        if let Some(t) = template(text, Place::Header, entry_path, scope, p) {
            out.push((name.to_owned(), t));
        }
    }
    out
}

fn entries(
    value: Option<&Value>,
    key: &str,
    max: usize,
    place: Place,
    path: Path,
    scope: &Scope,
    p: &mut Problems,
) -> Vec<(String, ValueTemplate)> {
    let path = path.key(key);
    let Some(value) = value else {
        return Vec::new();
    };
    let Value::Object(map) = value else {
        p.push(Code::BadRequest, path, format!("{key} must be an object, not {}", type_name(value)));
        return Vec::new();
    };
    if map.len() > max {
        p.push(Code::BadRequest, path, format!("{} entries in {key}; {max} at most", map.len()));
    }
    map.iter().filter_map(|(name, v)| entry(name, v, place, path, scope, p).map(|t| (name.to_owned(), t))).collect()
}

/// One entry of `query` or `body`.
fn entry(
    name: &str,
    value: &Value,
    place: Place,
    parent: Path,
    scope: &Scope,
    p: &mut Problems,
) -> Option<ValueTemplate> {
    let path = parent.key(name);
    if name.is_empty() || name.chars().any(crate::text::is_hidden_char) {
        p.push(Code::BadRequest, path, "an entry name cannot be empty or hold control characters");
        return None;
    }
    match value {
        Value::String(text) => template(text, place, path, scope, p).map(ValueTemplate::Text),
        Value::Number(_) | Value::Bool(_) => Some(ValueTemplate::Fixed(value.to_json())),
        Value::Array(_) | Value::Object(_) | Value::Null if place == Place::Body => {
            if value.to_string().contains("{{") {
                p.push(Code::BadPlaceholder, path, "templates only work in top-level body values");
                return None;
            }
            Some(ValueTemplate::Fixed(value.to_json()))
        }
        _ => {
            p.push(Code::BadRequest, path, "a query value is fixed text, a number, a boolean or a template");
            None
        }
    }
}

fn template(text: &str, place: Place, path: Path, scope: &Scope, p: &mut Problems) -> Option<Template> {
    let template = match Template::parse(text) {
        Ok(t) => t,
        Err(why) => {
            p.push(Code::BadPlaceholder, path, why);
            return None;
        }
    };
    let before = p.error_count();
    for piece in template.placeholders() {
        if let Some(why) = placeholder_problem(piece, place, scope) {
            p.push(Code::BadPlaceholder, path, why);
        }
    }
    (p.error_count() == before).then_some(template)
}

/// The names a template may use instead, for the author's fix.
fn existing(names: &[&str]) -> String {
    if names.is_empty() {
        "there are none".into()
    } else {
        format!("use one of: {}", names.join(", "))
    }
}

fn placeholder_problem(piece: &Piece, place: Place, scope: &Scope) -> Option<String> {
    match piece {
        Piece::Secret(name) => Some(format!("{{{{secret.{name}}}}}: secrets only go through the auth block")),
        Piece::Arg(name) if place == Place::Header => Some(format!("{{{{{name}}}}}: arguments never go into a header")),
        Piece::Arg(name) if !scope.declared_arguments.iter().any(|a| a == name) => {
            Some(format!("{{{{{name}}}}} names no argument of this tool ({})", existing(&scope.declared_arguments)))
        }
        Piece::Config(name) => match scope.settings.is_secret(name) {
            None => {
                let usable: Vec<&str> =
                    scope.settings.declared.iter().filter(|(_, secret)| !**secret).map(|(k, _)| k.as_str()).collect();
                Some(format!("{{{{config.{name}}}}} names no setting in user_config ({})", existing(&usable)))
            }
            Some(true) => Some(format!("{{{{config.{name}}}}} is a secret: secrets only go through the auth block")),
            Some(false) => None,
        },
        Piece::Arg(_) | Piece::Text(_) => None,
    }
}
