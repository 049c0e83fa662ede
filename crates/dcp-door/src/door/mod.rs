//! The door itself: a handle on a supervisor task that opens and closes
//! the loopback listener, answers §16's requests and drives the waiting
//! queue. One job per module:
//!
//! * `switches`: whether the door should listen, and whether a plugin
//!   and an event may be received and said now;
//! * `supervisor`: the task that polls the store (every
//!   [`DoorConfig::poll`], 250 ms by default, so a switch flipped by another
//!   process takes effect within a second), opens the listener on
//!   `127.0.0.1:<port>` when [`door_wanted`] says so and closes it (nothing
//!   listens) when not, reports a port held by another program as
//!   [`DoorState::PortTaken`] (tried again at each poll), and ticks the
//!   queue;
//! * `connections`: the accept loop and each connection's limits;
//! * `answer`: the checks of one request and its answer, in §16's order;
//! * `token`: the token check, the same work whether or not the slug is
//!   installed;
//! * `journal`: refusals journaled, at most once a minute per plugin and
//!   reason;
//! * `ticker`: the waiting queue's ticker, event turns, drops and the
//!   [`Notice`]s the caller receives.

mod answer;
mod connections;
mod journal;
mod supervisor;
mod switches;
mod ticker;
mod token;

pub use switches::{door_wanted, wanted_now, Wanted};
pub use ticker::{Notice, SaidEvent};

use crate::clock::Clock;
use crate::limits::RateLimit;
use crate::queue::{CompanionState, EventQueue};
use dcp_format::codes::EventReason;
use dcp_store::Store;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

/// The port of §15/§16.
pub const DEFAULT_PORT: u16 = dcp_format::hosts::EVENT_DOOR_PORT;
/// Largest body (§21).
pub const MAX_BODY: usize = dcp_format::limits::EVENT_BODY_BYTES as usize;
/// Longest text, in characters (§21).
pub const MAX_TEXT: usize = dcp_format::limits::EVENT_TEXT_CHARS;
/// Refusals of one kind are journaled at most this often per plugin.
pub const JOURNAL_REFUSAL_EVERY: Duration = Duration::from_secs(60);

/// How the door runs.
#[derive(Debug, Clone)]
pub struct DoorConfig {
    /// The port on 127.0.0.1 (8440; another one for tests). The Host check
    /// uses it.
    pub port: u16,
    /// How often the store is polled and the queue looked at.
    pub poll: Duration,
}

impl Default for DoorConfig {
    fn default() -> Self {
        DoorConfig { port: DEFAULT_PORT, poll: Duration::from_millis(250) }
    }
}

/// The door's state.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum DoorState {
    /// Nothing listens.
    Closed {
        /// Why.
        why: Wanted,
    },
    /// Listening on 127.0.0.1:port.
    Listening {
        /// The port.
        port: u16,
    },
    /// Another program holds the port; tried again at each poll.
    PortTaken {
        /// The port.
        port: u16,
    },
}

impl DoorState {
    /// As printed.
    pub fn describe(&self) -> String {
        match self {
            DoorState::Closed { why: Wanted::DevModeOff } => "closed: developer mode is off".into(),
            DoorState::Closed { .. } => "closed: no event of an active plugin is switched on".into(),
            DoorState::Listening { port } => format!("listening on 127.0.0.1:{port}"),
            DoorState::PortTaken { port } => format!("port {port} is used by another program"),
        }
    }
}

/// What the door's tasks share.
struct Shared {
    store: Mutex<Store>,
    config: DoorConfig,
    clock: Arc<dyn Clock>,
    notices: UnboundedSender<Notice>,
    limits: Mutex<HashMap<String, RateLimit>>,
    queue: Mutex<EventQueue>,
    journaled: Mutex<HashMap<(String, EventReason), Duration>>,
    /// The installed plugins' slugs at the last poll.
    installed: Mutex<HashSet<String>>,
    tokens: token::Tokens,
    /// The two `Host` values the door answers: `127.0.0.1:<port>`,
    /// `localhost:<port>`.
    hosts: [String; 2],
    state: Mutex<DoorState>,
    stopping: tokio::sync::Notify,
    /// The journal writes made after an answer, still running.
    later: Mutex<Vec<JoinHandle<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running door. Start it inside a tokio runtime; [`Door::stop`] closes it.
pub struct Door {
    shared: Arc<Shared>,
    supervisor: JoinHandle<()>,
}

impl Door {
    /// Starts the supervisor. `notices` receives every state change, event
    /// and turn.
    pub fn start(store: Store, config: DoorConfig, clock: Arc<dyn Clock>, notices: UnboundedSender<Notice>) -> Door {
        let hosts = [format!("127.0.0.1:{}", config.port), format!("localhost:{}", config.port)];
        let shared = Arc::new(Shared {
            store: Mutex::new(store),
            config,
            clock,
            notices,
            limits: Mutex::new(HashMap::new()),
            queue: Mutex::new(EventQueue::new()),
            journaled: Mutex::new(HashMap::new()),
            installed: Mutex::new(HashSet::new()),
            tokens: token::Tokens::new(),
            hosts,
            state: Mutex::new(DoorState::Closed { why: Wanted::NoEventOn }),
            stopping: tokio::sync::Notify::new(),
            later: Mutex::new(Vec::new()),
        });
        let supervisor = tokio::spawn(supervisor::supervise(shared.clone()));
        Door { shared, supervisor }
    }

    /// The companion reports its state.
    pub fn set_companion(&self, state: CompanionState) {
        let now = self.shared.clock.now();
        lock(&self.shared.queue).set_state(state, now);
    }

    /// The door's state now.
    pub fn state(&self) -> DoorState {
        lock(&self.shared.state).clone()
    }

    /// Stops the supervisor and closes the listener: when it returns,
    /// nothing listens on the port, so it can be opened again at once, and
    /// every refusal answered so far is in the journal (a bad token's line
    /// is written after its answer).
    pub async fn stop(mut self) {
        self.shared.stopping.notify_one();
        let _ = (&mut self.supervisor).await;
        let later = std::mem::take(&mut *lock(&self.shared.later));
        for write in later {
            let _ = write.await;
        }
    }
}

/// A door dropped without [`Door::stop`] still closes, only not by the time
/// the drop returns.
impl Drop for Door {
    fn drop(&mut self) {
        self.supervisor.abort();
    }
}
