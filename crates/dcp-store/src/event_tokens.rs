//! Event tokens (§16): one per plugin with events, 64 characters 0-9a-f
//! from the OS random generator, sealed by the vault like a secret and bound
//! to the plugin (a sealed token copied to another plugin's row does not
//! open). Made when first asked; [`Store::new_event_token`] replaces it, and
//! the door compares against the stored value on every request, so the old
//! token stops working at once. A token is never written to the journal.

use crate::error::StoreError;
use crate::Store;
use dcp_vault::{random_token_hex, Sensitive};
use rusqlite::{params, OptionalExtension};

/// The vault's binding name for event tokens. `@` cannot start a setting
/// key, so a token never opens as a setting's secret and the reverse.
const TOKEN_KEY: &str = "@event-token";

/// Random bytes in a token (64 hex characters).
pub const TOKEN_BYTES: usize = 32;

impl Store {
    /// The plugin's event token, made now if it has none (or if the stored
    /// one cannot be opened on this PC). Refused for a plugin without events.
    pub fn event_token(&self, slug: &str) -> Result<Sensitive, StoreError> {
        self.check_has_events(slug)?;
        // Read and make under the write lock: two windows or processes
        // asking for the first token at once get the same one, never two
        // where the last write silently wins.
        let tx = self.write_tx()?;
        if let Some(sealed) = self.event_token_sealed(slug)? {
            if let Ok(token) = self.open_event_token(slug, &sealed) {
                return Ok(token);
            }
        }
        let token = self.new_event_token(slug)?;
        tx.commit()?;
        Ok(token)
    }

    /// New token: replaces the plugin's event token; the old one stops
    /// working at once.
    pub fn new_event_token(&self, slug: &str) -> Result<Sensitive, StoreError> {
        self.check_has_events(slug)?;
        let token = Sensitive::new(random_token_hex(TOKEN_BYTES));
        let sealed =
            self.vault.seal(slug, TOKEN_KEY, &token).map_err(|e| StoreError::VaultUnavailable(e.to_string()))?;
        self.conn.execute(
            "INSERT INTO event_tokens (slug, sealed, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(slug) DO UPDATE SET sealed = ?2, created_at = ?3",
            params![slug, sealed, self.now()],
        )?;
        Ok(token)
    }

    /// The sealed token as stored (`None` when none was made): one indexed
    /// read, cheap enough for the door to do on every request.
    pub fn event_token_sealed(&self, slug: &str) -> Result<Option<Vec<u8>>, StoreError> {
        // Cached: the door asks on every request, refused ones included.
        let mut stmt = self.conn.prepare_cached("SELECT sealed FROM event_tokens WHERE slug = ?1")?;
        Ok(stmt.query_row([slug], |r| r.get(0)).optional()?)
    }

    /// Opens a sealed token read by [`Store::event_token_sealed`].
    pub fn open_event_token(&self, slug: &str, sealed: &[u8]) -> Result<Sensitive, StoreError> {
        self.vault.open(slug, TOKEN_KEY, sealed).map_err(|e| StoreError::VaultUnavailable(e.to_string()))
    }

    /// The events switched on for a plugin (§16: off by default).
    pub fn event_switches(&self, slug: &str) -> Result<Vec<String>, StoreError> {
        self.events_on(slug)
    }

    fn check_has_events(&self, slug: &str) -> Result<(), StoreError> {
        let context = self.call_context(slug)?.ok_or_else(|| StoreError::UnknownPlugin(slug.to_owned()))?;
        match &context.plugin {
            Some(p) if !p.events.is_empty() => Ok(()),
            Some(_) => Err(StoreError::NoSuchName(format!("{slug} declares no event"))),
            None => Err(StoreError::NotReadable(format!("{slug} cannot be read now (see its status)"))),
        }
    }
}
