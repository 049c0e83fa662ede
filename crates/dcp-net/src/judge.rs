//! The URL rules of §14 and §15, without any I/O.
//!
//! [`judge_url`] decides whether a URL may be fetched under a [`Policy`],
//! and where it goes: a declared web host (to be resolved and judged by
//! address next) or a server on the PC (always 127.0.0.1). It runs on the
//! first URL and on every redirect target, and is the fuzz target's entry.
//! [`judge_redirect`] adds the one rule a redirect has on top: it stays on
//! the side (web or PC) of the request that was judged for risk (§12, §15).
//!
//! It judges conservatively: the URL is parsed once, with the `url` crate
//! (the parse reqwest will send), and the raw text must read as that parse
//! up to the path. Anything the parser would silently repair (whitespace, control or
//! non-ASCII characters, backslashes, `https:host` without `//`, a
//! percent-encoded or upper-case-only-differing host) is refused as
//! BAD_URL rather than trusted.

use dcp_format::hosts::{check_public_domain, reserved_port};
use url::{Host, Position, Url};

use crate::{NetError, Policy};

/// The longest URL accepted (bytes). Far above anything a template builds.
const MAX_URL_BYTES: usize = 8 * 1024;

/// Where an accepted URL goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `https://<declared host>/…` on port 443.
    Web {
        /// The parsed URL, fragment removed.
        url: Url,
        /// The declared host it names (lowercase, no trailing dot).
        host: String,
    },
    /// `http://127.0.0.1:<port>/…` or `http://localhost:<port>/…`, a
    /// declared, unreserved port, developer mode on. Connected to
    /// 127.0.0.1 whatever the name.
    Local {
        /// The parsed URL, fragment removed.
        url: Url,
        /// The port of the PC.
        port: u16,
    },
}

impl Target {
    /// The URL to send.
    pub fn url(&self) -> &Url {
        match self {
            Target::Web { url, .. } | Target::Local { url, .. } => url,
        }
    }

    /// `true` for a server on the PC.
    pub fn is_local(&self) -> bool {
        matches!(self, Target::Local { .. })
    }
}

/// Judges `raw` against §14/§15 and `policy`. Pure: no DNS, no socket.
///
/// Errors: BAD_URL (malformed, credentials, trailing dot, text the parser
/// would repair), NOT_HTTPS (any scheme but https, except http to the PC),
/// HOST_NOT_ALLOWED (undeclared name, IP literal in any notation),
/// BAD_PORT (https on a port other than 443), LOCAL_PORT_NOT_ALLOWED
/// (server on the PC on an undeclared or reserved port, or developer mode
/// off).
pub fn judge_url(raw: &str, policy: &Policy) -> Result<Target, NetError> {
    if raw.len() > MAX_URL_BYTES || !raw.bytes().all(|b| (0x21..=0x7e).contains(&b)) || raw.contains('\\') {
        return Err(NetError::BadUrl);
    }
    let mut url = Url::parse(raw).map_err(|_| NetError::BadUrl)?;
    if !url.username().is_empty() || url.password().is_some() || url.cannot_be_a_base() {
        return Err(NetError::BadUrl);
    }
    url.set_fragment(None);

    match url.scheme() {
        "https" => {
            let host = match url.host() {
                Some(Host::Domain(d)) => d.to_owned(),
                Some(Host::Ipv4(_)) | Some(Host::Ipv6(_)) => return Err(NetError::HostNotAllowed),
                None => return Err(NetError::BadUrl),
            };
            if !written_as_parsed(raw, &url) || host.ends_with('.') {
                return Err(NetError::BadUrl);
            }
            if check_public_domain(&host).is_err() || !policy.hosts.contains(&host) {
                return Err(NetError::HostNotAllowed);
            }
            if url.port().is_some() {
                return Err(NetError::BadPort);
            }
            Ok(Target::Web { url, host })
        }
        "http" => {
            // The parse's host, lower-case: `LOCALHOST` is localhost,
            // while `127.1` or `[::1]` is no host of the PC.
            if !url.host_str().is_some_and(dcp_format::hosts::is_pc_host) {
                return Err(NetError::NotHttps);
            }
            if !written_as_parsed(raw, &url) {
                return Err(NetError::BadUrl);
            }
            let port = url.port_or_known_default().ok_or(NetError::BadUrl)?;
            if !policy.dev_mode || !policy.local_ports.contains(&port) || reserved_port(port).is_some() {
                return Err(NetError::LocalPortNotAllowed);
            }
            Ok(Target::Local { url, port })
        }
        _ => Err(NetError::NotHttps),
    }
}

/// `true` when `raw` begins with exactly what the parse will send up to the
/// path (scheme, `//`, host, port; letter case aside), then the path, query,
/// fragment or nothing. A scheme's default port may be written out (`:443`),
/// in those digits only. Anything the parser repaired — an empty `@`, an
/// empty port, a host in another notation or percent-encoded, a missing
/// `//` — reads differently from the text and is refused: the one URL
/// judged is the one reqwest sends, and it is the one the author wrote.
fn written_as_parsed(raw: &str, url: &Url) -> bool {
    let sent = &url[..Position::BeforePath];
    let Some(head) = raw.get(..sent.len()) else { return false };
    if !head.eq_ignore_ascii_case(sent) {
        return false;
    }
    let mut rest = &raw[sent.len()..];
    if let (Some(port), None, Some(default)) = (rest.strip_prefix(':'), url.port(), url.port_or_known_default()) {
        match port.strip_prefix(default.to_string().as_str()) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty() || rest.starts_with(['/', '?', '#'])
}

/// Judges a redirect from `from` to `raw`: exactly as a first request
/// ([`judge_url`]), and it must not cross between the web and the PC.
///
/// The courtier judged the tool's risk on its first URL only: a web R0
/// tool may be called from the Twitch chat, while any request to the PC is
/// R2 at least (§12). A web server answering 302/307 to
/// `http://127.0.0.1:<declared port>` would otherwise make the chat reach
/// the player's PC with the tool's method and body; no web API has a reason
/// to send the app to the player's own PC, nor a server on the PC to the
/// web. Either crossing is HOST_NOT_ALLOWED: the redirect went to a host
/// this request may not reach, whatever its port.
pub fn judge_redirect(from: &Target, raw: &str, policy: &Policy) -> Result<Target, NetError> {
    let next = judge_url(raw, policy)?;
    if next.is_local() != from.is_local() {
        return Err(NetError::HostNotAllowed);
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        Policy {
            hosts: vec!["api.example.com".into(), "cdn.example.com".into()],
            local_ports: vec![8420, 5000, 80],
            dev_mode: true,
            confirmed: false,
        }
    }

    fn check(raw: &str, want: Result<&str, NetError>) {
        let got = judge_url(raw, &policy());
        match (got, want) {
            (Ok(t), Ok(expect)) => assert_eq!(t.url().as_str(), expect, "{raw}"),
            (Err(e), Err(w)) => assert_eq!(e, w, "{raw}"),
            (got, want) => panic!("{raw}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn s14_web_urls() {
        use NetError::*;
        let table: &[(&str, Result<&str, NetError>)] = &[
            ("https://api.example.com/v1/x?a=1", Ok("https://api.example.com/v1/x?a=1")),
            ("https://api.example.com", Ok("https://api.example.com/")),
            ("https://api.example.com:443/x", Ok("https://api.example.com/x")),
            ("HTTPS://api.example.com/x", Ok("https://api.example.com/x")),
            ("https://API.Example.com/x", Ok("https://api.example.com/x")),
            ("https://api.example.com/x#frag", Ok("https://api.example.com/x")),
            ("https://cdn.example.com/", Ok("https://cdn.example.com/")),
            ("http://api.example.com/", Err(NotHttps)),
            ("ftp://api.example.com/", Err(NotHttps)),
            ("ws://api.example.com/", Err(NotHttps)),
            ("https://api.example.com:8443/", Err(BadPort)),
            ("https://api.example.com:80/", Err(BadPort)),
            ("https://evil.example.com/", Err(HostNotAllowed)),
            ("https://example.com/", Err(HostNotAllowed)),
            ("https://api.example.com.evil.net/", Err(HostNotAllowed)),
            ("https://api.example.com./", Err(BadUrl)),
            ("https://user:pass@api.example.com/", Err(BadUrl)),
            ("https://user@api.example.com/", Err(BadUrl)),
            ("https://@api.example.com/", Err(BadUrl)),
            ("https://:@api.example.com/", Err(BadUrl)),
            ("https://evil.net@api.example.com/", Err(BadUrl)),
            ("https://api.example.com@evil.net/", Err(BadUrl)),
            ("https://api%2Eexample.com/", Err(BadUrl)),
            ("https://api.ex%61mple.com/", Err(BadUrl)),
            ("https://api\u{3002}example.com/", Err(BadUrl)),
            ("https://api.example.com\\@evil.net/", Err(BadUrl)),
            ("https:api.example.com/", Err(BadUrl)),
            ("https:/api.example.com/", Err(BadUrl)),
            ("https://api.example.com/a b", Err(BadUrl)),
            ("https://api.example.com/\t", Err(BadUrl)),
            (" https://api.example.com/", Err(BadUrl)),
            ("https://api.example.com/\n", Err(BadUrl)),
            ("https://", Err(BadUrl)),
            ("https:///x", Err(BadUrl)),
            ("//api.example.com/", Err(BadUrl)),
            ("api.example.com", Err(BadUrl)),
            ("", Err(BadUrl)),
            ("data:text/plain,hi", Err(BadUrl)),
            ("javascript:alert(1)", Err(BadUrl)),
            ("https://api.example.com:99999/", Err(BadUrl)),
            ("https://api.example.com:-1/", Err(BadUrl)),
            // Whatever the parse repaired reads differently from the text.
            ("https://api.example.com:/x", Err(BadUrl)),
            ("https://api.example.com:0443/x", Err(BadUrl)),
            ("https://api.example.com:443x/", Err(BadUrl)),
            ("https://api.example.com:0/", Err(BadPort)),
            ("https://api.example.com?q=1", Ok("https://api.example.com/?q=1")),
            ("https://api.example.com#f", Ok("https://api.example.com/")),
            // IP literals in every notation: never a declared name.
            ("https://127.0.0.1/", Err(HostNotAllowed)),
            ("https://2130706433/", Err(HostNotAllowed)),
            ("https://0x7f.1/", Err(HostNotAllowed)),
            ("https://0x7f000001/", Err(HostNotAllowed)),
            ("https://0177.0.0.1/", Err(HostNotAllowed)),
            ("https://127.1/", Err(HostNotAllowed)),
            ("https://169.254.169.254/latest/meta-data/", Err(HostNotAllowed)),
            ("https://93.184.216.34/", Err(HostNotAllowed)),
            ("https://[::1]/", Err(HostNotAllowed)),
            ("https://[::ffff:127.0.0.1]/", Err(HostNotAllowed)),
            ("https://[64:ff9b::7f00:1]/", Err(HostNotAllowed)),
            ("https://[2002:7f00:1::1]/", Err(HostNotAllowed)),
            ("https://[2001::1]/", Err(HostNotAllowed)),
            ("https://[2606:2800:220:1::1]/", Err(HostNotAllowed)),
            ("https://localhost/", Err(HostNotAllowed)),
            ("https://127.0.0.1:8420/", Err(HostNotAllowed)),
            // An IP literal is refused as such, whatever else is odd in it.
            ("https://@127.0.0.1/", Err(HostNotAllowed)),
            ("https://127.0.0.1:0/", Err(HostNotAllowed)),
            ("https://127.0.0.1:/", Err(HostNotAllowed)),
        ];
        for (raw, want) in table {
            check(raw, want.clone());
        }
    }

    #[test]
    fn s15_local_urls() {
        use NetError::*;
        let table: &[(&str, Result<&str, NetError>)] = &[
            ("http://127.0.0.1:8420/fishing/start", Ok("http://127.0.0.1:8420/fishing/start")),
            ("http://localhost:8420/x", Ok("http://localhost:8420/x")),
            ("http://LOCALHOST:8420/x", Ok("http://localhost:8420/x")),
            ("http://127.0.0.1:8421/", Err(LocalPortNotAllowed)),
            ("http://127.0.0.1:5000/", Err(LocalPortNotAllowed)), // declared but reserved
            ("http://127.0.0.1/", Err(LocalPortNotAllowed)),      // port 80: reserved
            ("http://127.0.0.1:80/", Err(LocalPortNotAllowed)),
            ("http://127.1:8420/", Err(BadUrl)),
            ("http://2130706433:8420/", Err(BadUrl)),
            ("http://0x7f000001:8420/", Err(BadUrl)),
            ("http://0x7f000002:8420/", Err(NotHttps)),
            ("http://127.0.0.1:08420/", Err(BadUrl)),
            ("http://127.0.0.1:/x", Err(BadUrl)),
            ("http://@127.0.0.1:8420/", Err(BadUrl)),
            ("http://127.0.0.1:8420", Ok("http://127.0.0.1:8420/")),
            ("http:127.0.0.1:8420/", Err(BadUrl)),
            ("http://127.0.0.2:8420/", Err(NotHttps)),
            ("http://[::1]:8420/", Err(NotHttps)),
            ("http://192.168.1.10:8420/", Err(NotHttps)),
            ("http://localhost.:8420/", Err(NotHttps)),
            ("http://user:pw@127.0.0.1:8420/", Err(BadUrl)),
            ("https://127.0.0.1:8420/", Err(HostNotAllowed)),
            ("https://localhost:8420/", Err(HostNotAllowed)),
        ];
        for (raw, want) in table {
            check(raw, want.clone());
        }
    }

    #[test]
    fn s15_local_needs_dev_mode() {
        let mut p = policy();
        p.dev_mode = false;
        assert_eq!(judge_url("http://127.0.0.1:8420/", &p), Err(NetError::LocalPortNotAllowed));
        assert_eq!(judge_url("http://localhost:8420/", &p), Err(NetError::LocalPortNotAllowed));
    }

    /// §12/§15: a hop is judged as a first request, and never crosses
    /// between the web and the PC, even to a declared port or host.
    #[test]
    fn s15_redirect_never_crosses_between_web_and_pc() {
        let p = policy();
        let web = judge_url("https://api.example.com/start", &p).expect("web");
        let pc = judge_url("http://127.0.0.1:8420/start", &p).expect("pc");
        for to_pc in ["http://127.0.0.1:8420/x", "http://localhost:8420/x"] {
            assert_eq!(judge_redirect(&web, to_pc, &p), Err(NetError::HostNotAllowed), "{to_pc}");
        }
        assert_eq!(judge_redirect(&pc, "https://api.example.com/x", &p), Err(NetError::HostNotAllowed));
        assert_eq!(judge_redirect(&web, "https://cdn.example.com/x", &p).map(|t| t.is_local()), Ok(false));
        assert_eq!(judge_redirect(&pc, "http://localhost:8420/x", &p).map(|t| t.is_local()), Ok(true));
        // The first-request rules come first: their code is the precise one.
        assert_eq!(judge_redirect(&web, "http://127.0.0.1:8421/x", &p), Err(NetError::LocalPortNotAllowed));
        assert_eq!(judge_redirect(&pc, "https://evil.example.net/x", &p), Err(NetError::HostNotAllowed));
    }

    #[test]
    fn s14_policy_hosts_are_compared_exactly() {
        let p = Policy { hosts: vec!["Api.Example.com".into(), "api.example.com.".into()], ..Policy::default() };
        assert_eq!(judge_url("https://api.example.com/", &p), Err(NetError::HostNotAllowed));
        let p = Policy { hosts: vec!["localhost".into()], ..Policy::default() };
        assert_eq!(judge_url("https://localhost/", &p), Err(NetError::HostNotAllowed));
    }
}
