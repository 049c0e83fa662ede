//! The companion's AI as the profile keeps it (issue 22): a base URL, a
//! model name and an API key. The key is sealed by the vault like a
//! plugin's secret and bound to the host it was given for: a URL on another
//! host drops it, so a key typed for one service is never sent to another.
//! The URL is stored as given; judging it is the caller's (the host judges
//! it with `dcp_ai::judge_ai_url` before it gets here).

use crate::error::StoreError;
use crate::Store;
use dcp_vault::Sensitive;
use rusqlite::{params, OptionalExtension};

/// The vault's binding name for the AI key: `@` starts no plugin slug, so
/// the key never opens as a plugin's secret, nor the reverse.
const AI_SLUG: &str = "@companion-ai";

/// What the profile keeps of the companion's AI.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AiStored {
    /// The base URL, as given.
    pub url: Option<String>,
    /// The model's name.
    pub model: Option<String>,
    /// An API key is kept (never read back here).
    pub key_set: bool,
}

impl Store {
    /// The companion's AI (nothing set: all empty).
    pub fn ai(&self) -> Result<AiStored, StoreError> {
        let row = self
            .conn
            .query_row("SELECT url, model, sealed_key IS NOT NULL FROM ai_connection WHERE id = 1", [], |r| {
                Ok(AiStored { url: r.get(0)?, model: r.get(1)?, key_set: r.get(2)? })
            })
            .optional()?;
        Ok(row.unwrap_or_default())
    }

    /// Sets the URL (with the host it names) and the model; `None` keeps
    /// what was there. A URL on another host than the key's drops the key.
    pub fn set_ai(&self, url: Option<(&str, &str)>, model: Option<&str>) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        self.conn.execute("INSERT INTO ai_connection (id) VALUES (1) ON CONFLICT(id) DO NOTHING", [])?;
        if let Some((url, host)) = url {
            self.conn.execute(
                "UPDATE ai_connection SET sealed_key = NULL, key_host = NULL
                 WHERE id = 1 AND sealed_key IS NOT NULL AND key_host IS NOT ?1",
                params![host],
            )?;
            self.conn.execute("UPDATE ai_connection SET url = ?1 WHERE id = 1", params![url])?;
        }
        if let Some(model) = model {
            self.conn.execute("UPDATE ai_connection SET model = ?1 WHERE id = 1", params![model])?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Keeps `key` for `host` (the current URL's), sealed by the vault, or
    /// refuses with `vault_unavailable` and writes nothing.
    pub fn set_ai_key(&self, host: &str, key: &Sensitive) -> Result<(), StoreError> {
        let sealed = self.vault.seal(AI_SLUG, host, key).map_err(|e| StoreError::VaultUnavailable(e.to_string()))?;
        self.conn.execute(
            "INSERT INTO ai_connection (id, key_host, sealed_key) VALUES (1, ?1, ?2)
             ON CONFLICT(id) DO UPDATE SET key_host = ?1, sealed_key = ?2",
            params![host, sealed],
        )?;
        Ok(())
    }

    /// Forgets the key.
    pub fn clear_ai_key(&self) -> Result<(), StoreError> {
        self.conn.execute("UPDATE ai_connection SET key_host = NULL, sealed_key = NULL WHERE id = 1", [])?;
        Ok(())
    }

    /// The key kept for `host`, opened; `None` when none is kept for it.
    /// A key that no longer opens on this PC is `vault_unavailable`.
    pub fn ai_key(&self, host: &str) -> Result<Option<Sensitive>, StoreError> {
        let sealed: Option<Vec<u8>> = self
            .conn
            .query_row(
                "SELECT sealed_key FROM ai_connection WHERE id = 1 AND key_host = ?1 AND sealed_key IS NOT NULL",
                [host],
                |r| r.get(0),
            )
            .optional()?;
        sealed
            .map(|sealed| self.vault.open(AI_SLUG, host, &sealed))
            .transpose()
            .map_err(|e| StoreError::VaultUnavailable(e.to_string()))
    }
}
