//! What can go wrong in the vault, and what the player is told.
//!
//! Two outcomes matter to the rest of the app (§18, §22):
//!
//! * **the vault cannot be used at all** ([`VaultError::Unavailable`], code
//!   `vault_unavailable`): no credential store works on this PC, so a secret
//!   can't be saved. Saving fails; nothing is ever written in clear instead.
//! * **a stored secret can't be read on this PC** ([`VaultError::KeyMissing`],
//!   [`VaultError::CannotDecrypt`], [`VaultError::Malformed`]): the plugin
//!   shows "Needs setup" and asks for the secret again
//!   ([`VaultError::needs_setup`]). The three are kept apart so that a log
//!   or a test can tell "this PC has no key for the profile" (a reboot
//!   cleared the kernel store, or the profile was copied here) from "there
//!   is a key but this ciphertext was not sealed with it for this row".
//!
//! No message here ever contains a secret or a key: the variants carry no
//! value from the caller, and messages from the OS store are reduced to
//! their kind before they get here (see [`KeyStoreError`]).

use thiserror::Error;

/// An error from [`crate::Vault`].
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum VaultError {
    /// No credential store works on this PC: a secret can't be saved
    /// (spec code `vault_unavailable`).
    #[error("encryption is not available on this PC, so a secret can't be saved: {reason}")]
    Unavailable {
        /// Why, for the technical details; never contains a secret.
        reason: String,
    },
    /// The credential store has no vault key for this profile, so nothing
    /// sealed earlier can be read: a reboot cleared the kernel key store, or
    /// the profile was copied from another PC or account. "Needs setup".
    #[error("this PC has no vault key for this profile, so the secret can't be read here")]
    KeyMissing,
    /// A vault key exists but this ciphertext does not open with it for this
    /// plugin and setting: the key was replaced, the profile was copied
    /// between accounts, or the bytes were altered or moved to another row.
    /// "Needs setup".
    #[error("the secret can't be decrypted on this PC (sealed with another key, or for another plugin or setting)")]
    CannotDecrypt,
    /// The bytes are not a vault ciphertext at all (empty, truncated, or an
    /// unknown format version). "Needs setup".
    #[error("the stored secret is not a vault ciphertext: {0}")]
    Malformed(&'static str),
}

impl VaultError {
    /// Whether the plugin should show "Needs setup" and ask for the secret
    /// again (every error except [`VaultError::Unavailable`]).
    pub fn needs_setup(&self) -> bool {
        !matches!(self, VaultError::Unavailable { .. })
    }
}

/// An error from a [`crate::KeyStore`].
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyStoreError {
    /// The credential store can't be used (none on this platform, access
    /// refused, a platform failure). The text names the kind of failure and
    /// never contains a stored value.
    #[error("{0}")]
    Unavailable(String),
    /// An entry exists under the vault key's name but is not a 32-byte key
    /// (someone or something else wrote it). It is left alone, never
    /// overwritten silently.
    #[error("the vault key stored for this profile is unreadable")]
    Corrupt,
}

impl From<KeyStoreError> for VaultError {
    /// How a key-store failure looks when *saving*: the vault can't be used.
    /// (When *opening*, [`crate::Vault::open`] maps
    /// [`KeyStoreError::Corrupt`] to [`VaultError::CannotDecrypt`] itself.)
    fn from(err: KeyStoreError) -> Self {
        VaultError::Unavailable { reason: err.to_string() }
    }
}
