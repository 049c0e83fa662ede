//! The window's conversation, owned by one task (issue 33): the engine's
//! [`Companion`] lives in that task and runs one turn after another, taken
//! from a channel; the commands only post it what to do, so no command
//! holds a lock across a turn.
//!
//! - A turn posted while one runs (the player typing on, an event the door
//!   hands over, a viewer's message the Twitch chat hands over) waits and
//!   runs next, in the order posted.
//! - [`Talk::stop`] ends the running turn at once by cancelling the token
//!   the task gave that turn's stream, kept outside the task so that a stop
//!   never waits for the turn it stops; the waiting turns then run.
//! - [`Talk::new_conversation`] stops the running turn, drops the waiting
//!   ones unanswered, then forgets the conversation.
//!
//! The AI connection is read anew for each turn, so that a change in the
//! Tools tab's AI settings counts from the next turn without losing the
//! conversation. The task starts with the first post and ends with the
//! [`Talk`]; one that panicked is started again, with a new conversation.

use crate::listening::Listening;
use dcp_companion::{CancellationToken, Companion, Said, TurnEvent};
use dcp_host::{ApiError, Ask, CompanionState, ErrorCode, Host, HostCode, SaidEvent, ViewerTurn};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::{mpsc, oneshot};

/// Where a turn's lines go, as they happen.
pub type Lines = Box<dyn FnMut(TurnEvent) + Send>;

/// What a turn says.
pub enum Words {
    /// The player's words; R3 actions are offered and asked through `ask` when there is one.
    Said { said: Said, ask: Option<Arc<dyn Ask>> },
    /// The door's event turn (§16): its message and the events it says.
    Event { message: String, events: Vec<SaidEvent> },
    /// A viewer's message the Twitch chat handed over (§12, issue 36).
    Viewer(ViewerTurn),
}

/// How a posted turn ended: its answer (none when it failed, was stopped
/// or dropped), or the AI settings' refusal (`ai_not_set`, …) of a typed
/// turn, before it started.
pub type Ended = Result<Option<String>, ApiError>;

/// The window's companion (app state): the way to its task, and what the
/// door is told of it.
#[derive(Default)]
pub struct Talk {
    /// The task's channel, once started.
    mailbox: Mutex<Option<mpsc::UnboundedSender<Job>>>,
    shared: Arc<Shared>,
    /// The door's view of it.
    pub listening: Listening,
}

/// What the commands and the task both read.
#[derive(Default)]
struct Shared {
    /// How many times the conversation was forgotten: a turn posted before
    /// the last time is dropped.
    forgotten: AtomicU64,
    /// The running turn's stop: a new token for each turn, so that a stop
    /// asked between two turns stops neither.
    stop: Mutex<CancellationToken>,
}

enum Job {
    Turn { posted: u64, words: Words, out: Lines, done: oneshot::Sender<Ended> },
    Forget { done: oneshot::Sender<()> },
}

impl Talk {
    /// Posts a turn at once (it runs after those posted before); the
    /// future tells how it ended.
    pub fn say(&self, host: &Host, words: Words, out: Lines) -> impl Future<Output = Ended> + Send + 'static {
        let (done, ended) = oneshot::channel();
        self.post(host, |shared| Job::Turn { posted: shared.forgotten.load(Ordering::SeqCst), words, out, done });
        async move { ended.await.unwrap_or_else(|_| Err(gone())) }
    }

    /// Ends the running turn at once (its `error` line says `stopped`);
    /// nothing when no turn runs.
    pub fn stop(&self) {
        lock(&self.shared.stop).cancel();
    }

    /// Stops the running turn, drops the waiting ones, and forgets the
    /// conversation; done once it is forgotten.
    pub fn new_conversation(&self, host: &Host) -> impl Future<Output = ()> + Send + 'static {
        let (done, forgotten) = oneshot::channel();
        self.post(host, |shared| {
            shared.forgotten.fetch_add(1, Ordering::SeqCst);
            Job::Forget { done }
        });
        self.stop();
        async move {
            // A task gone took its conversation with it.
            let _ = forgotten.await;
        }
    }

    /// Sends the job `make` builds, under the mailbox's lock so that jobs
    /// are in the channel in the order of what they read of `forgotten`.
    fn post(&self, host: &Host, make: impl FnOnce(&Shared) -> Job) {
        let mut mailbox = lock(&self.mailbox);
        let to = match mailbox.take().filter(|to| !to.is_closed()) {
            Some(to) => to,
            None => {
                let (to, jobs) = mpsc::unbounded_channel();
                let task = Task { host: host.clone(), listening: self.listening.clone(), shared: self.shared.clone() };
                tauri::async_runtime::spawn(task.run(jobs));
                to
            }
        };
        // Only a task that ended since the check misses it: its `done` then tells the poster.
        let _ = to.send(make(&self.shared));
        *mailbox = Some(to);
    }
}

/// The refusal of a turn whose task ended under it (a panic).
fn gone() -> ApiError {
    ApiError::new(ErrorCode::Host(HostCode::Internal), "the conversation's task ended")
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The task that owns the conversation.
struct Task {
    host: Host,
    listening: Listening,
    shared: Arc<Shared>,
}

impl Task {
    async fn run(self, mut jobs: mpsc::UnboundedReceiver<Job>) {
        let mut companion: Option<Companion> = None;
        while let Some(job) = jobs.recv().await {
            match job {
                Job::Forget { done } => {
                    if let Some(companion) = companion.as_mut() {
                        companion.new_conversation();
                    }
                    let _ = done.send(());
                }
                Job::Turn { posted, words, mut out, done } => {
                    let stop = CancellationToken::new();
                    *lock(&self.shared.stop) = stop.clone();
                    let ended = match self.ready(&mut companion).await {
                        // Dropped by a New conversation posted after it.
                        _ if posted != self.shared.forgotten.load(Ordering::SeqCst) => Ok(None),
                        ready => turn(ready, words, stop, &mut out).await,
                    };
                    // Told again once the turn is over: one that never started (no AI) told no one it answered,
                    // and the chat counts a turn it handed over as answered until it hears the companion listens.
                    self.listening.answering(false);
                    // A poster gone (a window closing) needs no answer.
                    let _ = done.send(ended);
                }
            }
        }
    }

    /// The companion on the AI set now, made on first use (telling the
    /// door when it answers).
    async fn ready<'a>(&self, slot: &'a mut Option<Companion>) -> Result<&'a mut Companion, ApiError> {
        let connection = self.host.ai_connection().await?;
        Ok(match slot {
            Some(existing) => {
                existing.set_connection(connection);
                existing
            }
            None => {
                let mut companion = Companion::new(self.host.clone(), connection);
                let listening = self.listening.clone();
                companion.set_presence(Box::new(move |state| listening.answering(state == CompanionState::Answering)));
                slot.insert(companion)
            }
        })
    }
}

/// One turn of `companion`, every line of its stream forwarded to `out`,
/// `stop` ending it: a turn that starts reports its own failure as an
/// `error` line, then `end`. With no AI able to answer, a typed turn is
/// refused before it starts, and an event or chat turn still shows what was
/// said, with why nothing answers.
async fn turn(
    companion: Result<&mut Companion, ApiError>,
    words: Words,
    stop: CancellationToken,
    out: &mut Lines,
) -> Ended {
    match (words, companion) {
        (Words::Said { said, ask }, Ok(companion)) => Ok(companion.say(said, ask, stop).finish(&mut **out).await.ok()),
        (Words::Event { message, events }, Ok(companion)) => {
            Ok(companion.event_turn(message, events, stop).finish(&mut **out).await.ok())
        }
        (Words::Viewer(viewer), Ok(companion)) => Ok(companion.viewer_turn(viewer, stop).finish(&mut **out).await.ok()),
        (Words::Said { .. }, Err(e)) => Err(e),
        (Words::Viewer(viewer), Err(e)) => {
            // As an event's: the player sees who asked what, and why nothing answers.
            out(TurnEvent::Viewer { name: viewer.display_name, text: viewer.text });
            out(TurnEvent::Error { code: e.code.into(), message: e.message });
            out(TurnEvent::End { steps: 0, stopped: false });
            Ok(None)
        }
        (Words::Event { message, events }, Err(e)) => {
            // No turn ran: no id, nothing journaled.
            TurnEvent::event_turn_lines(String::new(), &message, events).for_each(&mut **out);
            out(TurnEvent::Error { code: e.code.into(), message: e.message });
            out(TurnEvent::End { steps: 0, stopped: false });
            Ok(None)
        }
    }
}
