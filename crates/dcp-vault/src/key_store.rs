//! Where the vault key lives: the [`KeyStore`] trait and the real one,
//! [`OsKeyStore`].
//!
//! Each profile has one vault key: 32 bytes from the OS random generator,
//! kept by the operating system's credential store and nowhere else. This
//! is what ties a secret to "this PC and this account" (§11): the profile
//! folder holds only ciphertexts, so a copied profile can't be read.
//!
//! [`OsKeyStore`] goes through the `keyring` crate (v3) to
//!
//! * Windows Credential Manager (`windows-native`), tied to the Windows
//!   account;
//! * the macOS Keychain (`apple-native`);
//! * on Linux, the Secret Service (GNOME Keyring, KWallet; keyring's
//!   `sync-secret-service`, with pure-Rust `crypto-rust`), with the kernel
//!   key store, keyutils (`linux-native`), as its cache and as the fallback
//!   where no Secret Service answers (see `linux_store.rs`).
//!
//! ## How long the key lasts: [`Persistence`]
//!
//! Windows, macOS and a Linux desktop with a Secret Service keep the key on
//! disk, tied to the account: [`Persistence::Persistent`]. A Linux PC
//! without one (no D-Bus session, or nothing answering for the Secret
//! Service) keeps it only in kernel memory: [`Persistence::UntilRestart`] —
//! a reboot (or three days without use) clears it, and every secret then
//! shows "Needs setup" and is asked again. [`KeyStore::persistence`] says
//! which, so the app and the CLI can tell the player *before* that happens
//! ([`Persistence::warning`]).
//!
//! The entry is named service [`SERVICE`], user `vault-key-<profile_id>`
//! (on Linux the keyutils description keyring itself would use,
//! `keyring-rs:vault-key-<profile_id>@com.desktopaicompanion.plugins`,
//! visible with `keyctl show %:_persistent.<uid>`), and holds the key as
//! 64 lowercase hex characters (some stores only keep text).
//!
//! On a platform where keyring has no real store it falls back to a mock
//! that forgets everything; [`OsKeyStore`] refuses to use that and reports
//! the store as unavailable instead, so nothing pretends to be saved.
//! On Linux, a kernel without keyutils (or a sandbox that forbids the
//! `keyctl` system calls) gives the same: unavailable, `vault_unavailable`.
//!
//! The trait exists so that tests whose subject is not the OS store can use
//! [`crate::testing::MemoryKeyStore`], and so that `vault_unavailable` can be
//! tested with [`crate::testing::UnavailableKeyStore`].

use std::fmt;
use std::sync::{Mutex, PoisonError};

#[cfg(not(target_os = "linux"))]
use keyring::credential::CredentialPersistence;
use zeroize::{Zeroize, Zeroizing};

use crate::error::KeyStoreError;
use crate::token::{from_hex, to_hex};

/// The credential-store service name under which vault keys are kept.
pub const SERVICE: &str = "com.desktopaicompanion.plugins";

/// Length of a vault key in bytes.
pub const KEY_LEN: usize = 32;

/// Serializes [`KeyStore::get_or_create`] within the process.
static CREATE_LOCK: Mutex<()> = Mutex::new(());

/// A 32-byte vault key. Redacted in `Debug`, wiped on drop, never
/// serialized.
pub struct VaultKey(Zeroizing<[u8; KEY_LEN]>);

impl VaultKey {
    /// A fresh key from the OS random generator.
    pub fn generate() -> Result<Self, KeyStoreError> {
        let mut bytes = Zeroizing::new([0u8; KEY_LEN]);
        getrandom::fill(bytes.as_mut())
            .map_err(|err| KeyStoreError::Unavailable(format!("the OS random generator failed: {err}")))?;
        Ok(VaultKey(bytes))
    }

    /// Wraps existing key bytes (for key stores).
    pub fn from_bytes(bytes: [u8; KEY_LEN]) -> Self {
        VaultKey(Zeroizing::new(bytes))
    }

    /// The key bytes.
    pub fn expose(&self) -> &[u8; KEY_LEN] {
        &self.0
    }

    /// The key as 64 lowercase hex characters, wiped when dropped.
    pub fn to_hex(&self) -> Zeroizing<String> {
        Zeroizing::new(to_hex(self.expose()))
    }

    /// Parses 64 hex characters; `None` for anything else.
    pub fn from_hex(text: &str) -> Option<Self> {
        let mut bytes = Zeroizing::new(from_hex(text)?);
        let key: [u8; KEY_LEN] = bytes.as_slice().try_into().ok()?;
        bytes.zeroize();
        Some(VaultKey::from_bytes(key))
    }
}

impl fmt::Debug for VaultKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VaultKey({})", crate::mask::MASK)
    }
}

dcp_format::spelled! {
    /// How long a key store keeps its keys: whether secrets survive a restart
    /// of the PC. Spelled for JSON and logs.
    pub enum Persistence {
        /// Kept on disk by the OS, tied to the account (Windows Credential
        /// Manager, macOS Keychain, a Linux Secret Service).
        Persistent => "persistent",
        /// Kept in memory only (the Linux kernel key store where no Secret
        /// Service answers): a restart of the PC forgets the key, and every
        /// secret is asked again.
        UntilRestart => "until_restart",
    }
}

impl Persistence {
    /// The sentence to show the player next to secret settings, or `None`
    /// when there is nothing to warn about.
    pub fn warning(self) -> Option<&'static str> {
        match self {
            Persistence::Persistent => None,
            Persistence::UntilRestart => Some(
                "Secrets are kept only until this PC restarts: no keyring (such as GNOME Keyring or KWallet) \
                 is running, so plugins will ask for them again after a restart.",
            ),
        }
    }
}

/// Which credential store [`OsKeyStore`] keeps vault keys in on this
/// platform ([`CredentialStore::THIS_PLATFORM`]): a fact the shells word
/// where they tell the player where secrets are kept, or what to start
/// when the store refuses (`vault_unavailable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialStore {
    /// The Windows Credential Manager, tied to the Windows account.
    WindowsCredentialManager,
    /// The macOS Keychain (the login keychain).
    MacosKeychain,
    /// A Secret Service (GNOME Keyring, KWallet), with the kernel key store
    /// as its cache and the fallback (see `linux_store.rs`).
    SecretService,
    /// A platform where keyring has no store: every seal is refused.
    None,
}

impl CredentialStore {
    /// The store [`OsKeyStore`] uses on the platform this was built for.
    pub const THIS_PLATFORM: CredentialStore = if cfg!(windows) {
        CredentialStore::WindowsCredentialManager
    } else if cfg!(target_os = "macos") {
        CredentialStore::MacosKeychain
    } else if cfg!(any(target_os = "linux", target_os = "freebsd", target_os = "openbsd")) {
        CredentialStore::SecretService
    } else {
        CredentialStore::None
    };
}

/// Holds one vault key per profile.
///
/// Implementations must be safe to share between threads. `load` never
/// creates a key: only [`KeyStore::get_or_create`] does, and only the vault
/// calls it, when *sealing*. Opening with a missing key is therefore
/// reported as missing, never papered over with a new key.
pub trait KeyStore: Send + Sync {
    /// The key of `profile_id`, or `Ok(None)` if there is none.
    fn load(&self, profile_id: &str) -> Result<Option<VaultKey>, KeyStoreError>;

    /// Stores `key` as the key of `profile_id`, replacing any other.
    fn store(&self, profile_id: &str, key: &VaultKey) -> Result<(), KeyStoreError>;

    /// Deletes the key of `profile_id`. Deleting a missing key is not an
    /// error. Every secret sealed with it becomes unreadable.
    fn delete(&self, profile_id: &str) -> Result<(), KeyStoreError>;

    /// How long this store keeps keys, as of now. Stores that forget keys
    /// at a restart must say so; the default is for those that don't.
    ///
    /// May ask the OS (on Linux, a D-Bus round trip): call it when showing
    /// secret settings or at start-up, not on every seal.
    fn persistence(&self) -> Persistence {
        Persistence::Persistent
    }

    /// The key of `profile_id`, made from the OS random generator and stored
    /// first if there is none. An unreadable existing entry is an error
    /// ([`KeyStoreError::Corrupt`]), not replaced.
    ///
    /// After storing, the key is read back and the stored one returned, so
    /// a store that silently drops writes is caught here, before anything is
    /// sealed with a key that will not be found again.
    ///
    /// Calls are serialized within the process, so two threads sealing the
    /// first secrets of a profile at once cannot each make a key and have
    /// one overwrite the other (which would leave the loser's ciphertext
    /// unreadable). Two *processes* doing so at the same instant still
    /// could; the app runs one instance per profile.
    fn get_or_create(&self, profile_id: &str) -> Result<VaultKey, KeyStoreError> {
        let _serialized = CREATE_LOCK.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(key) = self.load(profile_id)? {
            return Ok(key);
        }
        let key = VaultKey::generate()?;
        self.store(profile_id, &key)?;
        self.load(profile_id)?
            .ok_or_else(|| KeyStoreError::Unavailable("the credential store did not keep the vault key".into()))
    }
}

/// The operating system's credential store, through the `keyring` crate.
/// See the module documentation for what each platform does.
#[derive(Debug, Default, Clone, Copy)]
pub struct OsKeyStore {
    _private: (),
}

impl OsKeyStore {
    /// The OS credential store. Creating it touches nothing; every call
    /// goes to the store.
    pub fn new() -> Self {
        OsKeyStore { _private: () }
    }

    /// The credential-store user name of `profile_id`'s key.
    pub fn user_name(profile_id: &str) -> String {
        format!("vault-key-{profile_id}")
    }

    #[cfg(not(target_os = "linux"))]
    fn entry(&self, profile_id: &str) -> Result<keyring::Entry, KeyStoreError> {
        // keyring falls back to an in-memory mock where it has no real
        // store; a key kept there would vanish with the process.
        match keyring::default::default_credential_builder().persistence() {
            CredentialPersistence::EntryOnly | CredentialPersistence::ProcessOnly => {
                return Err(KeyStoreError::Unavailable("no persistent credential store on this platform".into()));
            }
            _ => {}
        }
        keyring::Entry::new(SERVICE, &Self::user_name(profile_id)).map_err(describe)
    }
}

#[cfg(target_os = "linux")]
impl KeyStore for OsKeyStore {
    fn load(&self, profile_id: &str) -> Result<Option<VaultKey>, KeyStoreError> {
        crate::linux_store::load(profile_id)
    }

    fn store(&self, profile_id: &str, key: &VaultKey) -> Result<(), KeyStoreError> {
        crate::linux_store::store(profile_id, key)
    }

    fn delete(&self, profile_id: &str) -> Result<(), KeyStoreError> {
        crate::linux_store::delete(profile_id)
    }

    fn persistence(&self) -> Persistence {
        crate::linux_store::persistence()
    }
}

/// Elsewhere the platform store (see `entry`) keeps keys on disk: the
/// default [`KeyStore::persistence`] holds.
#[cfg(not(target_os = "linux"))]
impl KeyStore for OsKeyStore {
    fn load(&self, profile_id: &str) -> Result<Option<VaultKey>, KeyStoreError> {
        read_key(&self.entry(profile_id)?)
    }

    fn store(&self, profile_id: &str, key: &VaultKey) -> Result<(), KeyStoreError> {
        self.entry(profile_id)?.set_password(&key.to_hex()).map_err(describe)
    }

    fn delete(&self, profile_id: &str) -> Result<(), KeyStoreError> {
        match self.entry(profile_id)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(err) => Err(describe(err)),
        }
    }
}

/// The vault key held by `entry`, `None` if it has none; an entry that is
/// not a key is [`KeyStoreError::Corrupt`], its content wiped unread.
pub(crate) fn read_key(entry: &keyring::Entry) -> Result<Option<VaultKey>, KeyStoreError> {
    match entry.get_password() {
        Ok(text) => {
            let text = Zeroizing::new(text);
            VaultKey::from_hex(&text).map(Some).ok_or(KeyStoreError::Corrupt)
        }
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(keyring::Error::BadEncoding(mut bytes)) => {
            bytes.zeroize();
            Err(KeyStoreError::Corrupt)
        }
        Err(err) => Err(describe(err)),
    }
}

/// A keyring error reduced to words that cannot carry a stored value
/// (`BadEncoding` holds the raw bytes of the entry, so its content is never
/// printed).
pub(crate) fn describe(err: keyring::Error) -> KeyStoreError {
    let text = match err {
        keyring::Error::PlatformFailure(inner) => {
            format!("the credential store failed: {inner}")
        }
        keyring::Error::NoStorageAccess(inner) => {
            format!("the credential store can't be reached: {inner}")
        }
        keyring::Error::NoEntry => "no entry in the credential store".into(),
        keyring::Error::BadEncoding(mut bytes) => {
            bytes.zeroize();
            return KeyStoreError::Corrupt;
        }
        keyring::Error::TooLong(attr, limit) => {
            format!("the credential store refused a {attr} longer than {limit}")
        }
        keyring::Error::Invalid(attr, reason) => {
            format!("the credential store refused the {attr}: {reason}")
        }
        keyring::Error::Ambiguous(_) => "the credential store holds several entries for this vault key".into(),
        _ => "the credential store failed".into(),
    };
    KeyStoreError::Unavailable(text)
}
