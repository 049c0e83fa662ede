//! The profile's SQLite database: connection settings and the schema.
//!
//! WAL with `synchronous=NORMAL` and a busy timeout, set on every
//! connection (not in a migration), so the app, `dcplugin serve` and other
//! `dcplugin` commands can share a profile. The schema is versioned with
//! `user_version` through rusqlite_migration. The migrations are one list,
//! in order: migration N brings a profile from version N-1 to N, so a
//! migration is only ever appended, and never edited once released (a
//! profile saved at any earlier version must upgrade; see the store's
//! `upgrade` tests, which need a fixture for each new version).

use rusqlite::{Connection, TransactionBehavior};
use rusqlite_migration::{Migrations, M};
use std::path::Path;
use std::time::Duration;

const MIGRATIONS: &[M<'static>] = &[
    M::up(
        "CREATE TABLE prefs (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE plugins (
        slug TEXT PRIMARY KEY,
        origin TEXT NOT NULL CHECK (origin IN ('import', 'folder', 'official')),
        dir TEXT NOT NULL,
        version TEXT NOT NULL,
        manifest_fingerprint TEXT NOT NULL,
        permissions_fingerprint TEXT NOT NULL,
        permissions TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        cloud_choice TEXT CHECK (cloud_choice IN ('allow', 'local')),
        twitch_allowed INTEGER NOT NULL DEFAULT 0,
        review_kept INTEGER NOT NULL DEFAULT 0,
        installed_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE tools_off (
        slug TEXT NOT NULL REFERENCES plugins(slug) ON DELETE CASCADE,
        tool TEXT NOT NULL,
        PRIMARY KEY (slug, tool)
    );
    CREATE TABLE events_on (
        slug TEXT NOT NULL REFERENCES plugins(slug) ON DELETE CASCADE,
        event TEXT NOT NULL,
        PRIMARY KEY (slug, event)
    );
    CREATE TABLE settings (
        slug TEXT NOT NULL REFERENCES plugins(slug) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (slug, key)
    );
    CREATE TABLE secrets (
        slug TEXT NOT NULL REFERENCES plugins(slug) ON DELETE CASCADE,
        key TEXT NOT NULL,
        sealed BLOB NOT NULL,
        PRIMARY KEY (slug, key)
    );
    CREATE TABLE reviews (
        id TEXT PRIMARY KEY,
        slug TEXT NOT NULL,
        origin TEXT NOT NULL CHECK (origin IN ('import', 'folder', 'official')),
        dir TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );",
    ),
    M::up(
        "CREATE TABLE journal (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        slug TEXT NOT NULL,
        action TEXT NOT NULL,
        who TEXT NOT NULL,
        outcome TEXT NOT NULL,
        code TEXT,
        subject TEXT,
        detail TEXT
    );
    CREATE INDEX journal_by_plugin ON journal (slug, id);
    CREATE TABLE turns (
        id TEXT PRIMARY KEY,
        chat_calls INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
    );",
    ),
    M::up(
        // The manifest the player reviewed: install refuses a package changed since.
        "ALTER TABLE reviews ADD COLUMN manifest_fingerprint TEXT;",
    ),
    // Event tokens (§16), sealed by the vault like secrets.
    M::up(
        "CREATE TABLE event_tokens (
        slug TEXT PRIMARY KEY REFERENCES plugins(slug) ON DELETE CASCADE,
        sealed BLOB NOT NULL,
        created_at INTEGER NOT NULL
    );",
    ),
    // The tool steps a turn used (§3: up to 5 steps per turn).
    M::up("ALTER TABLE turns ADD COLUMN steps INTEGER NOT NULL DEFAULT 0;"),
    // Migration 6: a counter of every change to what a call context is
    // made of (prefs, plugins, settings, secrets, tools_off), bumped by
    // triggers whoever writes (this process or another), so a call checks
    // one number instead of reading its plugin again (see `context`).
    M::up(
        "CREATE TABLE generation (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
    INSERT INTO generation (id, value) VALUES (1, 0);
    CREATE TRIGGER prefs_insert_bumps AFTER INSERT ON prefs BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER prefs_update_bumps AFTER UPDATE ON prefs BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER prefs_delete_bumps AFTER DELETE ON prefs BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER plugins_insert_bumps AFTER INSERT ON plugins BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER plugins_update_bumps AFTER UPDATE ON plugins BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER plugins_delete_bumps AFTER DELETE ON plugins BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER settings_insert_bumps AFTER INSERT ON settings BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER settings_update_bumps AFTER UPDATE ON settings BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER settings_delete_bumps AFTER DELETE ON settings BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER secrets_insert_bumps AFTER INSERT ON secrets BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER secrets_update_bumps AFTER UPDATE ON secrets BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER secrets_delete_bumps AFTER DELETE ON secrets BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER tools_off_insert_bumps AFTER INSERT ON tools_off BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER tools_off_update_bumps AFTER UPDATE ON tools_off BEGIN UPDATE generation SET value = value + 1; END;
    CREATE TRIGGER tools_off_delete_bumps AFTER DELETE ON tools_off BEGIN UPDATE generation SET value = value + 1; END;",
    ),
    // Migration 7: the journal keeps no content (§3). A failed call's
    // error (what the AI was told, masked) moves to the Developer
    // section's last failed calls (§19), at most 20 per plugin, deleted
    // with the plugin; the journal's `detail` column goes.
    M::up(
        "CREATE TABLE failed_calls (
        id INTEGER PRIMARY KEY,
        slug TEXT NOT NULL REFERENCES plugins(slug) ON DELETE CASCADE,
        at INTEGER NOT NULL,
        action TEXT NOT NULL,
        code TEXT NOT NULL,
        error TEXT NOT NULL
    );
    CREATE INDEX failed_calls_by_plugin ON failed_calls (slug, id);
    INSERT INTO failed_calls (slug, at, action, code, error)
        SELECT slug, at, action, COALESCE(code, ''), detail FROM journal
        WHERE outcome = 'failed' AND detail IS NOT NULL AND slug IN (SELECT slug FROM plugins)
        ORDER BY id;
    DELETE FROM failed_calls WHERE id IN (
        SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY slug ORDER BY id DESC) AS newer FROM failed_calls)
        WHERE newer > 20);
    ALTER TABLE journal DROP COLUMN detail;",
    ),
    // Migration 8: each card's number of recent errors (§19) counts the
    // failed calls of the last day; this partial index holds failed lines
    // only, by time, so the count reads the recent failures and never walks
    // the journal (up to 100,000 lines) on every look at My plugins.
    // `outcome` is a column too, so the count reads the index alone.
    M::up("CREATE INDEX journal_failures ON journal (at, slug, outcome) WHERE outcome = 'failed';"),
    // Migration 9: a journal line says what it is, a call or an event, so
    // its code is read in the right family (§3, §19, §22); the reader used
    // to guess it from `who = 'event'`, and a call of an event (or auto)
    // turn, refused `not_requested` with who = 'event', made the whole
    // journal unreadable. Existing lines: those of who = 'event' that are
    // received, dropped, or refused with one of the door's reasons (every
    // spelling of version 8, `plugin_off` and `dev_mode_off` included: the
    // courtier refuses a call of an event turn `not_requested` before any
    // other check) are events; every other line (done, failed, refused
    // with a call's reason) is a call. The default only fills the existing
    // rows: every insert states the kind.
    M::up(
        "ALTER TABLE journal ADD COLUMN kind TEXT NOT NULL DEFAULT 'call';
    UPDATE journal SET kind = 'event' WHERE who = 'event' AND (outcome IN ('received', 'dropped')
        OR (outcome = 'refused' AND code IN ('unknown_event', 'event_off', 'plugin_off', 'dev_mode_off',
            'rate_limited', 'event_expired', 'accepted', 'bad_token', 'invalid_json', 'missing_event',
            'text_too_long', 'browser_request', 'wrong_host', 'method_not_allowed', 'not_found',
            'unsupported_media_type', 'body_too_large', 'unreadable_body', 'internal_error')));",
    ),
    // Migration 10: an R3 call's line says what the player answered its
    // question (confirmed, declined, expired; §12, issue 22). Every other
    // line, and every line before, has none.
    M::up("ALTER TABLE journal ADD COLUMN confirmation TEXT;"),
    // Migration 11: the companion's AI (issue 22), one row: its base URL,
    // its model, and its API key sealed by the vault (bound to the URL's
    // host, which is kept beside it so a new host drops the key).
    M::up(
        "CREATE TABLE ai_connection (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            url TEXT,
            model TEXT,
            key_host TEXT,
            sealed_key BLOB
        );",
    ),
    // Migration 12: the AI app that asked, as it named itself (an MCP
    // client's `initialize`, issue 24), cleaned and cut by the journal.
    // Every line before, and every line of another "who", has none.
    M::up("ALTER TABLE journal ADD COLUMN client TEXT;"),
    // Migration 13: where a confirmed (R3) call's request ended when it was
    // not at the URL the player was shown (issue 32, §12, §14): the URL of
    // a redirect followed as a read, or where a refused one pointed; its
    // origin and path only, masked. Every line before, and every other
    // line, has none.
    M::up("ALTER TABLE journal ADD COLUMN ended_at TEXT;"),
    // Migration 14: the most tokens one answer of the companion's AI may
    // have, as the player set it (issue 34). None: the app's default, which
    // every profile before had.
    M::up("ALTER TABLE ai_connection ADD COLUMN max_tokens INTEGER;"),
];

/// Opens (creating if needed) the database and brings its schema up to date.
pub fn open(path: &Path) -> Result<Connection, crate::StoreError> {
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    // Switching a new database to WAL can fail with "database is locked"
    // without waiting on the busy timeout when another process is doing the
    // same: retried.
    let mut attempt = 0;
    while let Err(e) = conn.pragma_update(None, "journal_mode", "WAL") {
        attempt += 1;
        if attempt >= 50 || e.sqlite_error_code() != Some(rusqlite::ErrorCode::DatabaseBusy) {
            return Err(e.into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Two processes opening a new profile at once both read version 0 (it
    // is read outside the migration's transaction) and the loser's CREATE
    // fails. Migrating in an IMMEDIATE transaction and retrying fixes it:
    // once the winner has committed, the retry finds the schema current.
    conn.set_transaction_behavior(TransactionBehavior::Immediate);
    // What a migration deletes (the journal's old `detail` texts) is
    // overwritten in the file, not left in free pages.
    conn.pragma_update(None, "secure_delete", "ON")?;
    let mut attempt = 0;
    while let Err(e) = migrations().to_latest(&mut conn) {
        attempt += 1;
        if attempt >= 5 {
            return Err(crate::StoreError::Internal(format!("the profile's database cannot be upgraded: {e}")));
        }
        std::thread::sleep(Duration::from_millis(20 * attempt));
    }
    conn.set_transaction_behavior(TransactionBehavior::Deferred);
    conn.pragma_update(None, "secure_delete", "OFF")?;
    Ok(conn)
}

fn migrations() -> Migrations<'static> {
    Migrations::from_slice(MIGRATIONS)
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_valid() {
        assert!(super::migrations().validate().is_ok());
    }
}
