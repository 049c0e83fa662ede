//! The token check (§16): the presented bearer token against the plugin's
//! event token, read again on every request (one indexed read of the
//! sealed value, so a new token replaces the old at once) and opened only
//! when the sealed value changed (the vault asks the OS key store: never on
//! the async threads). Constant-time comparison; for a slug with no token
//! (not installed, or none made) the comparison runs against a dummy
//! token, so the work, and the time, are the same.

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

    /// Whether `presented` is the event token of `slug` now, when that
    /// needs no key from the vault: the sealed value read is the one last
    /// opened, or there is none. `None` when the token must be opened
    /// (first use, new token): [`Tokens::check`] then, off the async
    /// threads, since the vault asks the OS key store.
    pub(super) fn check_opened(&self, store: &Store, slug: &str, presented: &[u8]) -> Option<bool> {
        let sealed = store.event_token_sealed(slug).ok().flatten();
        let mut tokens = lock(&self.opened);
        match sealed {
            Some(sealed) => {
                let (opened, token) = tokens.get(slug)?;
                (*opened == sealed).then(|| self.compare(Some(token), presented))
            }
            None => {
                tokens.remove(slug);
                Some(self.compare(None, presented))
            }
        }
    }

    /// Whether `presented` is the event token of `slug` now, opening it
    /// with the vault when its sealed value changed.
    pub(super) fn check(&self, store: &Store, slug: &str, presented: &[u8]) -> bool {
        let sealed = store.event_token_sealed(slug).ok().flatten();
        let mut tokens = lock(&self.opened);
        let expected = match sealed {
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
                tokens.get(slug).map(|(_, t)| t)
            }
            None => {
                tokens.remove(slug);
                None
            }
        };
        self.compare(expected, presented)
    }

    /// Same work whether or not the slug has a token: one constant-time
    /// comparison, with the dummy when there is none.
    fn compare(&self, expected: Option<&Sensitive>, presented: &[u8]) -> bool {
        let against = expected.unwrap_or(&self.dummy);
        let equal: bool = against.expose().as_bytes().ct_eq(presented).into();
        equal && expected.is_some()
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
