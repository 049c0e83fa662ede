//! The vault: plugin secrets at rest (spec §10, §11, §18, §22).
//!
//! A plugin secret (a setting with `"sensitive": true`) is typed by the
//! player, sealed here, and stored by the caller as an opaque byte string.
//! This crate owns the two things that make that safe:
//!
//! * the **vault key**, 32 random bytes per profile, held by the operating
//!   system's credential store ([`OsKeyStore`]) and never written to the
//!   profile folder, so a profile copied to another PC or account cannot be
//!   decrypted there (§11); [`Persistence`] says whether that store keeps
//!   it across a restart of the PC, so the player can be warned where it
//!   does not (Linux without a Secret Service);
//! * the **seal**, an XChaCha20-Poly1305 ciphertext bound to its plugin and
//!   setting ([`Vault::seal`], [`Vault::open`]), so a ciphertext moved to
//!   another row does not decrypt.
//!
//! A secret travels inside [`Sensitive`], which prints `[secret]`, refuses
//! to serialize and is wiped from memory when dropped; wherever a server
//! may echo one back, [`mask::Masker`] replaces every spelling of it by the
//! same `[secret]` (§11: a plugin's secrets; the companion's AI key).
//!
//! *Architecture invariant:* this is the only crate in which a secret is in
//! clear outside a [`Sensitive`], and the only one that talks to the OS
//! credential store. It opens no file, no database and no socket; the caller
//! (the store) decides where ciphertexts live.
//!
//! *API boundary:* [`Vault`], [`Sensitive`], [`VaultError`] (with
//! [`VaultError::code`]), the [`KeyStore`] trait and its implementations,
//! [`Persistence`] (with [`Vault::persistence`]), [`CredentialStore`],
//! [`random_token_hex`],
//! and the masker ([`mask::Masker`], [`mask::MaskStream`]).

#![deny(missing_docs)]

pub mod error;
pub mod key_store;
#[cfg(target_os = "linux")]
mod linux_store;
pub mod mask;
pub mod sensitive;
pub mod testing;
pub mod token;
pub mod vault;

pub use error::{KeyStoreError, VaultError};
pub use key_store::{CredentialStore, KeyStore, OsKeyStore, Persistence, VaultKey, KEY_LEN, SERVICE};
pub use sensitive::Sensitive;
pub use token::random_token_hex;
pub use vault::{Vault, FORMAT_V1};
