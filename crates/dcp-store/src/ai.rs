//! The companion's AI as the profile keeps it (issue 22): a base URL, a
//! model name, an API key, and the most tokens one answer may have (issue
//! 34). The key is sealed by the vault like a plugin's secret and bound to
//! the origin it was given for (scheme, host and port, issue 32: two
//! ports of one host are two programs): a URL of another origin forgets
//! it, so a key typed for one service is never sent to another. The URL
//! is stored as given; judging it, and its origin, is the caller's (the
//! host judges it with `dcp_ai::judge_ai_url` before it gets here), and so
//! is judging the answer length.
//!
//! A key kept before issue 32 is bound to a host only (its `key_host` has
//! no `://`; the vault sealed it for that host). It stays valid for that
//! host while the URL's port is its scheme's default (443 for https, 80
//! for http), the one origin an online service's URL names; with any other
//! port it counts as no key ([`KeyOrigin::legacy_host`]), and the next URL
//! set forgets it.

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
    /// What the kept API key (never read back here) is bound to: an origin,
    /// or a host for a key kept before issue 32. `None`: no key.
    pub key_bound: Option<String>,
    /// The most tokens one answer may have, as the player set it (issue
    /// 34); `None`: the app's default. Judged by the caller before it is kept.
    pub max_tokens: Option<u32>,
}

impl AiStored {
    /// Whether a key is kept for `to`.
    pub fn key_for(&self, to: &KeyOrigin<'_>) -> bool {
        self.key_bound.as_deref().is_some_and(|bound| to.accepts(bound))
    }
}

/// Where the URL sends a key: its origin, `scheme://host:port` with the
/// port always written (`https://openrouter.ai:443`), as the caller judged
/// it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyOrigin<'a> {
    /// `scheme://host:port`.
    pub origin: &'a str,
    /// The host alone when the port is its scheme's default: a key kept
    /// before issue 32, bound to that host, is valid for this origin (see
    /// the module doc).
    pub legacy_host: Option<&'a str>,
}

impl KeyOrigin<'_> {
    /// Whether a key bound to `bound` may go to this origin. An origin
    /// holds `://` and a host never does: neither is taken for the other.
    fn accepts(&self, bound: &str) -> bool {
        bound == self.origin || self.legacy_host == Some(bound)
    }
}

impl Store {
    /// The companion's AI (nothing set: all empty).
    pub fn ai(&self) -> Result<AiStored, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT url, model, CASE WHEN sealed_key IS NOT NULL THEN key_host END, max_tokens
                 FROM ai_connection WHERE id = 1",
                [],
                |r| Ok(AiStored { url: r.get(0)?, model: r.get(1)?, key_bound: r.get(2)?, max_tokens: r.get(3)? }),
            )
            .optional()?;
        Ok(row.unwrap_or_default())
    }

    /// Sets the URL (with the origin it sends a key to) and the model;
    /// `None` keeps what was there. A URL of another origin than the key's
    /// forgets the key: gives whether it did.
    pub fn set_ai(&self, url: Option<(&str, KeyOrigin<'_>)>, model: Option<&str>) -> Result<bool, StoreError> {
        let tx = self.write_tx()?;
        self.conn.execute("INSERT INTO ai_connection (id) VALUES (1) ON CONFLICT(id) DO NOTHING", [])?;
        let mut forgotten = false;
        if let Some((url, to)) = url {
            if self.ai()?.key_bound.is_some_and(|bound| !to.accepts(&bound)) {
                self.conn.execute("UPDATE ai_connection SET sealed_key = NULL, key_host = NULL WHERE id = 1", [])?;
                forgotten = true;
            }
            self.conn.execute("UPDATE ai_connection SET url = ?1 WHERE id = 1", params![url])?;
        }
        if let Some(model) = model {
            self.conn.execute("UPDATE ai_connection SET model = ?1 WHERE id = 1", params![model])?;
        }
        tx.commit()?;
        Ok(forgotten)
    }

    /// Sets the most tokens one answer may have; `None` goes back to the
    /// app's default.
    pub fn set_ai_max_tokens(&self, max_tokens: Option<u32>) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO ai_connection (id, max_tokens) VALUES (1, ?1)
             ON CONFLICT(id) DO UPDATE SET max_tokens = ?1",
            params![max_tokens],
        )?;
        Ok(())
    }

    /// Keeps `key` for `to` (the current URL's origin), sealed by the vault
    /// for that origin, or refuses with `vault_unavailable` and writes nothing.
    pub fn set_ai_key(&self, to: &KeyOrigin<'_>, key: &Sensitive) -> Result<(), StoreError> {
        let sealed =
            self.vault.seal(AI_SLUG, to.origin, key).map_err(|e| StoreError::VaultUnavailable(e.to_string()))?;
        self.conn.execute(
            "INSERT INTO ai_connection (id, key_host, sealed_key) VALUES (1, ?1, ?2)
             ON CONFLICT(id) DO UPDATE SET key_host = ?1, sealed_key = ?2",
            params![to.origin, sealed],
        )?;
        Ok(())
    }

    /// Forgets the key.
    pub fn clear_ai_key(&self) -> Result<(), StoreError> {
        self.conn.execute("UPDATE ai_connection SET key_host = NULL, sealed_key = NULL WHERE id = 1", [])?;
        Ok(())
    }

    /// The key kept for `to`, opened; `None` when none is kept for it. A
    /// key that no longer opens on this PC is `vault_unavailable`.
    pub fn ai_key(&self, to: &KeyOrigin<'_>) -> Result<Option<Sensitive>, StoreError> {
        let kept: Option<(String, Vec<u8>)> = self
            .conn
            .query_row(
                "SELECT key_host, sealed_key FROM ai_connection
                 WHERE id = 1 AND key_host IS NOT NULL AND sealed_key IS NOT NULL",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        kept.filter(|(bound, _)| to.accepts(bound))
            // Sealed for what it is bound to: its origin, or an older key's host.
            .map(|(bound, sealed)| self.vault.open(AI_SLUG, &bound, &sealed))
            .transpose()
            .map_err(|e| StoreError::VaultUnavailable(e.to_string()))
    }
}
