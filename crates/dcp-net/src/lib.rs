//! The network filter of companion plugins (spec §8 end, §14, §15, §21).
//!
//! *Architecture invariant:* this crate is the only code in the app that
//! opens a socket for a plugin, or for the Twitch chat
//! ([`Client::connect_tls`], judged and pinned the same way). The engine builds an [`Outgoing`] request
//! (method, absolute URL, headers, JSON body) and hands it to
//! [`Client::send`] together with the plugin's [`Policy`]; nothing else
//! reaches the network on a plugin's behalf.
//!
//! What a call goes through, in order, for the first URL and for every
//! redirect alike:
//!
//! 1. [`judge_url`] (pure, no I/O): HTTPS on port 443 to a declared host,
//!    or `http://127.0.0.1:<port>` / `http://localhost:<port>` on a declared,
//!    unreserved port in developer mode (§15). No credentials, no IP
//!    literals, no trailing dot.
//! 2. For a web host: the name is resolved here, every answer is judged by
//!    [`address::is_public`], and the connection is pinned to exactly those
//!    addresses (reqwest gets `resolve_to_addrs` plus a resolver that
//!    refuses every other name). A server on the PC is always reached at
//!    127.0.0.1, `localhost` is never resolved.
//! 3. The request is sent with no proxy, no cookies, no referer, no
//!    automatic redirect, the fixed `User-Agent` and the default `Accept`
//!    of §8.
//! 4. A redirect (301, 302, 303, 307, 308 with a `Location`) is followed by
//!    hand, at most [`dcp_format::limits::REDIRECTS`] times, each target
//!    judged from step 1 by [`judge_redirect`], which also refuses a hop
//!    between the web and the PC in either direction.
//! 5. The answer is read as a stream and stopped past
//!    [`dcp_format::limits::RESPONSE_BYTES`].
//!
//! One deadline of [`dcp_format::limits::CALL_SECONDS`] covers all of it.
//! Status codes are not judged here (§9 belongs to the caller): a 404 is an
//! [`Incoming`] like a 200.
//!
//! Decisions where the spec is silent:
//!
//! * Only 301, 302, 303, 307 and 308 *with* a `Location` are followed; any
//!   other 3xx (or one without `Location`) is returned as the answer.
//! * A redirect to another origin (still a declared host) drops the
//!   plugin's headers except `Accept`: they may carry its key (§11).
//! * `http://` to anything but 127.0.0.1/localhost is NOT_HTTPS; a
//!   loopback spelled another way (`http://127.1:8420`) is BAD_URL.
//! * IPv6 outside `2000::/3` is refused; NAT64 `64:ff9b::/96` is judged by
//!   the IPv4 inside; 6to4 and local-use NAT64 are refused whole.
//! * A `Content-Length` over 2 MB is refused at once; otherwise bytes are
//!   counted as they arrive.
//! * TLS trusts the bundled Mozilla roots (webpki-roots), the same on
//!   every OS, not the OS store.
//! * `send` must run inside a Tokio runtime with I/O and time enabled.
//!
//! The `test-net` feature adds test hooks (fake DNS answers, connection
//! rewrites, an extra trusted root, a shorter deadline). It must never be
//! enabled in a release build.

#![deny(missing_docs)]

pub mod address;
mod client;
mod error;
mod judge;

pub use client::Client;
#[cfg(feature = "test-net")]
pub use client::TestOverrides;
pub use error::NetError;
pub use judge::{judge_redirect, judge_url, Target};

/// The fixed `User-Agent` of every plugin request (§8).
pub const USER_AGENT: &str = "DesktopCompanion-Plugins/1";
/// The `Accept` sent when the request does not set one (§8).
pub const DEFAULT_ACCEPT: &str = "application/json, text/plain;q=0.8, */*;q=0.1";

/// What one plugin may reach: its declared network permissions (§14, §15)
/// and whether developer mode is on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// `permissions.network.hosts`: exact lowercase domain names.
    pub hosts: Vec<String>,
    /// `permissions.network.local.ports`: ports of a server on the PC.
    pub local_ports: Vec<u16>,
    /// Developer mode is on: only then may a server on the PC be reached.
    pub dev_mode: bool,
    /// The player confirmed this very request (R3, §12): it goes only
    /// where it was shown. Its method and body are sent once, to its URL;
    /// a redirect is followed only as a GET without body to the same
    /// origin (see [`Client::send`]), any other is [`NetError::Redirected`].
    pub confirmed: bool,
}

/// An HTTP method a plugin request may use (§8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// GET.
    Get,
    /// POST.
    Post,
    /// PUT.
    Put,
    /// PATCH.
    Patch,
    /// DELETE.
    Delete,
}

impl Method {
    fn as_reqwest(self) -> reqwest::Method {
        match self {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        }
    }
}

/// A request the app built from a plugin's template (§8): everything is
/// final, this crate only checks and sends it. It carries secrets (auth
/// headers and query parameters, §11), so its `Debug` shows neither header
/// values nor the query string.
#[derive(Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// The method.
    pub method: Method,
    /// The absolute URL, templates already filled in and encoded.
    pub url: String,
    /// Headers set by the plugin and its auth block. The caller has already
    /// refused the names §8 forbids; `User-Agent`, `Cookie`, `Referer`,
    /// `Host` and the like are ignored here anyway.
    pub headers: Vec<(String, String)>,
    /// A JSON body, sent with `Content-Type: application/json`.
    pub body: Option<Vec<u8>>,
}

impl std::fmt::Debug for Outgoing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.url.split('?').next().unwrap_or_default();
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("Outgoing")
            .field("method", &self.method)
            .field("url", &format_args!("{path}?[redacted]"))
            .field("headers", &names)
            .field("body_bytes", &self.body.as_ref().map(Vec::len))
            .finish()
    }
}

/// The answer of the last hop, whatever its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incoming {
    /// The HTTP status code; judging it is the caller's job (§9).
    pub status: u16,
    /// The `Content-Type` header, if any and readable.
    pub content_type: Option<String>,
    /// The body, at most [`dcp_format::limits::RESPONSE_BYTES`] bytes.
    pub body: Vec<u8>,
    /// The URL that gave this answer (after redirects).
    pub final_url: String,
}

#[cfg(test)]
mod debug_tests {
    use super::*;

    #[test]
    fn s11_debug_never_shows_a_secret() {
        let out = Outgoing {
            method: Method::Get,
            url: "https://api.example.com/x?key=s3cr3t".into(),
            headers: vec![("Authorization".into(), "Bearer s3cr3t".into())],
            body: None,
        };
        let shown = format!("{out:?}");
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(shown.contains("Authorization"));
    }
}
