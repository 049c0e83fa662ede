//! R3's question in the window (§12 "serious action, confirmed every
//! time", issue 23): the window's [`Ask`]. The host builds the request an
//! R3 action would send and asks; the question goes to the page as the
//! Tauri event [`ASK_EVENT`] (the plugin, the action's hint, exactly the
//! request, secrets already `[secret]`), and the page's answer comes back
//! through the `companion_answer` command. The host stops waiting after
//! [`Ask::within`] (60 s): no answer is a no. Whatever ends the wait (an
//! answer, the time, the call given up), the page is told the question is
//! over, so that no dialog outlives its question.

use dcp_host::{Answer, Ask, Decision, Question, SentRequest, ANSWER_WITHIN};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::oneshot;

/// The Tauri event carrying one [`AskLine`].
pub const ASK_EVENT: &str = "companion-ask";

/// What the page is told of a question.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AskLine {
    /// Ask the player: show the dialog.
    Ask {
        /// The question's number, given back with the answer.
        id: u64,
        /// The plugin's slug.
        plugin: String,
        /// The plugin's name as players see it.
        plugin_name: String,
        /// The action (tool name, without the slug).
        tool: String,
        /// The action's hint in the player's language, else in English.
        hint: String,
        /// Exactly what a yes sends, every secret as `[secret]`.
        request: SentRequest,
        /// Seconds the player has to answer.
        seconds: u64,
    },
    /// The host no longer waits for question `id` (answered, out of time,
    /// or the call given up): close its dialog.
    Over {
        /// The question's number.
        id: u64,
    },
}

/// Where an [`AskLine`] goes: the window, or a test.
pub type Tell = Arc<dyn Fn(AskLine) + Send + Sync>;

/// The questions waiting for the page's answer, by number (app state).
#[derive(Clone, Default)]
pub struct Asking(Arc<Waiting>);

#[derive(Default)]
struct Waiting {
    next: AtomicU64,
    answers: Mutex<HashMap<u64, oneshot::Sender<Decision>>>,
}

impl Asking {
    /// An asker telling the page through `tell`, waited for `within` (at
    /// most 60 s: the host never waits longer).
    pub fn asker(&self, tell: Tell, within: Duration) -> Arc<dyn Ask> {
        Arc::new(WindowAsk { asking: self.clone(), tell, within })
    }

    /// The player's answer to question `id`; false when it is no longer
    /// asked (it ran out of time or its call is over).
    pub fn answer(&self, id: u64, yes: bool) -> bool {
        let decision = if yes { Decision::Confirmed } else { Decision::Declined };
        match self.0.answers.lock().unwrap_or_else(PoisonError::into_inner).remove(&id) {
            Some(waiting) => waiting.send(decision).is_ok(),
            None => false,
        }
    }

    fn forget(&self, id: u64) {
        self.0.answers.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
    }
}

/// The window as an [`Ask`].
struct WindowAsk {
    asking: Asking,
    tell: Tell,
    within: Duration,
}

/// Dropped when the host stops waiting, however that happens: the
/// question is forgotten and the page told.
struct Over {
    asking: Asking,
    tell: Tell,
    id: u64,
}

impl Drop for Over {
    fn drop(&mut self) {
        self.asking.forget(self.id);
        (self.tell)(AskLine::Over { id: self.id });
    }
}

impl Ask for WindowAsk {
    fn confirm(&self, question: Question) -> Answer<'_> {
        let id = self.asking.0.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (answer, answered) = oneshot::channel();
        self.asking.0.answers.lock().unwrap_or_else(PoisonError::into_inner).insert(id, answer);
        (self.tell)(AskLine::Ask {
            id,
            plugin: question.plugin,
            plugin_name: question.plugin_name,
            tool: question.tool,
            hint: question.hint,
            request: question.request,
            seconds: self.within().as_secs(),
        });
        let over = Over { asking: self.asking.clone(), tell: self.tell.clone(), id };
        Box::pin(async move {
            let _over = over;
            // The sender gone unanswered (never here while `over` holds the entry): a no.
            answered.await.unwrap_or(Decision::Declined)
        })
    }

    fn within(&self) -> Duration {
        self.within.min(ANSWER_WITHIN)
    }
}
