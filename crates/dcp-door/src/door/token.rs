//! The token check (§16): the presented bearer token against the plugin's
//! event token, read again on every request (one indexed read of the
//! sealed value, so a new token replaces the old at once) and opened only
//! when the sealed value changed. Constant-time comparison; for a slug with
//! no token (not installed, or none made) the comparison runs against a
//! dummy token, so the work, and the time, are the same.

use super::lock;
use dcp_store::Store;
use dcp_vault::Sensitive;
use hyper::body::Incoming;
use hyper::header::AUTHORIZATION;
use hyper::Request;
use std::collections::HashMap;
use std::sync::Mutex;
use subtle::ConstantTimeEq;

/// Each plugin's last opened token, by slug, with its sealed value.
pub(super) struct Tokens {
    opened: Mutex<HashMap<String, (Vec<u8>, Sensitive)>>,
    dummy: Sensitive,
}

impl Tokens {
    pub(super) fn new() -> Tokens {
        Tokens {
            opened: Mutex::new(HashMap::new()),
            dummy: Sensitive::new(dcp_vault::random_token_hex(dcp_store::TOKEN_BYTES)),
        }
    }

    /// Whether `presented` is the event token of `slug` now.
    pub(super) fn check(&self, store: &Store, slug: &str, presented: &[u8]) -> bool {
        // Same work whether or not the slug is installed: one indexed read, then
        // one constant-time comparison (with a dummy when there is no token).
        let sealed = store.event_token_sealed(slug).ok().flatten();
        let expected = {
            let mut tokens = lock(&self.opened);
            match sealed {
                Some(sealed) => {
                    let fresh = tokens.get(slug).is_none_or(|(s, _)| *s != sealed);
                    if fresh {
                        match store.open_event_token(slug, &sealed) {
                            Ok(t) => {
                                tokens.insert(slug.to_owned(), (sealed, t));
                            }
                            Err(_) => {
                                tokens.remove(slug);
                            }
                        }
                    }
                    tokens.get(slug).map(|(_, t)| Sensitive::new(t.expose().to_owned()))
                }
                None => {
                    tokens.remove(slug);
                    None
                }
            }
        };
        let has_token = expected.is_some();
        let against = expected.as_ref().unwrap_or(&self.dummy);
        let equal: bool = against.expose().as_bytes().ct_eq(presented).into();
        equal && has_token
    }
}

/// The presented bearer token (empty when missing or malformed).
pub(super) fn presented(req: &Request<Incoming>) -> Vec<u8> {
    let mut values = req.headers().get_all(AUTHORIZATION).iter();
    let (Some(value), None) = (values.next(), values.next()) else { return Vec::new() };
    // The scheme is case-insensitive (RFC 9110 §11.1); the token is not.
    let bytes = value.as_bytes();
    match bytes.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case(b"bearer ") => bytes[7..].to_vec(),
        _ => Vec::new(),
    }
}
