//! [`judge_ai_url`]: the one rule that decides where the AI runs (§13).
//!
//! Pure, no I/O. A loopback host — `127.0.0.0/8`, `::1`, `localhost` — is an
//! AI on this PC, reached over `http` or `https`. Anything else is online:
//! `https` only, and an IP literal must be public (the network filter's
//! [`dcp_net::address::is_public`]); a name is resolved and judged when the
//! connection is made. Everywhere: no user name or password in the URL
//! (a key belongs in the vault), no query, no fragment, no trailing dot.
//!
//! The result is the normalized base URL without a trailing slash
//! (`http://127.0.0.1:11434/v1`), to which `/models` and
//! `/chat/completions` are appended.

use std::net::IpAddr;

use url::{Host, Url};

use crate::{AiError, PcServer, Place};

/// A judged base URL of an OpenAI-compatible service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AiUrl {
    base: String,
    url: Url,
    place: Place,
}

impl AiUrl {
    /// Where the AI runs.
    pub fn place(&self) -> Place {
        self.place
    }

    /// The normalized base URL, without a trailing slash.
    pub fn as_str(&self) -> &str {
        &self.base
    }

    /// The host, lowercase (an IPv6 literal in brackets).
    pub fn host(&self) -> &str {
        self.url.host_str().unwrap_or_default()
    }

    /// The port, explicit or the scheme's default.
    pub fn port(&self) -> u16 {
        self.url.port_or_known_default().unwrap_or(443)
    }

    /// `{base}/{path}`.
    pub(crate) fn join(&self, path: &str) -> String {
        format!("{}/{path}", self.base)
    }

    /// `{root}/{path}`, where the root is the base URL without its final
    /// `/v1`: where a server's own API lives beside its OpenAI-compatible
    /// one (llama.cpp's `/props`, Ollama's `/api/show`).
    pub(crate) fn root_join(&self, path: &str) -> String {
        let root = self.base.strip_suffix("/v1").unwrap_or(&self.base);
        format!("{root}/{path}")
    }

    pub(crate) fn host_kind(&self) -> Option<Host<&str>> {
        self.url.host()
    }
}

impl std::fmt::Display for AiUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.base)
    }
}

/// The hint of a URL that is not one: the known servers' base URLs.
fn hint_pc() -> String {
    let urls: Vec<String> = PcServer::ALL.iter().map(|s| format!("{} ({})", s.base_url(), s.name())).collect();
    let (last, rest) = urls.split_last().expect("known servers");
    format!("for an AI on this PC type e.g. {} or {last}", rest.join(", "))
}

fn bad(reason: &str, hint: impl Into<String>) -> AiError {
    AiError::BadUrl { reason: reason.to_owned(), hint: hint.into() }
}

/// Judges `raw` as the base URL of the companion's AI; see the module doc
/// for the rules. Refusals are [`AiError::BadUrl`] (with a reason and a
/// hint) or [`AiError::PrivateAddress`].
pub fn judge_ai_url(raw: &str) -> Result<AiUrl, AiError> {
    let raw = raw.trim();
    let url = Url::parse(raw).map_err(|_| bad("this is not a URL", hint_pc()))?;
    let https = match url.scheme() {
        "https" => true,
        "http" => false,
        _ => return Err(bad("a URL of the AI starts with http:// or https://", hint_pc())),
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "a URL of the AI carries no user name or password",
            "type the URL without them; an API key is set on its own and kept in the vault",
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad(
            "a base URL has no ?query or #fragment",
            "type the service's base URL, e.g. https://openrouter.ai/api/v1",
        ));
    }
    let place = match url.host() {
        None => return Err(bad("the URL names no host", hint_pc())),
        Some(Host::Domain(name)) if name.ends_with('.') => {
            return Err(bad("the host ends with a dot", "type the host without the final dot"))
        }
        Some(Host::Domain("localhost")) => Place::Pc,
        Some(Host::Domain(_)) => Place::Online,
        Some(Host::Ipv4(ip)) if ip.is_loopback() => Place::Pc,
        Some(Host::Ipv6(ip)) if ip.is_loopback() => Place::Pc,
        Some(Host::Ipv4(ip)) => online_ip(IpAddr::V4(ip), raw)?,
        Some(Host::Ipv6(ip)) => online_ip(IpAddr::V6(ip), raw)?,
    };
    if place == Place::Online && !https {
        return Err(bad(
            "an online AI is reached over https only (plain http is allowed on this PC alone)",
            "type the same URL with https://",
        ));
    }
    let base = url.as_str().trim_end_matches('/').to_owned();
    Ok(AiUrl { base, url, place })
}

fn online_ip(ip: IpAddr, raw: &str) -> Result<Place, AiError> {
    if dcp_net::address::is_public(ip) {
        Ok(Place::Online)
    } else {
        Err(AiError::PrivateAddress { url: raw.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(raw: &str, base: &str, place: Place) {
        let url = judge_ai_url(raw).unwrap_or_else(|e| panic!("{raw}: {e}"));
        assert_eq!((url.as_str(), url.place()), (base, place), "{raw}");
    }

    fn refused(raw: &str, code: &str) {
        match judge_ai_url(raw) {
            Ok(url) => panic!("{raw} accepted as {url}"),
            Err(e) => assert_eq!(e.code(), code, "{raw}: {e}"),
        }
    }

    /// Loopback forms are the PC; trailing slashes, default ports and the
    /// host's case are normalized.
    #[test]
    fn s13_accepted_urls_their_normal_form_and_place() {
        for (raw, base, place) in [
            ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1", Place::Pc),
            ("http://127.1.2.3:8080/v1", "http://127.1.2.3:8080/v1", Place::Pc),
            ("http://localhost:1234/v1", "http://localhost:1234/v1", Place::Pc),
            ("http://LOCALHOST:1234/v1", "http://localhost:1234/v1", Place::Pc),
            ("http://[::1]:8080/v1", "http://[::1]:8080/v1", Place::Pc),
            ("https://127.0.0.1:8443/v1", "https://127.0.0.1:8443/v1", Place::Pc),
            ("  http://127.0.0.1:11434/v1  ", "http://127.0.0.1:11434/v1", Place::Pc),
            ("http://127.0.0.1:11434/v1/", "http://127.0.0.1:11434/v1", Place::Pc),
            ("http://127.0.0.1:11434/v1//", "http://127.0.0.1:11434/v1", Place::Pc),
            ("http://localhost/", "http://localhost", Place::Pc),
            ("https://openrouter.ai:443/api/v1/", "https://openrouter.ai/api/v1", Place::Online),
            ("https://api.example.com:8443/v1", "https://api.example.com:8443/v1", Place::Online),
            ("https://API.Example.COM/v1", "https://api.example.com/v1", Place::Online),
        ] {
            ok(raw, base, place);
        }
    }

    #[test]
    fn s13_online_is_https_on_a_public_address() {
        ok("https://93.184.216.34/v1", "https://93.184.216.34/v1", Place::Online);
        ok("https://[2606:2800:220:1::1]/v1", "https://[2606:2800:220:1::1]/v1", Place::Online);
        refused("http://openrouter.ai/api/v1", "ai_bad_url");
        refused("http://93.184.216.34/v1", "ai_bad_url");
        for private in [
            "https://10.0.0.7/v1",
            "https://192.168.1.20:11434/v1",
            "https://169.254.169.254/v1",
            "https://0.0.0.0:11434/v1",
            "https://[fd12:3456::1]/v1",
            "https://[::ffff:127.0.0.1]/v1",
            "http://192.168.1.20:11434/v1",
        ] {
            refused(private, "ai_private_address");
        }
    }

    #[test]
    fn s13_what_no_ai_url_may_carry() {
        refused("https://user:pw@openrouter.ai/api/v1", "ai_bad_url");
        refused("http://user@127.0.0.1:11434/v1", "ai_bad_url");
        refused("https://openrouter.ai/api/v1?key=x", "ai_bad_url");
        refused("https://openrouter.ai/api/v1#x", "ai_bad_url");
        refused("https://openrouter.ai./api/v1", "ai_bad_url");
        refused("ftp://127.0.0.1/v1", "ai_bad_url");
        refused("127.0.0.1:11434/v1", "ai_bad_url");
        refused("", "ai_bad_url");
        refused("not a url", "ai_bad_url");
    }

    #[test]
    fn s13_refusals_say_what_to_type_instead() {
        let e = judge_ai_url("http://openrouter.ai/api/v1").expect_err("http online");
        assert!(e.hint().is_some_and(|h| h.contains("https://")), "{e:?}");
        let e = judge_ai_url("nope").expect_err("no url");
        assert!(e.hint().is_some_and(|h| h.contains("http://127.0.0.1:11434/v1")), "{e:?}");
    }

    #[test]
    fn s13_host_and_port() {
        let url = judge_ai_url("https://openrouter.ai/api/v1").expect("ok");
        assert_eq!((url.host(), url.port()), ("openrouter.ai", 443));
        let url = judge_ai_url("http://localhost:1234/v1").expect("ok");
        assert_eq!((url.host(), url.port()), ("localhost", 1234));
        assert_eq!(url.join("models"), "http://localhost:1234/v1/models");
        assert_eq!(url.root_join("api/v0/models"), "http://localhost:1234/api/v0/models");
        let url = judge_ai_url("http://127.0.0.1:8080").expect("ok");
        assert_eq!(url.root_join("props"), "http://127.0.0.1:8080/props");
    }
}
