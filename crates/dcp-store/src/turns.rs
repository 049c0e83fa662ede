//! A turn's counters (§3, §12): the steps it has used (a turn chains up
//! to 5) and its Twitch chat calls (one per chat message, shared with the
//! built-in tools), kept in the `turns` table by turn id for a day.
//!
//! Each count is taken in a short write transaction on the turn's row
//! (`begin_turn`), so two processes calling in one turn each count once.
//! A step the caller numbered is kept in the commit of the call's journal
//! line instead ([`Store::journal_write_in_step`]).

use crate::error::StoreError;
use crate::Store;
use rusqlite::{params, Connection, OptionalExtension};

/// How long a turn's counts (its steps, the chat's one call) are kept.
pub const TURN_KEPT_SECONDS: i64 = 24 * 3600;

/// Keeps `step` in the row of `turn` (begun by the caller's transaction)
/// if it is the turn's highest, or, with none given, counts the next step;
/// gives the turn's highest step.
pub(crate) fn keep_step(conn: &Connection, turn: &str, step: Option<u32>) -> Result<u32, rusqlite::Error> {
    conn.prepare_cached("UPDATE turns SET steps = max(steps, coalesce(?2, steps + 1)) WHERE id = ?1 RETURNING steps")?
        .query_row(params![turn, step], |r| r.get(0))
}

impl Store {
    /// Counts one Twitch chat call for a turn and returns how many the turn
    /// had before (§12: one call per chat message, shared with built-in tools).
    pub fn take_chat_call(&self, turn: &str) -> Result<u32, StoreError> {
        let tx = self.begin_turn(turn)?;
        let after: u32 = tx
            .prepare_cached("UPDATE turns SET chat_calls = chat_calls + 1 WHERE id = ?1 RETURNING chat_calls")?
            .query_row([turn], |r| r.get(0))?;
        tx.commit()?;
        Ok(after - 1)
    }

    /// Counts a call in a step of a turn and returns the step's number
    /// (§3: a turn chains up to 5 steps). `step` is the caller's own count,
    /// for an online model that asks for several tools in one step; without
    /// it, each call is a step of its own, as with an AI on the PC.
    pub fn take_step(&self, turn: &str, step: Option<u32>) -> Result<u32, StoreError> {
        let tx = self.begin_turn(turn)?;
        let highest = keep_step(&tx, turn, step)?;
        tx.commit()?;
        Ok(step.unwrap_or(highest))
    }

    /// The steps a turn has used so far (0 for a turn not seen yet).
    pub fn steps_used(&self, turn: &str) -> Result<u32, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT steps FROM turns WHERE id = ?1")?;
        let used = stmt.query_row([turn], |r| r.get(0)).optional()?;
        Ok(used.unwrap_or(0))
    }

    /// Opens a write transaction on the row of `turn`, created if new; when
    /// a turn starts, the rows older than [`TURN_KEPT_SECONDS`] are
    /// forgotten (a turn lasts seconds). Rows are added in time order, so
    /// the old ones are those before the first recent one in rowid order:
    /// found by walking from the oldest, never by scanning the whole table
    /// (which has no index on `created_at`; the scan cost a call ~0.1 ms per
    /// thousand turns of the day, benches/turn.rs in dcp-companion). A row
    /// put out of order by a clock set back goes with the rows around it.
    pub(crate) fn begin_turn(&self, turn: &str) -> Result<rusqlite::Transaction<'_>, StoreError> {
        let tx = self.write_tx()?;
        let now = self.now();
        let started = tx
            .prepare_cached("INSERT OR IGNORE INTO turns (id, created_at) VALUES (?1, ?2)")?
            .execute(params![turn, now])?;
        if started == 1 {
            tx.prepare_cached(
                "DELETE FROM turns WHERE rowid < (SELECT rowid FROM turns WHERE created_at >= ?1 ORDER BY rowid LIMIT 1)",
            )?
            .execute([now - TURN_KEPT_SECONDS])?;
        }
        Ok(tx)
    }
}
