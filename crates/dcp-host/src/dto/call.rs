//! A tool call as it crosses to a shell (§3, §19): how it ended, with
//! exactly what the AI reads, and the request the app sent. Mirrors of
//! `dcp-call`'s pipeline values, which stay the pipeline's own.

use super::JournalOutcome as Outcome;
use dcp_format::codes::{Refusal, ToolCode};
use serde::Serialize;

/// What the AI reads, and how the call ended: the `dcplugin call --json`
/// object.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct CallOutcome {
    /// done, failed or refused.
    pub outcome: Outcome,
    /// The §22 code of a failure (`POLICY_DENIED` for a refusal).
    pub code: Option<ToolCode>,
    /// The courtier's reason of a refusal.
    pub reason: Option<Refusal>,
    /// Whether a retry may help.
    pub retryable: bool,
    /// Exactly what the AI reads.
    pub for_ai: String,
}

impl From<dcp_call::pipeline::CallOutcome> for CallOutcome {
    fn from(o: dcp_call::pipeline::CallOutcome) -> CallOutcome {
        CallOutcome {
            outcome: o.outcome.into(),
            code: o.code,
            reason: o.reason,
            retryable: o.retryable,
            for_ai: o.for_ai,
        }
    }
}

/// What the app sent for a call, as the Developer section's Try an action
/// shows it (§19): every secret and credential as `[secret]`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SentRequest {
    /// GET, POST, PUT, PATCH or DELETE.
    pub method: &'static str,
    /// The URL, templates filled in.
    pub url: String,
    /// The headers the plugin and its auth block set.
    pub headers: Vec<(String, String)>,
    /// The JSON body, when there is one.
    pub body: Option<String>,
}

impl From<dcp_call::pipeline::SentRequest> for SentRequest {
    fn from(r: dcp_call::pipeline::SentRequest) -> SentRequest {
        SentRequest { method: r.method, url: r.url, headers: r.headers, body: r.body }
    }
}
