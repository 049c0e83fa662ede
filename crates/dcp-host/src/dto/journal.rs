//! The journal as it crosses to a shell (Actions tab, §19's failed calls):
//! its lines, the page asked for (converted into the store's query), and a
//! stored value known or shown as it is.

use super::{JournalKind, JournalOutcome};
use dcp_format::codes::{SpecCode, Spelled, ToolCode};
use dcp_format::risk::{Decision, Source};
use dcp_store::journal::Stored;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A value of a stored line as this version reads it: one it knows, or
/// the text stored, shown as it is (a line written by another version of
/// the app, or changed by hand), so that one line this version cannot
/// read never hides the others. In JSON and TypeScript, the plain text
/// either way.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(untagged))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum JournalValue<T> {
    /// A value of this version.
    Known(T),
    /// A text this version does not know, as it is stored.
    Unknown(String),
}

impl<T, U: From<T>> From<Stored<T>> for JournalValue<U> {
    fn from(v: Stored<T>) -> JournalValue<U> {
        match v {
            Stored::Known(known) => JournalValue::Known(known.into()),
            Stored::Unknown(text) => JournalValue::Unknown(text),
        }
    }
}

impl<T: Spelled> JournalValue<T> {
    /// The value as it is spelled, known or not.
    pub fn as_str(&self) -> &str {
        match self {
            JournalValue::Known(known) => known.as_str(),
            JournalValue::Unknown(text) => text,
        }
    }
}

impl<T: fmt::Display> fmt::Display for JournalValue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalValue::Known(known) => known.fmt(f),
            JournalValue::Unknown(text) => f.write_str(text),
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
    pub outcome: Option<JournalOutcome>,
    /// Only calls, or only events.
    pub kind: Option<JournalKind>,
    /// Only lines older than this id (the next page).
    pub before: Option<i64>,
}

impl From<JournalQuery> for dcp_store::journal::JournalQuery {
    fn from(q: JournalQuery) -> dcp_store::journal::JournalQuery {
        dcp_store::journal::JournalQuery {
            limit: q.limit,
            plugin: q.plugin,
            outcome: q.outcome.map(Into::into),
            kind: q.kind.map(Into::into),
            before: q.before,
        }
    }
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
    pub who: JournalValue<Source>,
    /// A call or an event.
    pub kind: JournalValue<JournalKind>,
    /// done, failed, refused, received, dropped.
    pub outcome: JournalValue<JournalOutcome>,
    /// The error code or refusal reason, read in the line's kind.
    pub code: Option<JournalValue<SpecCode>>,
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
    pub confirmation: Option<JournalValue<Decision>>,
    /// The AI app that asked, as it named itself (an MCP client, issue
    /// 24), cleaned and cut by the journal. Absent from the JSON of every
    /// other line, so their shape does not change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub client: Option<String>,
    /// Where a confirmed (R3) call's request ended when it was not at the
    /// URL the player was shown (issue 32): the URL of a redirect read, or
    /// where a refused one pointed; origin and path, masked, cleaned.
    /// Absent from the JSON of every other line, so their shape does not
    /// change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ended_at: Option<String>,
}

impl From<dcp_store::journal::JournalLine> for JournalLine {
    fn from(v: dcp_store::journal::JournalLine) -> JournalLine {
        JournalLine {
            id: v.id,
            at: v.at,
            plugin: v.plugin,
            action: v.action,
            who: v.who.into(),
            kind: v.kind.into(),
            outcome: v.outcome.into(),
            code: v.code.map(Into::into),
            subject: v.subject,
            detail: v.detail,
            confirmation: v.confirmation.map(Into::into),
            client: v.client,
            ended_at: v.ended_at,
        }
    }
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
    pub code: JournalValue<ToolCode>,
    /// What the AI was told (secrets masked).
    pub error: String,
}

impl From<dcp_store::journal::FailedCall> for FailedCall {
    fn from(v: dcp_store::journal::FailedCall) -> FailedCall {
        FailedCall { at: v.at, action: v.action, code: v.code.into(), error: v.error }
    }
}
