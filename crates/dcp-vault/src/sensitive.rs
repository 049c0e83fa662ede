//! [`Sensitive`]: a secret value that cannot leak by accident.
//!
//! A plugin secret moves from the settings form to the vault, and from the
//! vault to the request builder, inside this wrapper. It exists so that the
//! ordinary ways a value escapes — a `{:?}` in a log line, a `to_string()`
//! in an error message, a `Serialize` on its way over IPC or into the action
//! journal — all fail closed:
//!
//! * `Debug` and `Display` print `[secret]` (the placeholder of §11);
//! * `Serialize` returns an error instead of the value;
//! * the buffer is zeroized when the value is dropped.
//!
//! `Deserialize` works, because a secret may come *in* (from the settings
//! form), it just never goes back out. The value is read only through the
//! explicit [`Sensitive::expose`], which is easy to find in review.
//!
//! Modelled on GitButler's `Sensitive<T>`; kept to `String` because every
//! secret of the plugin format is text (§10: `sensitive` is for text fields).

use std::fmt;

use crate::mask::MASK;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use zeroize::Zeroize;

/// A secret string: redacted when printed, refused when serialized, wiped
/// on drop.
///
/// It deliberately implements neither `Clone` nor `PartialEq`: every copy of
/// a secret in memory is one more to wipe, and comparing secrets is not
/// something the app needs.
pub struct Sensitive(String);

impl Sensitive {
    /// Wraps a secret. The `String` is moved in, not copied.
    pub fn new(value: String) -> Self {
        Sensitive(value)
    }

    /// The secret in clear. Call it only where the value is really needed
    /// (filling the auth block of a request, sealing it).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the secret is the empty string.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for Sensitive {
    fn from(value: String) -> Self {
        Sensitive::new(value)
    }
}

impl From<&str> for Sensitive {
    fn from(value: &str) -> Self {
        Sensitive::new(value.to_owned())
    }
}

impl Drop for Sensitive {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl fmt::Debug for Sensitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(MASK)
    }
}

impl fmt::Display for Sensitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(MASK)
    }
}

impl Serialize for Sensitive {
    fn serialize<S: Serializer>(&self, _serializer: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(format_args!("a secret cannot be serialized; it is shown as {MASK}")))
    }
}

impl<'de> Deserialize<'de> for Sensitive {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Sensitive::new)
    }
}
