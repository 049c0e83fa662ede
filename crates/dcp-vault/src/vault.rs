//! [`Vault`]: sealing and opening one secret of one plugin setting.
//!
//! The store keeps, for each secret setting of each installed plugin, the
//! bytes returned by [`Vault::seal`], and gets the secret back with
//! [`Vault::open`]. This module is the only place the secret is in clear
//! outside a [`Sensitive`].
//!
//! # Ciphertext format, version 1
//!
//! ```text
//! [0x01] [24-byte nonce] [XChaCha20-Poly1305 ciphertext of the UTF-8 secret, with its 16-byte tag]
//! ```
//!
//! * The nonce is fresh from the OS random generator for every seal, so two
//!   seals of the same secret differ; 24 bytes make random nonces safe for
//!   any number of seals under one key.
//! * The associated data binds the ciphertext to its row:
//!   `"dcp-secret-v1\0"`, then the plugin slug and the setting key, each
//!   preceded by its length as 4 big-endian bytes. A ciphertext copied into
//!   another plugin's or another setting's row does not decrypt. Lengths,
//!   not separators, so no pair of strings can be confused with another.
//! * The leading version byte lets a later format (another algorithm, a
//!   rotated key) be read alongside this one.
//!
//! # Keys
//!
//! Sealing creates the profile's key if there is none yet
//! ([`crate::KeyStore::get_or_create`]). Opening never does: a missing key
//! is [`VaultError::KeyMissing`], distinct from a key that does not open the
//! ciphertext ([`VaultError::CannotDecrypt`]). The key is fetched from the
//! key store on every call and not cached, so a key deleted or cleared
//! outside the app is noticed at once.

use std::sync::Arc;

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{KeyStoreError, VaultError};
use crate::key_store::{KeyStore, Persistence, VaultKey};
use crate::sensitive::Sensitive;

/// The version byte of the current ciphertext format.
pub const FORMAT_V1: u8 = 1;

const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
const AAD_PREFIX: &[u8] = b"dcp-secret-v1\0";

/// Seals and opens the secrets of one profile.
///
/// Cheap to clone; clones share the key store.
#[derive(Clone)]
pub struct Vault {
    key_store: Arc<dyn KeyStore>,
    profile_id: String,
}

impl std::fmt::Debug for Vault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vault").field("profile_id", &self.profile_id).finish_non_exhaustive()
    }
}

impl Vault {
    /// The vault of `profile_id`, whose key is kept in `key_store`
    /// (in the app: `Arc::new(OsKeyStore::new())`).
    ///
    /// `profile_id` names the key in the credential store; it must be
    /// stable for the life of the profile (a UUID kept in the profile is a
    /// good choice) and must not be shared by two profiles.
    pub fn new(key_store: Arc<dyn KeyStore>, profile_id: impl Into<String>) -> Self {
        Vault { key_store, profile_id: profile_id.into() }
    }

    /// How long this profile's key is kept ([`KeyStore::persistence`]).
    /// With [`Persistence::UntilRestart`], show [`Persistence::warning`]
    /// where secrets are typed: they will be asked again after a restart.
    pub fn persistence(&self) -> Persistence {
        self.key_store.persistence()
    }

    /// The profile this vault belongs to.
    pub fn profile_id(&self) -> &str {
        &self.profile_id
    }

    /// Encrypts `secret` for setting `setting_key` of plugin `slug`.
    ///
    /// Creates the profile's key on first use. Fails with
    /// [`VaultError::Unavailable`] (`vault_unavailable`) when no credential
    /// store works, or when the stored key is unreadable (it is never
    /// replaced silently); nothing is returned in clear.
    pub fn seal(&self, slug: &str, setting_key: &str, secret: &Sensitive) -> Result<Vec<u8>, VaultError> {
        let key = self.key_store.get_or_create(&self.profile_id)?;
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce)
            .map_err(|err| VaultError::Unavailable { reason: format!("the OS random generator failed: {err}") })?;
        let aad = associated_data(slug, setting_key);
        let sealed = cipher(&key)
            .encrypt(XNonce::from_slice(&nonce), Payload { msg: secret.expose().as_bytes(), aad: &aad })
            .map_err(|_| VaultError::Unavailable { reason: "encryption failed".into() })?;
        let mut out = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
        out.push(FORMAT_V1);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(out)
    }

    /// Decrypts what [`Vault::seal`] returned for the same `slug` and
    /// `setting_key`.
    ///
    /// Never panics, whatever `ciphertext` holds. Errors:
    /// [`VaultError::Malformed`] for bytes that are not a version-1
    /// ciphertext, [`VaultError::KeyMissing`] when the profile has no key on
    /// this PC, [`VaultError::CannotDecrypt`] when the key does not open
    /// these bytes for this row (or the stored key is unreadable),
    /// [`VaultError::Unavailable`] when the credential store can't be
    /// reached.
    pub fn open(&self, slug: &str, setting_key: &str, ciphertext: &[u8]) -> Result<Sensitive, VaultError> {
        let (version, rest) = ciphertext.split_first().ok_or(VaultError::Malformed("empty"))?;
        if *version != FORMAT_V1 {
            return Err(VaultError::Malformed("unknown format version"));
        }
        if rest.len() < NONCE_LEN + TAG_LEN {
            return Err(VaultError::Malformed("truncated"));
        }
        let (nonce, sealed) = rest.split_at(NONCE_LEN);

        let key = match self.key_store.load(&self.profile_id) {
            Ok(Some(key)) => key,
            Ok(None) => return Err(VaultError::KeyMissing),
            Err(KeyStoreError::Corrupt) => return Err(VaultError::CannotDecrypt),
            Err(err) => return Err(err.into()),
        };
        let aad = associated_data(slug, setting_key);
        let plain = cipher(&key)
            .decrypt(XNonce::from_slice(nonce), Payload { msg: sealed, aad: &aad })
            .map_err(|_| VaultError::CannotDecrypt)?;
        match String::from_utf8(plain) {
            Ok(text) => Ok(Sensitive::new(text)),
            Err(err) => {
                // Authenticated but not UTF-8: not something `seal` wrote.
                err.into_bytes().zeroize();
                Err(VaultError::CannotDecrypt)
            }
        }
    }

    /// Deletes this profile's key from the key store: every secret sealed
    /// with it becomes unreadable. For deleting a profile; uninstalling one
    /// plugin only deletes its rows.
    pub fn delete_key(&self) -> Result<(), VaultError> {
        Ok(self.key_store.delete(&self.profile_id)?)
    }
}

fn cipher(key: &VaultKey) -> XChaCha20Poly1305 {
    XChaCha20Poly1305::new(Key::from_slice(key.expose()))
}

/// `"dcp-secret-v1\0" ‖ len(slug) ‖ slug ‖ len(key) ‖ key`, lengths as u32
/// big-endian.
fn associated_data(slug: &str, setting_key: &str) -> Zeroizing<Vec<u8>> {
    let mut aad = Vec::with_capacity(AAD_PREFIX.len() + 8 + slug.len() + setting_key.len());
    aad.extend_from_slice(AAD_PREFIX);
    for part in [slug, setting_key] {
        // Slugs and setting keys are a few dozen bytes (§5, §10); saturating
        // keeps this total even for absurd input, where the length prefix
        // still differs from any real one.
        let len = u32::try_from(part.len()).unwrap_or(u32::MAX);
        aad.extend_from_slice(&len.to_be_bytes());
        aad.extend_from_slice(part.as_bytes());
    }
    Zeroizing::new(aad)
}
