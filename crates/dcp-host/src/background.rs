//! What a running app runs besides its window: the event door (§16), the
//! folder watchers (§19), and a look at the statuses every second so a
//! card changed by another process or on disk (Modified, Missing) is
//! reported. All of it reports on the host's event stream and stops when
//! the [`Background`] guard is dropped.

use crate::dto::Card;
use crate::dto::{CompanionState, DoorState, Notice};
use crate::events::{Change, HostEvent};
use crate::{ApiError, ApiResult, Host};
use dcp_door::{Door, DoorConfig, SystemClock};
use dcp_store::watch::FolderWatcher;
use dcp_store::Store;
use std::collections::HashMap;
use std::sync::{Arc, PoisonError};
use std::time::Duration;
use tokio::task::JoinHandle;

/// How often the statuses are compared with the last ones seen.
const STATUS_POLL: Duration = Duration::from_secs(1);

/// How the background runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct BackgroundOptions {
    /// The companion is always listening: waiting events are said at once.
    pub listening: bool,
}

/// The running door's last state, and when its port is taken, whether the
/// holder is an event door ([`dcp_door::held_by_a_door`]): asked once each
/// time the port is found taken, before the notice is sent, so whoever
/// reads the state on that notice finds who holds the port beside it.
#[derive(Debug, Clone)]
pub(crate) struct KnownDoor {
    pub(crate) state: DoorState,
    pub(crate) held_by_a_door: Option<bool>,
}

impl KnownDoor {
    async fn of(state: DoorState) -> KnownDoor {
        let held_by_a_door = match state {
            DoorState::PortTaken { port } => {
                Some(tokio::task::spawn_blocking(move || dcp_door::held_by_a_door(port)).await.unwrap_or(false))
            }
            _ => None,
        };
        KnownDoor { state, held_by_a_door }
    }
}

/// The running door, watchers and status poll; dropping it stops them.
pub struct Background {
    host: Host,
    door: Option<Door>,
    _watcher: FolderWatcher,
    tasks: Vec<JoinHandle<()>>,
}

impl Host {
    /// Starts the event door, the folder watchers and the status poll in
    /// this process. Saves of loaded folders are seen from the moment it returns.
    pub fn start_background(&self, options: BackgroundOptions) -> ApiResult<Background> {
        let _runtime = self.runtime().enter();
        let (notices, mut received) = tokio::sync::mpsc::unbounded_channel();
        let store = Store::open(self.inner.profile.clone(), self.inner.key_store.clone())?;
        let config = DoorConfig { port: self.inner.door_port, ..DoorConfig::default() };
        let door = Door::start(store, config, Arc::new(SystemClock::new()), notices);
        let companion = if options.listening { CompanionState::Listening } else { CompanionState::Sleeping };
        door.set_companion(companion);
        let host = self.clone();
        let forward = tokio::spawn(async move {
            while let Some(notice) = received.recv().await {
                if let Notice::Door { state } = &notice {
                    let known = KnownDoor::of(state.clone()).await;
                    *host.inner.door_state.lock().unwrap_or_else(PoisonError::into_inner) = Some(known);
                }
                host.emit(HostEvent::Door { notice });
            }
        });
        let watcher = self.watch_folders()?;
        let poll = tokio::spawn(poll_statuses(self.clone()));
        Ok(Background { host: self.clone(), door: Some(door), _watcher: watcher, tasks: vec![forward, poll] })
    }

    fn watch_folders(&self) -> ApiResult<FolderWatcher> {
        let host = self.clone();
        let watcher = FolderWatcher::start(self.inner.profile.clone(), self.inner.key_store.clone(), move |reloaded| {
            match reloaded {
                Ok(entries) => {
                    for card in entries {
                        host.emit(HostEvent::PluginChanged {
                            slug: card.slug.clone(),
                            change: Change::FolderSaved,
                            card: Some(card),
                        });
                    }
                }
                Err(e) => host.emit(HostEvent::ReloadFailed { message: e.to_string() }),
            }
        })
        .map_err(ApiError::from)?;
        Ok(watcher)
    }
}

impl Background {
    /// The companion reports its state (listening, busy, asleep): events wait until it listens (§16).
    pub fn set_companion(&self, state: CompanionState) {
        if let Some(door) = &self.door {
            door.set_companion(state);
        }
    }

    /// Stops everything; when it returns nothing listens on the door's port.
    pub async fn stop(mut self) {
        if let Some(door) = self.door.take() {
            let _ = self.host.runtime().spawn(door.stop()).await;
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Reports every card whose status, switch, version, number of recent
/// errors or failing calls changed since the last look, whoever changed it (a failed call
/// raises the count on the card at once; a day later it falls by itself).
async fn poll_statuses(host: Host) {
    let mut seen: HashMap<String, Card> = HashMap::new();
    let mut first = true;
    loop {
        if let Ok(cards) = host.cards().await {
            let now: HashMap<String, Card> = cards.into_iter().map(|c| (c.slug.clone(), c)).collect();
            if !first {
                report_differences(&host, &seen, &now);
            }
            seen = now;
            first = false;
        }
        tokio::time::sleep(STATUS_POLL).await;
    }
}

fn report_differences(host: &Host, seen: &HashMap<String, Card>, now: &HashMap<String, Card>) {
    for (slug, card) in now {
        let same = seen.get(slug).is_some_and(|old| {
            old.status == card.status
                && old.enabled == card.enabled
                && old.version == card.version
                && old.recent_errors == card.recent_errors
                && old.failing == card.failing
        });
        if !same {
            host.emit(HostEvent::PluginChanged {
                slug: slug.clone(),
                change: Change::Status,
                card: Some(card.clone()),
            });
        }
    }
    for slug in seen.keys().filter(|s| !now.contains_key(*s)) {
        host.emit(HostEvent::PluginChanged { slug: slug.clone(), change: Change::Removed, card: None });
    }
}
