//! Linux: the vault key in the Secret Service, with the kernel key store
//! (keyutils) as its cache and as the fallback.
//!
//! ## Two places
//!
//! * **The Secret Service** (GNOME Keyring, KWallet), over the D-Bus session
//!   bus: kept on disk, encrypted with the login password, so the key
//!   survives a reboot. An item with the attributes `service`
//!   [`SERVICE`], `username` `vault-key-<profile_id>`, `target` `default`
//!   (keyring's own layout, so `secret-tool search service SERVICE` finds
//!   it), in the default collection ("login").
//! * **keyutils**, the kernel's key store: in memory only, cleared by a
//!   reboot and by the persistent keyring's expiry (three days without any
//!   use by default, `/proc/sys/kernel/keys/persistent_keyring_expiry`).
//!
//! Reading tries keyutils first and goes to the Secret Service only when
//! keyutils has nothing, then puts what it found back into keyutils. So the
//! Secret Service is asked once per key per boot, not on every seal and
//! open: a D-Bus round trip per secret would be slow, and a locked login
//! keyring would prompt the player each time. Writing goes to the Secret
//! Service first, then to keyutils; deleting removes both.
//!
//! Where no Secret Service answers — no D-Bus session bus (a server, a CI
//! job, a console login), or nothing owning `org.freedesktop.secrets`, or a
//! Secret Service without a default collection — keyutils alone keeps the
//! key, and [`persistence`] says [`Persistence::UntilRestart`] so the
//! player can be warned. When the Secret Service answers but fails (the
//! player dismissed the unlock prompt), the operation fails: falling back
//! silently would trade a visible error for secrets lost at the next reboot.
//!
//! A key that keyutils holds but the Secret Service does not (made while no
//! Secret Service answered, or by a version that only used keyutils) is
//! copied to the Secret Service the first time this process reads it, so it
//! too survives the next reboot.
//!
//! ## keyutils: the persistent keyring, not the session keyring
//!
//! keyring 3's keyutils store adds a key to the caller's *session* keyring,
//! links it into the user's *persistent* keyring, and looks it up by
//! searching the session keyring. That finds the key again from any
//! process of a login session (pam_keyinit gives each login a session
//! keyring, and keyring links the persistent keyring into it). But a process
//! that has no session keyring of its own — a service, a CI job, a shell
//! started without PAM, as on the machines this was built on — searches the
//! shared user-session keyring, which the persistent keyring is never
//! linked into: a key stored by one such process is **not** found by the
//! next one (verified here: two processes started one after the other; it
//! only worked when both ran under `keyctl session`, or when the second was
//! a child of the first and inherited its session keyring).
//!
//! So the keyutils credential is one of our own
//! (`keyring::keyutils::KeyutilsCredential`, built with
//! `Entry::new_with_credential`) whose keyring is the user's persistent
//! keyring itself (`keyctl_get_persistent`, linked into the caller's
//! session keyring so the caller possesses it): the key is added to it and
//! searched in it. Any process of the same user finds it, with or without a
//! login session. (A process that had no session keyring gets an anonymous
//! one from the kernel for that link; nothing outside the process sees it.)
//! If the kernel has no persistent keyrings, the user keyring (`@u`) is used
//! instead, which lives as long as the user has a process.
//!
//! keyutils is required even where a Secret Service answers: a sandbox that
//! forbids the `keyctl` system calls gets `vault_unavailable`.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, PoisonError};

use dbus_secret_service::{EncryptionType, SecretService};
use keyring::secret_service::SsCredential;
use linux_keyutils::{KeyRing, KeyRingIdentifier};

use crate::error::KeyStoreError;
use crate::key_store::{describe, read_key, OsKeyStore, Persistence, VaultKey, SERVICE};

/// Profiles whose key this process has already checked is in the Secret
/// Service, so the copy of a keyutils-only key is tried once, not on every
/// read.
static CHECKED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// How long keys last here: across reboots when a Secret Service answers.
pub(crate) fn persistence() -> Persistence {
    if secret_service_answers() {
        Persistence::Persistent
    } else {
        Persistence::UntilRestart
    }
}

/// The key of `profile_id`: from keyutils, else from the Secret Service
/// (and then cached in keyutils).
pub(crate) fn load(profile_id: &str) -> Result<Option<VaultKey>, KeyStoreError> {
    let cache = cache_entry(profile_id)?;
    if let Some(key) = read_key(&cache)? {
        keep_across_reboots(profile_id, &key);
        return Ok(Some(key));
    }
    let Some(lasting) = secret_service_entry(profile_id)? else {
        return Ok(None);
    };
    let Some(key) = read_key(&lasting)? else {
        return Ok(None);
    };
    // A cache that can't be refilled only costs another D-Bus round trip
    // next time; the key itself is fine.
    let _ = cache.set_password(&key.to_hex());
    Ok(Some(key))
}

/// Stores `key` in the Secret Service (when one answers), then in keyutils.
pub(crate) fn store(profile_id: &str, key: &VaultKey) -> Result<(), KeyStoreError> {
    let cache = cache_entry(profile_id)?;
    if let Some(lasting) = secret_service_entry(profile_id)? {
        lasting.set_password(&key.to_hex()).map_err(describe)?;
    }
    cache.set_password(&key.to_hex()).map_err(describe)
}

/// Deletes the key from both places; a missing key is not an error.
pub(crate) fn delete(profile_id: &str) -> Result<(), KeyStoreError> {
    mark_checked(profile_id, false);
    delete_entry(&cache_entry(profile_id)?)?;
    match secret_service_entry(profile_id)? {
        Some(lasting) => delete_entry(&lasting),
        None => Ok(()),
    }
}

fn delete_entry(entry: &keyring::Entry) -> Result<(), KeyStoreError> {
    match entry.delete_credential() {
        Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(err) => Err(describe(err)),
    }
}

/// Copies a key found only in keyutils to the Secret Service, once per
/// profile and process. Best effort: the key still works until the reboot
/// if this fails, and the next process tries again.
fn keep_across_reboots(profile_id: &str, key: &VaultKey) {
    if !mark_checked(profile_id, true) {
        return;
    }
    // Only when it has none: a *different* key there is left alone, since
    // secrets sealed after it went missing from keyutils use the cached one
    // and overwriting either would lose some of them.
    if secret_service_holds(profile_id) != Some(false) {
        return;
    }
    if let Ok(Some(lasting)) = secret_service_entry(profile_id) {
        let _ = lasting.set_password(&key.to_hex());
    }
}

/// Whether the Secret Service has an item for `profile_id`; `None` when it
/// can't be asked. A search, unlike a read, never unlocks the keyring, so
/// this check alone never makes the desktop prompt for the login password.
fn secret_service_holds(profile_id: &str) -> Option<bool> {
    if !session_bus_configured() {
        return None;
    }
    let service = SecretService::connect(EncryptionType::Plain).ok()?;
    let user = OsKeyStore::user_name(profile_id);
    // The attributes keyring searches by (see `SsCredential`).
    let attributes = HashMap::from([("service", SERVICE), ("username", user.as_str()), ("target", "default")]);
    let found = service.search_items(attributes).ok()?;
    Some(!found.unlocked.is_empty() || !found.locked.is_empty())
}

/// Records (or forgets) that `profile_id` was checked; true if that changed
/// anything.
fn mark_checked(profile_id: &str, checked: bool) -> bool {
    let mut set = CHECKED.lock().unwrap_or_else(PoisonError::into_inner);
    if checked {
        set.insert(profile_id.to_owned())
    } else {
        set.remove(profile_id)
    }
}

/// The keyutils entry of `profile_id`, in the user's persistent keyring.
fn cache_entry(profile_id: &str) -> Result<keyring::Entry, KeyStoreError> {
    let ring = KeyRing::get_persistent(KeyRingIdentifier::Session)
        .or_else(|_| KeyRing::from_special_id(KeyRingIdentifier::User, true))
        .map_err(|err| KeyStoreError::Unavailable(format!("the kernel key store can't be reached: {err}")))?;
    // The same description keyring's own keyutils store would use.
    let credential = keyring::keyutils::KeyutilsCredential {
        session: ring,
        persistent: None,
        description: format!("keyring-rs:{}@{SERVICE}", OsKeyStore::user_name(profile_id)),
    };
    Ok(keyring::Entry::new_with_credential(Box::new(credential)))
}

/// The Secret Service entry of `profile_id`, or `None` when no Secret
/// Service answers (then keyutils alone keeps the key).
fn secret_service_entry(profile_id: &str) -> Result<Option<keyring::Entry>, KeyStoreError> {
    if !secret_service_answers() {
        return Ok(None);
    }
    let credential =
        SsCredential::new_with_target(None, SERVICE, &OsKeyStore::user_name(profile_id)).map_err(describe)?;
    Ok(Some(keyring::Entry::new_with_credential(Box::new(credential))))
}

/// Whether a Secret Service with a default collection answers on the
/// session bus. Asked before every use rather than once: the desktop may
/// start (or stop) its keyring while the app runs.
fn secret_service_answers() -> bool {
    if !session_bus_configured() {
        return false;
    }
    // Plain: nothing secret crosses the bus here, so no key exchange.
    match SecretService::connect(EncryptionType::Plain) {
        // keyring creates items in the default collection only.
        Ok(service) => service.get_default_collection().is_ok(),
        Err(_) => false,
    }
}

/// Whether this process has a session bus to ask. Checked first because
/// libdbus, given none, "autolaunches" a new bus daemon when `DISPLAY` is
/// set: a stray process, and a bus with no Secret Service on it anyway.
fn session_bus_configured() -> bool {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|address| !address.is_empty()) {
        return true;
    }
    // Where libdbus and systemd put the user's bus when the variable is unset.
    std::env::var_os("XDG_RUNTIME_DIR")
        .is_some_and(|dir| !dir.is_empty() && std::path::Path::new(&dir).join("bus").exists())
}
