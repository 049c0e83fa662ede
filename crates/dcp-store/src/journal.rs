//! The action journal (§3, §19): every call, approved or refused, and every
//! event, with no content — time, plugin, action, who asked, outcome (with
//! its code or reason), and one short subject.
//!
//! A failed call's error, as the AI was told it (masked), is not content
//! of the journal: it goes to the Developer section's last failed calls
//! (table `failed_calls`, [`Store::last_failures`]), the newest
//! [`FAILURES_KEPT`] per plugin, deleted with the plugin.
//!
//! Retention: the newest 100,000 entries are kept; older ones are deleted
//! in one statement every 1,000 writes, so writing stays cheap and the
//! database stays bounded. Listing the latest entries walks the primary key
//! (or the `(slug, id)` index) backwards, so it stays fast however many
//! rows there are.
//!
//! Every line is written at once, in its own short transaction
//! ([`Store::journal_write`]), which gives back the [`JournalLine`] it inserted:
//! a tool call's when its pipeline finishes, after the answer is read and
//! before the AI is given it (with the turn's step, when the caller
//! numbered it: [`Store::journal_write_in_step`]); an event's when the door
//! decides.
//!
//! Each line says what it is, a call or an event ([`Kind`], migration 9):
//! its code is read in that family, never guessed from who asked (a call
//! of an event turn is refused `not_requested`, with who = `event`). A
//! stored outcome, kind or code this version cannot read is listed as it
//! is ([`Stored::Unknown`]): one line never hides the others.

use crate::error::StoreError;
use crate::Store;
use dcp_format::codes::{EventReason, Family, SpecCode, Spelled, ToolCode, ToolFamily};
/// Who asked and an R3 answer are §12's, spelled in `dcp_format`.
pub use dcp_format::risk::{Decision, Source};
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// Entries kept.
pub const KEPT_ENTRIES: i64 = 100_000;
const PRUNE_EVERY: i64 = 1_000;
/// Longest subject kept (the first text argument, cleaned).
pub const SUBJECT_CHARS: usize = 60;
/// Failed calls kept per plugin for the Developer section (§19).
pub const FAILURES_KEPT: i64 = 20;
/// Longest failure error kept.
const ERROR_CHARS: usize = 1_000;
/// Longest AI app name kept (see [`client_name`]).
pub const CLIENT_CHARS: usize = 60;
/// Longest "ended at" URL kept (see [`NewEntry::ended_at`]): an origin
/// and a path, never a query, so a long one is cut rather than refused.
pub const ENDED_AT_CHARS: usize = 200;
/// Longest plugin or action name kept: a full tool name's (§21). A name
/// the AI or an MCP client made up may be longer (see [`cleaned`]).
pub const NAME_CHARS: usize = dcp_format::limits::FULL_TOOL_NAME_CHARS;
/// How far back a card's "number of recent errors" looks, in milliseconds
/// (§19 asks for the count on each card in developer mode but does not say
/// how recent). A day: a developer who comes back the next morning still
/// sees yesterday's failures, and a plugin fixed since drops back to 0 by
/// itself, with no button to clear it and nothing deleted from the journal.
pub const RECENT_ERRORS_MS: i64 = 24 * 3600 * 1000;

dcp_format::spelled! {
    /// What happened, as the journal and the CLI spell it.
    #[cfg_attr(feature = "ts", ts(rename = "JournalOutcome"))]
    pub enum Outcome {
        /// A call that went through.
        Done => "done",
        /// A call that failed, with its code.
        Failed => "failed",
        /// Refused by the courtier (or, for an event, by the door).
        Refused => "refused",
        /// An event accepted.
        Received => "received",
        /// An event accepted but dropped (`event_expired`).
        Dropped => "dropped",
    }
}

dcp_format::spelled! {
    /// Calls or events, as the journal spells them.
    #[cfg_attr(feature = "ts", ts(rename = "JournalKind"))]
    pub enum Kind {
        /// Tool calls, whoever asked.
        Call => "call",
        /// Events from a program on the PC (§16).
        Event => "event",
    }
}

impl Kind {
    /// The family its lines' codes are read in.
    fn family(self) -> Family {
        match self {
            Kind::Call => Family::Call,
            Kind::Event => Family::Event,
        }
    }
}

/// A value of a stored line as this version reads it: one it knows, or
/// the text stored, shown as it is (a line written by another version of
/// the app, or changed by hand), so that one line this version cannot
/// read never hides the others. In JSON and TypeScript, the plain text
/// either way.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "JournalValue", untagged))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Stored<T> {
    /// A value of this version.
    Known(T),
    /// A text this version does not know, as it is stored.
    Unknown(String),
}

impl<T> Stored<T> {
    /// `text` read with `parse`, or kept as it is.
    fn read(text: String, parse: impl FnOnce(&str) -> Option<T>) -> Stored<T> {
        match parse(&text) {
            Some(known) => Stored::Known(known),
            None => Stored::Unknown(text),
        }
    }
}

impl<T: Copy> Stored<T> {
    /// The value, when this version knows it.
    fn known(&self) -> Option<T> {
        match self {
            Stored::Known(known) => Some(*known),
            Stored::Unknown(_) => None,
        }
    }
}

/// What a line's code says happened ([`SpecCode::tool_family`]), derived
/// when the line is read, never stored beside the code; none for a code
/// this version does not know (the window shows it as it is).
fn family_of(code: Option<&Stored<SpecCode>>) -> Option<ToolFamily> {
    code.and_then(Stored::known).and_then(SpecCode::tool_family)
}

impl<T: Spelled> Stored<T> {
    /// The value as it is spelled, known or not.
    pub fn as_str(&self) -> &str {
        match self {
            Stored::Known(known) => known.as_str(),
            Stored::Unknown(text) => text,
        }
    }
}

impl<T: fmt::Display> fmt::Display for Stored<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stored::Known(known) => known.fmt(f),
            Stored::Unknown(text) => f.write_str(text),
        }
    }
}

/// Which lines a journal page lists.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct JournalQuery {
    /// How many lines.
    pub limit: usize,
    /// Only this plugin.
    pub plugin: Option<String>,
    /// Only this outcome.
    pub outcome: Option<Outcome>,
    /// Only calls, or only events.
    pub kind: Option<Kind>,
    /// Only lines older than this id (the next page).
    pub before: Option<i64>,
}

/// One line of the journal.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct JournalLine {
    /// Its number, increasing.
    pub id: i64,
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    /// The plugin's slug.
    pub plugin: String,
    /// The action (tool name) or event name.
    pub action: String,
    /// Who asked: voice, keyboard, twitch, auto, event.
    pub who: Stored<Source>,
    /// A call or an event.
    pub kind: Stored<Kind>,
    /// done, failed, refused, received, dropped.
    pub outcome: Stored<Outcome>,
    /// The error code or refusal reason, read in the line's kind.
    pub code: Option<Stored<SpecCode>>,
    /// What a call's `code` says happened, for a shell to word it (issue
    /// 33: no shell classifies a code by its text). Absent from the JSON
    /// of a line without one (no code, an event's, or a code this version
    /// does not know), so their shape does not change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub family: Option<ToolFamily>,
    /// One short subject, never a secret.
    pub subject: Option<String>,
    /// Always `None`: the journal keeps no content (§3). Kept so the shape
    /// of `dcplugin journal --json` does not change; a failed call's error
    /// is in [`Store::last_failures`].
    pub detail: Option<String>,
    /// An R3 call's decision: confirmed, declined or expired. Absent from
    /// the JSON of every other line, so their shape does not change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub confirmation: Option<Stored<Decision>>,
    /// The AI app that asked, as it named itself (an MCP client's
    /// `initialize`, issue 24; migration 12), cleaned by [`client_name`].
    /// Absent from the JSON of every other line, so their shape does not
    /// change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub client: Option<String>,
    /// Where a confirmed (R3) call's request ended when it was not at the
    /// URL the player was shown (issue 32; migration 13): origin and path,
    /// masked, cleaned. Absent from the JSON of every other line, so their
    /// shape does not change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ended_at: Option<String>,
}

/// One of a plugin's last failed calls (Developer section, §19).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct FailedCall {
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    /// The tool.
    pub action: String,
    /// The §22 code.
    pub code: Stored<ToolCode>,
    /// What the AI was told (secrets masked).
    pub error: String,
}

/// A plugin whose calls keep failing (§18: a card that says Active while
/// every call fails misleads): its failed calls since its last call that
/// went through, and the newest one's code.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failing {
    /// Failed calls in a row, newest first, at most [`FAILING_LOOKED_AT`].
    pub calls: u32,
    /// The §22 code of the newest.
    pub code: Stored<ToolCode>,
    /// What `code` says happened (issue 33), for a shell to word it;
    /// absent for a code this version does not know.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub family: Option<ToolFamily>,
}

/// How many of a plugin's latest calls [`Store::failing`] reads: "its last
/// 50 calls failed" is as true and as useful as any larger count.
pub const FAILING_LOOKED_AT: u32 = 50;

/// What a caller writes.
#[derive(Debug, Clone)]
pub struct NewEntry<'a> {
    /// Slug.
    pub plugin: &'a str,
    /// Tool or event name.
    pub action: &'a str,
    /// Who asked.
    pub who: Source,
    /// A call or an event: the family its code is read in.
    pub kind: Kind,
    /// Outcome.
    pub outcome: Outcome,
    /// Code or reason.
    pub code: Option<SpecCode>,
    /// Subject (already cleaned and masked by the caller; cut here).
    pub subject: Option<&'a str>,
    /// For a failed call: what the AI was told (already masked). Kept with
    /// the plugin's last failed calls, never in the journal.
    pub error: Option<&'a str>,
    /// For an R3 call: what the player answered.
    pub confirmation: Option<Decision>,
    /// The AI app that asked, as it named itself (untrusted: cleaned here,
    /// see [`client_name`]).
    pub client: Option<&'a str>,
    /// For a confirmed (R3) call whose request did not end at the URL the
    /// player was shown: where it ended (a redirect followed as a read) or
    /// where a refused redirect pointed. The caller gives its origin and
    /// path, masked (the journal keeps no content, §3: no query); it is
    /// the server's text, so it is cleaned and cut to [`ENDED_AT_CHARS`]
    /// here like every text from outside ([`cleaned`]).
    pub ended_at: Option<&'a str>,
}

impl<'a> NewEntry<'a> {
    /// The line of an event (§16) of `plugin` named `action`, received,
    /// refused or dropped with its `reason`, and the program's cleaned
    /// `text` as its subject. Only a call adds more (a client, a decision,
    /// where it ended), so a column a call alone fills leaves the event
    /// writers as they are.
    pub fn event(
        plugin: &'a str,
        action: &'a str,
        outcome: Outcome,
        reason: Option<EventReason>,
        text: Option<&'a str>,
    ) -> NewEntry<'a> {
        NewEntry {
            plugin,
            action,
            who: Source::Event,
            kind: Kind::Event,
            outcome,
            code: reason.map(SpecCode::Event),
            subject: text,
            error: None,
            confirmation: None,
            client: None,
            ended_at: None,
        }
    }
}

/// An AI app's name as the journal keeps it ([`cleaned`], cut to
/// [`CLIENT_CHARS`]): the client chooses this text (an MCP client's
/// `initialize`). Nothing left: no name.
pub fn client_name(raw: &str) -> Option<String> {
    let name = cleaned(raw, CLIENT_CHARS);
    (!name.is_empty()).then_some(name)
}

/// A text of a journal line that may come from outside, as it is kept: the
/// plugin and action of a tool name the AI or an MCP client made up, the
/// subject, the AI app's name, the URL a server redirected a confirmed
/// call to (issue 32). It is read as hostile (§3: the journal holds no
/// content; §19: Actions shows each line as it is): line
/// breaks and tabs become spaces, every hidden character (controls, escape
/// sequences' ESC, bidi overrides, zero-width and tag characters:
/// `dcp_format::text`'s set) is removed so it cannot forge or reorder a
/// line of Actions or of `dcplugin journal`, spaces are collapsed, and it
/// is cut to `max` characters. A name of printable ASCII without spaces
/// (every slug and tool name) is kept as it is.
fn cleaned(raw: &str, max: usize) -> String {
    if raw.len() <= max && raw.bytes().all(|b| b.is_ascii_graphic()) {
        return raw.to_owned();
    }
    let visible = dcp_format::text::one_line(raw);
    let text: String = visible.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(max).collect();
    text.trim_end().to_owned()
}

/// One line as [`Store::entries`] selects it. Its code is read in its
/// kind's family (`plugin_off` is a refusal in a call's line, the door's
/// reason in an event's); a line of a kind this version does not know
/// keeps its code as stored.
fn entry(r: &rusqlite::Row) -> rusqlite::Result<JournalLine> {
    let kind = Stored::read(r.get(5)?, Kind::parse);
    let read_in = match kind {
        Stored::Known(kind) => Some(kind.family()),
        Stored::Unknown(_) => None,
    };
    let code = r.get::<_, Option<String>>(7)?.map(|code| Stored::read(code, |text| SpecCode::parse(text, read_in?)));
    let confirmation: Option<String> = r.get(9)?;
    Ok(JournalLine {
        id: r.get(0)?,
        at: r.get(1)?,
        plugin: r.get(2)?,
        action: r.get(3)?,
        who: Stored::read(r.get(4)?, Source::parse),
        kind,
        outcome: Stored::read(r.get(6)?, Outcome::parse),
        family: family_of(code.as_ref()),
        code,
        subject: r.get(8)?,
        detail: None,
        confirmation: confirmation.map(|text| Stored::read(text, Decision::parse)),
        client: r.get(10)?,
        ended_at: r.get(11)?,
    })
}

/// Recent failed calls by plugin (see [`Store::recent_errors`]). The index
/// is named: without statistics SQLite prefers walking `journal_by_plugin`
/// (already in slug order) over the whole journal. `installed_at` is in
/// seconds, `at` in milliseconds.
const RECENT_ERRORS_SQL: &str = "SELECT j.slug, COUNT(*) FROM journal j INDEXED BY journal_failures
     JOIN plugins p ON p.slug = j.slug
     WHERE j.outcome = 'failed' AND j.at >= ?1 AND j.at >= p.installed_at * 1000 AND (?2 IS NULL OR j.slug = ?2)
     GROUP BY j.slug";

/// Inserts one entry made at `at`, its subject cut to what is kept,
/// pruning the oldest entries every [`PRUNE_EVERY`] writes (retention, see
/// the module doc); a failed call's error goes to its plugin's last failed
/// calls, in the same commit. Gives the line as inserted, as
/// [`Store::journal`] would list it.
fn insert(conn: &Connection, at: i64, e: &NewEntry<'_>) -> Result<JournalLine, rusqlite::Error> {
    // One commit for both tables (inside a caller's transaction, that one).
    let tx = if conn.is_autocommit() { Some(conn.unchecked_transaction()?) } else { None };
    let (plugin, action) = (cleaned(e.plugin, NAME_CHARS), cleaned(e.action, NAME_CHARS));
    let subject = e.subject.map(|s| cleaned(s, SUBJECT_CHARS));
    let client = e.client.and_then(client_name);
    let ended_at = e.ended_at.map(|url| cleaned(url, ENDED_AT_CHARS)).filter(|url| !url.is_empty());
    let e = &NewEntry { plugin: &plugin, action: &action, subject: subject.as_deref(), ..e.clone() };
    conn.prepare_cached(
        "INSERT INTO journal (at, slug, action, who, kind, outcome, code, subject, confirmation, client, ended_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        at,
        e.plugin,
        e.action,
        e.who.as_str(),
        e.kind.as_str(),
        e.outcome.as_str(),
        e.code.map(|c| c.to_string()),
        subject,
        e.confirmation.map(Decision::as_str),
        client,
        ended_at
    ])?;
    let id = conn.last_insert_rowid();
    let code = e.code.map(Stored::Known);
    let inserted = JournalLine {
        id,
        at,
        plugin: e.plugin.to_owned(),
        action: e.action.to_owned(),
        who: Stored::Known(e.who),
        kind: Stored::Known(e.kind),
        outcome: Stored::Known(e.outcome),
        family: family_of(code.as_ref()),
        code,
        subject: e.subject.map(str::to_owned),
        detail: None,
        confirmation: e.confirmation.map(Stored::Known),
        client,
        ended_at,
    };
    if id % PRUNE_EVERY == 0 {
        conn.execute("DELETE FROM journal WHERE id <= ?1", [id - KEPT_ENTRIES])?;
    }
    if let (Outcome::Failed, Some(error)) = (e.outcome, e.error) {
        insert_failure(conn, at, e, error)?;
    }
    if let Some(tx) = tx {
        tx.commit()?;
    }
    Ok(inserted)
}

/// Keeps a failed call's error, and only the newest [`FAILURES_KEPT`] of
/// its plugin. A plugin removed meanwhile keeps nothing.
fn insert_failure(conn: &Connection, at: i64, e: &NewEntry<'_>, error: &str) -> Result<(), rusqlite::Error> {
    let error: String = error.chars().take(ERROR_CHARS).collect();
    conn.prepare_cached(
        "INSERT INTO failed_calls (slug, at, action, code, error)
         SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM plugins WHERE slug = ?1)",
    )?
    .execute(params![e.plugin, at, e.action, e.code.map(|c| c.to_string()).unwrap_or_default(), error])?;
    conn.prepare_cached(
        "DELETE FROM failed_calls WHERE slug = ?1 AND id <= (
            SELECT id FROM failed_calls WHERE slug = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
    )?
    .execute(params![e.plugin, FAILURES_KEPT])?;
    Ok(())
}

impl Store {
    /// Writes one entry now, committed when this returns, and gives it
    /// back as inserted (its id and what [`Store::journal`] lists): the
    /// line to report, whatever else was written meanwhile.
    /// A line that cannot be written is lost ([`StoreError::JournalLost`]);
    /// what it records stands.
    pub fn journal_write(&self, e: &NewEntry) -> Result<JournalLine, StoreError> {
        insert(&self.conn, self.now_ms(), e).map_err(|e| StoreError::JournalLost(e.to_string()))
    }

    /// The latest entries, newest first, of every plugin or of one.
    pub fn journal(&self, limit: usize, plugin: Option<&str>) -> Result<Vec<JournalLine>, StoreError> {
        self.journal_page(&JournalQuery { limit, plugin: plugin.map(str::to_owned), ..JournalQuery::default() })
    }

    /// One page of the journal, newest first (the Actions tab): only the
    /// filters given become conditions, so a page walks the primary key or
    /// the `(slug, id)` index backwards however long the journal is; the
    /// next page starts `before` the last id shown.
    pub fn journal_page(&self, filter: &JournalQuery) -> Result<Vec<JournalLine>, StoreError> {
        let mut conditions: Vec<&str> = Vec::new();
        let mut values: Vec<rusqlite::types::Value> = Vec::new();
        if let Some(slug) = &filter.plugin {
            conditions.push("slug = ?");
            values.push(slug.clone().into());
        }
        if let Some(outcome) = filter.outcome {
            conditions.push("outcome = ?");
            values.push(outcome.as_str().to_owned().into());
        }
        if let Some(kind) = filter.kind {
            conditions.push("kind = ?");
            values.push(kind.as_str().to_owned().into());
        }
        if let Some(before) = filter.before {
            conditions.push("id < ?");
            values.push(before.into());
        }
        let filter_sql =
            if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
        values.push((filter.limit as i64).into());
        self.entries(&filter_sql, rusqlite::params_from_iter(values))
    }

    /// Entries matching `filter` (its parameters first, the limit last).
    fn entries(&self, filter: &str, parameters: impl rusqlite::Params) -> Result<Vec<JournalLine>, StoreError> {
        let sql = format!(
            "SELECT id, at, slug, action, who, kind, outcome, code, subject, confirmation, client, ended_at FROM journal {filter} ORDER BY id DESC LIMIT ?"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let entries = stmt.query_map(parameters, entry)?.collect::<Result<Vec<_>, _>>()?;
        Ok(entries)
    }

    /// A plugin's last failed calls with their error, newest first
    /// (Developer section, §19).
    pub fn last_failures(&self, slug: &str, limit: usize) -> Result<Vec<FailedCall>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT at, action, code, error FROM failed_calls WHERE slug = ?1 ORDER BY id DESC LIMIT ?2",
        )?;
        let row = |r: &rusqlite::Row| {
            Ok(FailedCall {
                at: r.get(0)?,
                action: r.get(1)?,
                code: Stored::read(r.get(2)?, ToolCode::parse),
                error: r.get(3)?,
            })
        };
        let failures = stmt.query_map(params![slug, limit as i64], row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(failures)
    }

    /// Each plugin's number of recent errors (§19, on its card in developer
    /// mode): its failed calls of the last [`RECENT_ERRORS_MS`], counted
    /// from the journal (not from the last failed calls, which keep only
    /// the newest [`FAILURES_KEPT`]), and only since it was installed, as
    /// its last failed calls are (those go with the plugin, journal lines
    /// stay). `only` narrows it to one plugin. A plugin with none is absent.
    ///
    /// A range of the partial index `journal_failures` (migration 8): the
    /// cost follows the recent failures, not the length of the journal.
    pub(crate) fn recent_errors(&self, only: Option<&str>) -> Result<HashMap<String, u32>, StoreError> {
        let mut stmt = self.conn.prepare_cached(RECENT_ERRORS_SQL)?;
        let since = self.now_ms() - RECENT_ERRORS_MS;
        let counts = stmt.query_map(params![since, only], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(counts.collect::<Result<_, _>>()?)
    }

    /// Whether a plugin's calls keep failing: its latest calls that went
    /// through or failed (refusals are the app's, not the plugin's), read
    /// newest first until one went through. Only for a plugin with recent
    /// errors ([`Store::recent_errors`], the range of an index), so a card
    /// without costs no read, and the failures are as recent and as
    /// counted since it was installed as those are. Tests count: a failed
    /// Test says as much about the plugin as the companion's call.
    pub(crate) fn failing(&self, slug: &str, recent_errors: u32) -> Result<Option<Failing>, StoreError> {
        if recent_errors == 0 {
            return Ok(None);
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT j.outcome, j.code FROM journal j JOIN plugins p ON p.slug = j.slug
             WHERE j.slug = ?1 AND j.kind = 'call' AND j.outcome IN ('done', 'failed')
               AND j.at >= ?2 AND j.at >= p.installed_at * 1000
             ORDER BY j.id DESC LIMIT ?3",
        )?;
        let since = self.now_ms() - RECENT_ERRORS_MS;
        let rows = stmt.query_map(params![slug, since, FAILING_LOOKED_AT], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
        })?;
        let mut failing: Option<Failing> = None;
        for row in rows {
            let (outcome, code) = row?;
            if outcome != Outcome::Failed.as_str() {
                break;
            }
            match &mut failing {
                Some(f) => f.calls += 1,
                None => {
                    let code = Stored::read(code.unwrap_or_default(), ToolCode::parse);
                    failing = Some(Failing { calls: 1, family: code.known().map(ToolCode::family), code });
                }
            }
        }
        Ok(failing)
    }

    /// [`Store::journal_write`] for a call in `step` of `turn`, a step its
    /// caller numbered: the turn keeps that step (as [`Store::take_step`]
    /// would) in the line's own commit, so a numbered step needs no
    /// transaction before the call (one commit a call instead of two,
    /// benches/turn.rs in dcp-companion). A line that cannot be written
    /// loses the step's count with it; the call stands.
    pub fn journal_write_in_step(&self, e: &NewEntry, turn: &str, step: u32) -> Result<JournalLine, StoreError> {
        let write = || -> Result<JournalLine, StoreError> {
            let tx = self.begin_turn(turn)?;
            crate::turns::keep_step(&tx, turn, Some(step))?;
            let line = insert(&tx, self.now_ms(), e)?;
            tx.commit()?;
            Ok(line)
        };
        write().map_err(|e| StoreError::JournalLost(e.to_string()))
    }
}
