//! Asking the player before an R3 action is sent (§12, "serious action,
//! confirmed every time"): the question shows the plugin, the action's hint
//! in the player's language and exactly the request prepared (secrets as
//! `[secret]`); only a yes sends it, and only that request. The pipeline
//! gives the question ([`crate::pipeline::Asking`]); the caller that can
//! ask (a window, a terminal, an answer given in advance) answers it
//! through [`Ask`], within [`ANSWER_WITHIN`]. A yes counts only for the
//! question asked: the call is judged again before it is sent, and a
//! question whose plugin changed meanwhile is refused (issue 32).

use crate::pipeline::SentRequest;
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// The player's answer, as the journal keeps it.
pub use dcp_store::journal::Decision;

/// How long the player has to answer (issue 22): no answer is a no.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// What the player is asked before an R3 request is sent. Two questions
/// are equal when the player would see the same thing: the call is judged
/// again after the answer and sent only while its question is the one
/// asked (`crate::pipeline::Asking`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Question {
    /// The plugin's slug.
    pub plugin: String,
    /// The plugin's name as players see it.
    pub plugin_name: String,
    /// The action (tool name, without the slug).
    pub tool: String,
    /// The action's hint in the player's language, else in English.
    pub hint: String,
    /// Exactly what a yes sends: method, URL, headers, body, every secret
    /// and credential as `[secret]`.
    pub request: SentRequest,
}

/// A future answering a [`Question`].
pub type Answer<'a> = Pin<Box<dyn Future<Output = Decision> + Send + 'a>>;

/// Someone who can ask the player: the caller of a turn whose
/// `can_confirm` is true.
pub trait Ask: Send + Sync {
    /// Asks the player; the host stops waiting after [`Ask::within`]
    /// (an [`Decision::Expired`] then).
    fn confirm(&self, question: Question) -> Answer<'_>;

    /// How long the host waits for this asker: [`ANSWER_WITHIN`], and never
    /// longer whatever is given here (a test shortens it).
    fn within(&self) -> Duration {
        ANSWER_WITHIN
    }
}
