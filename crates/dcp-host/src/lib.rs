//! The engine API every shell calls: the desktop app's commands and the
//! `dcplugin` command line are a few lines each over a [`Host`].
//!
//! A `Host` is a cheap, `Clone + Send + Sync` handle on one profile. It
//! owns the network client and runs its work (tool calls, store work on
//! blocking threads, the event door, background tasks) on one tokio
//! runtime: the shell's own, given in [`HostOptions::runtime`] (the
//! window gives Tauri's), or, for a shell with none (the command line,
//! tests), one the host builds. A process has one runtime either way; a
//! shell without one drives the host with [`Host::block_on`].
//!
//! *Concurrency.* The store's `Store` is one SQLite connection with
//! per-connection caches, so it is `Send` but not `Sync`. The host keeps a
//! small pool of them: each method takes one for the duration of its work,
//! on a blocking thread of the host's runtime, and gives it back. SQLite
//! runs in WAL mode, so readers never wait for the writer; every write
//! transaction of the store is IMMEDIATE, so a writer waits for another on
//! the busy timeout instead of failing with `SQLITE_BUSY`. No lock of the
//! host is held while waiting on another, so there is no deadlock. The
//! door and the folder watcher keep a connection of their own.
//!
//! *API boundary.* What crosses it is in [`dto`] and [`events`]; a secret
//! goes in ([`Host::set_secret`]) and never comes out. The event token
//! comes out only through [`Host::event_token`], for the clipboard.

#![deny(missing_docs)]

mod ai;
pub mod author;
mod background;
pub mod dto;
mod error;
pub mod events;
mod kept_offer;
mod kept_on_pc;
mod not_offered;
mod plugin_test;
mod twitch;

pub use ai::{AiSettings, AiTest, FoundAi};
use background::KnownDoor;
pub use background::{Background, BackgroundOptions};
/// The companion's AI connection and where it runs (issue 22).
pub use dcp_ai::{AiCode, Connection, KnownServer, PcServer, Place};
pub use dcp_call::offer::{Offer, Schema};
pub use dcp_call::turn::{Source, Turn};
pub use dcp_door::held_by_a_door;
pub use dcp_format::codes::Spelled;
/// The §22 codes and a problem of a manifest, under their own names: plain
/// spellings and data, which a mirror would only copy.
pub use dcp_format::codes::{CallCode, EventReason, Refusal, SettingsCode, SpecCode, ToolCode};
/// The digest of the fingerprints, for a shell naming its one window per profile.
pub use dcp_format::fingerprint::sha256_hex;
pub use dcp_format::names::ToolRef;
/// Declares a spelled enum: a shell's own choices (clap's) spelled once, as the engine's are.
pub use dcp_format::spelled;
/// The hidden characters of dcp-format, for a shell cleaning what it prints (issue 32).
pub use dcp_format::text::is_hidden_char;
/// §10's check of a help link, which the window's shell repeats before opening one.
pub use dcp_format::validate::help_link;
/// An app or plugin version, x.y.z.
pub use dcp_format::version::Version;
pub use dcp_format::Code;
/// A level of §12 and a permission change of an update (§18), as a review lists them.
pub use dcp_format::{changes::PermissionChange, risk::Level};
pub use dcp_format::{Problem, Problems};
pub use dcp_vault::{CredentialStore, Persistence, Sensitive};
pub use error::{ApiError, ApiResult, ErrorCode, FieldCode, FieldProblem, HostCode};
pub use kept_on_pc::EventsForAi;
pub use not_offered::NotOffered;
/// The Twitch chat (issue 36, §12).
pub use twitch::{
    ChatChange, ChatCode, ChatDropped, ChatNotice, ChatSettings, ChatState, ChatStatus, ViewerTurn, TWITCH_HOST,
    TWITCH_PORT,
};

/// Asking the player before an R3 action is sent (§12).
pub use dcp_call::ask::{Answer, Ask, Decision, Question, ANSWER_WITHIN};
use dcp_call::pipeline::{self, Prepared};
use dcp_store::{Profile, Store, StoreError};
use dcp_vault::{KeyStore, OsKeyStore};
pub use dto::{
    ActionView, AppSwitches, CallOutcome, Card, CatalogEntry, CloudChoice, CloudQuestion, CompanionState, DoorState,
    DoorView, EventView, EventsPage, FailedCall, Failing, InstallOptions, Installed, JournalKind, JournalLine,
    JournalOutcome, JournalQuery, JournalValue, Notice, Origin, PluginDetails, PluginTest, Review, ReviewAction,
    SaidEvent, SentRequest, SettingView, Status, SwitchesPatch, TriedAction, Wanted, DEFAULT_DOOR_PORT,
};
use events::{Change, HostEvent};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::broadcast;

/// Connections kept idle in the pool; more are opened under load and closed after.
const IDLE_CONNECTIONS: usize = 8;
/// Failed calls the Developer section lists.
const LAST_FAILURES: usize = 10;

/// How to open a host.
#[derive(Clone, Default)]
pub struct HostOptions {
    /// The profile folder; else `$DCPLUGIN_PROFILE`, else the app's data folder.
    pub profile: Option<PathBuf>,
    /// Where the vault key lives; else the OS credential store.
    pub key_store: Option<Arc<dyn KeyStore>>,
    /// The event door's port (8440; another one for tests).
    pub door_port: Option<u16>,
    /// The shell's runtime, which the host's work runs on (a window gives
    /// Tauri's); else the host builds one, the process's only one.
    pub runtime: Option<tokio::runtime::Handle>,
}

/// A handle on one profile. Clones share everything.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

struct Inner {
    profile: Profile,
    key_store: Arc<dyn KeyStore>,
    idle: Mutex<Vec<Store>>,
    client: dcp_net::Client,
    runtime: tokio::runtime::Handle,
    /// The runtime the host built, when the shell gave none.
    own_runtime: Option<tokio::runtime::Runtime>,
    events: broadcast::Sender<HostEvent>,
    door_port: u16,
    door_state: Mutex<Option<KnownDoor>>,
    offers: kept_offer::KeptOffer,
    /// The Twitch chat's connection in this process; ends with the host.
    chat: twitch::Chat,
}

impl Drop for Inner {
    /// The runtime the host built may be dropped from inside a future
    /// (a test's): shut it down without blocking.
    fn drop(&mut self) {
        if let Some(runtime) = self.own_runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Host {
    /// Opens (creating if needed) a profile: its database is brought up to
    /// date and leftovers of interrupted work are cleaned.
    pub fn open(options: HostOptions) -> ApiResult<Host> {
        let profile = Profile::locate(options.profile).map_err(|e| ApiError::from(StoreError::Io(e)))?;
        let key_store = options.key_store.unwrap_or_else(|| Arc::new(OsKeyStore::new()));
        let first = Store::open(profile.clone(), key_store.clone())?;
        let (runtime, own_runtime) = match options.runtime {
            Some(given) => (given, None),
            None => {
                let own = own_runtime()?;
                (own.handle().clone(), Some(own))
            }
        };
        let events = broadcast::channel(events::CAPACITY).0;
        Ok(Host {
            inner: Arc::new(Inner {
                profile,
                key_store,
                idle: Mutex::new(vec![first]),
                client: dcp_net::Client::new(),
                runtime,
                own_runtime,
                chat: twitch::Chat::new(events.clone()),
                events,
                door_port: options.door_port.unwrap_or(DEFAULT_DOOR_PORT),
                door_state: Mutex::new(None),
                offers: Default::default(),
            }),
        })
    }

    /// Runs a future to its end on the host's runtime, for a shell with no
    /// runtime of its own (the command line). Not from inside a runtime:
    /// the caller's thread waits.
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime().block_on(future)
    }

    /// Every change from now on. A window forwards it to its UI.
    pub fn subscribe(&self) -> broadcast::Receiver<HostEvent> {
        self.inner.events.subscribe()
    }

    /// The profile folder.
    pub fn profile_dir(&self) -> &Path {
        self.inner.profile.root()
    }

    /// How long saved secrets last on this PC: on a Linux desktop without a
    /// Secret Service, only until the next restart (say so to the player).
    /// Asks the OS credential store: call it when showing secret settings.
    pub async fn secrets_persistence(&self) -> Persistence {
        let keys = self.inner.key_store.clone();
        self.runtime().spawn_blocking(move || keys.persistence()).await.unwrap_or(Persistence::UntilRestart)
    }

    /// The plugins folder (Open the plugins folder, §19).
    pub fn plugins_folder(&self) -> PathBuf {
        self.inner.profile.plugins_dir()
    }

    // ------------------------------------------------------------ switches

    /// The app switches.
    pub async fn switches(&self) -> ApiResult<AppSwitches> {
        self.read(|s| Ok(s.prefs()?)).await
    }

    /// Changes some app switches; every card may change with them.
    pub async fn set_switches(&self, patch: SwitchesPatch) -> ApiResult<AppSwitches> {
        let switches: AppSwitches = self
            .read(move |s| {
                for switch in patch.switches() {
                    s.set_switch(&switch)?;
                }
                Ok(s.prefs()?)
            })
            .await?;
        self.emit(HostEvent::Switches { switches: switches.clone() });
        Ok(switches)
    }

    // ------------------------------------------------------------ My plugins

    /// The cards of My plugins, by slug.
    pub async fn cards(&self) -> ApiResult<Vec<Card>> {
        self.read(|s| Ok(s.list()?)).await
    }

    /// One card.
    pub async fn card(&self, slug: &str) -> ApiResult<Card> {
        let slug = slug.to_owned();
        self.read(move |s| card_of(s, &slug)).await
    }

    /// A plugin's icon.png when it is a real PNG; none means the letter tile (§4).
    pub async fn icon(&self, slug: &str) -> ApiResult<Option<Vec<u8>>> {
        let slug = slug.to_owned();
        self.read(move |s| Ok(s.icon(&slug)?)).await
    }

    /// A plugin's details, Options and Developer section, in the player's language.
    pub async fn details(&self, slug: &str) -> ApiResult<PluginDetails> {
        let slug = slug.to_owned();
        // One store call, one snapshot: the plugin's kept context gives its
        // state, manifest, settings and switches (as its card and a call see
        // them), so an unchanged plugin costs a `stat` and a few small reads.
        self.read(move |s| {
            let page = s.details_page(&slug, LAST_FAILURES)?;
            Ok(PluginDetails::new(page.details, page.plugin.as_deref(), page.prefs.language, page.last_failures))
        })
        .await
    }

    /// The official plugins (Catalog).
    pub async fn catalog(&self) -> ApiResult<Vec<CatalogEntry>> {
        self.read(|s| Ok(s.catalog()?)).await
    }

    // ------------------------------------------------------------ consent

    /// Imports a .json or .zip file: checked, quarantined, and its review (consent screen).
    pub async fn import_path(&self, path: PathBuf) -> ApiResult<Review> {
        self.read(move |s| Ok(s.import(&path)?)).await
    }

    /// Load a folder (developer mode, §19): its review.
    pub async fn load_folder(&self, dir: PathBuf) -> ApiResult<Review> {
        self.read(move |s| Ok(s.load_folder(&dir)?)).await
    }

    /// Starts installing an official plugin: its review.
    pub async fn import_official(&self, slug: &str) -> ApiResult<Review> {
        let slug = slug.to_owned();
        self.read(move |s| Ok(s.import_official(&slug)?)).await
    }

    /// A pending review again (the consent screen reopened).
    pub async fn review(&self, id: &str) -> ApiResult<Review> {
        let id = id.to_owned();
        self.read(move |s| Ok(s.review(&id)?)).await
    }

    /// Installs the plugin of a review with the consent screen's answers.
    pub async fn install(&self, review: &str, options: InstallOptions) -> ApiResult<Installed> {
        let review = review.to_owned();
        let installed: Installed = self.read(move |s| Ok(s.install(&review, options)?)).await?;
        self.changed(&installed.slug, Change::Installed).await;
        Ok(installed)
    }

    /// Cancels a review and deletes its quarantined copy.
    pub async fn cancel(&self, review: &str) -> ApiResult<()> {
        let review = review.to_owned();
        self.read(move |s| Ok(s.cancel(&review)?)).await
    }

    /// Removes a plugin, its settings and its secrets (a folder's files stay).
    pub async fn uninstall(&self, slug: &str) -> ApiResult<()> {
        let owned = slug.to_owned();
        self.read(move |s| Ok(s.uninstall(&owned)?)).await?;
        self.emit(HostEvent::PluginChanged { slug: slug.to_owned(), change: Change::Removed, card: None });
        Ok(())
    }

    /// Reload plugins: re-reads every installed file.
    pub async fn reload(&self) -> ApiResult<Vec<Card>> {
        let cards: Vec<Card> = self.read(|s| Ok(s.reload()?)).await?;
        for card in &cards {
            self.emit(HostEvent::PluginChanged {
                slug: card.slug.clone(),
                change: Change::Status,
                card: Some(card.clone()),
            });
        }
        Ok(cards)
    }

    // ------------------------------------------------------------ a plugin's switches and settings

    /// The plugin's on/off switch.
    pub async fn set_enabled(&self, slug: &str, on: bool) -> ApiResult<Card> {
        self.edit(slug, move |s, slug| s.set_enabled(slug, on)).await
    }

    /// One action's switch.
    pub async fn set_action_enabled(&self, slug: &str, tool: &str, on: bool) -> ApiResult<Card> {
        let tool = tool.to_owned();
        self.edit(slug, move |s, slug| s.set_action_enabled(slug, &tool, on)).await
    }

    /// Saves settings (Options > Save); every value is checked first.
    pub async fn save_settings(&self, slug: &str, values: Vec<(String, Value)>) -> ApiResult<Card> {
        self.edit(slug, move |s, slug| s.set_settings(slug, &values)).await
    }

    /// Sets or replaces a secret. Nothing ever reads it back.
    pub async fn set_secret(&self, slug: &str, key: &str, value: Sensitive) -> ApiResult<Card> {
        let key = key.to_owned();
        self.edit(slug, move |s, slug| s.set_secret(slug, &key, value)).await
    }

    /// Clears a secret.
    pub async fn clear_secret(&self, slug: &str, key: &str) -> ApiResult<Card> {
        let key = key.to_owned();
        self.edit(slug, move |s, slug| s.clear_secret(slug, &key)).await
    }

    /// Allow with online AI models, or keep on this PC (§13).
    pub async fn set_cloud(&self, slug: &str, choice: CloudChoice) -> ApiResult<Card> {
        self.edit(slug, move |s, slug| s.set_cloud(slug, choice)).await
    }

    /// Use while live on Twitch (§12).
    pub async fn set_twitch(&self, slug: &str, allowed: bool) -> ApiResult<Card> {
        self.edit(slug, move |s, slug| s.set_twitch(slug, allowed)).await
    }

    /// The review banner's Keep (§18).
    pub async fn keep(&self, slug: &str) -> ApiResult<Card> {
        self.edit(slug, |s, slug| s.keep(slug)).await
    }

    // ------------------------------------------------------------ events (§16)

    /// The Events section: switches, the door, whether a token exists.
    pub async fn events_page(&self, slug: &str) -> ApiResult<EventsPage> {
        let slug = slug.to_owned();
        let port = self.inner.door_port;
        let known = self.inner.door_state.lock().unwrap_or_else(PoisonError::into_inner).clone();
        self.read(move |s| events_page(s, &slug, port, known)).await
    }

    /// An event's switch.
    pub async fn set_event_enabled(&self, slug: &str, event: &str, on: bool) -> ApiResult<Card> {
        let event = event.to_owned();
        self.edit(slug, move |s, slug| s.set_event_enabled(slug, &event, on)).await
    }

    /// The event token, made when first asked: for the clipboard only (Copy), never to show.
    pub async fn event_token(&self, slug: &str) -> ApiResult<Sensitive> {
        let slug = slug.to_owned();
        self.read(move |s| Ok(s.event_token(&slug)?)).await
    }

    /// New token: the old one stops working at once.
    pub async fn new_event_token(&self, slug: &str) -> ApiResult<Sensitive> {
        let slug = slug.to_owned();
        self.read(move |s| Ok(s.new_event_token(&slug)?)).await
    }

    // ------------------------------------------------------------ tool calls

    /// What a turn offers the AI: tools, abilities, and what is left out and
    /// why. A turn with an id and no step gets its next step.
    pub async fn offer(&self, mut turn: Turn) -> ApiResult<Offer> {
        // A short read, asked at every companion's turn; the
        // offer itself is made again only when the turn or a plugin changed.
        let inner = self.inner.clone();
        self.read(move |s| {
            if let (Some(id), None) = (&turn.id, turn.step) {
                turn.step = Some(s.steps_used(id)? + 1);
            }
            Ok(inner.offers.offer(&turn, s.call_contexts()?))
        })
        .await
    }

    /// The plugins kept on this PC now (§13), by slug: with an online AI,
    /// the companion leaves out of its requests every earlier turn that
    /// touched one (issue 32).
    pub async fn kept_on_pc(&self) -> ApiResult<Vec<String>> {
        self.read(|s| Ok(kept_on_pc::slugs(s)?)).await
    }

    /// An event turn's `events` (said in the door's `message`) as an
    /// online AI may hear them (§13, §16, issue 32): each event of a plugin
    /// kept on this PC is held, journaled `dropped` (`cloud_blocked`) and
    /// reported as the door's `dropped` notice; the others are said in the
    /// message made again without them.
    pub async fn events_for_online_ai(&self, message: String, events: Vec<SaidEvent>) -> ApiResult<EventsForAi> {
        let (for_ai, lines) = self.read(move |s| Ok(kept_on_pc::for_online_ai(s, message, events)?)).await?;
        for (event, line) in for_ai.held.iter().zip(lines) {
            let reason = kept_on_pc::HELD;
            self.emit(HostEvent::Door {
                notice: Notice::Dropped { plugin: event.plugin.clone(), event: event.event.clone(), reason },
            });
            match line {
                Ok(entry) => self.emit(HostEvent::JournalAdded { entry }),
                Err(e) => self.emit(HostEvent::JournalLost { message: e.to_string() }),
            }
        }
        Ok(for_ai)
    }

    /// Runs one call through the whole pipeline (§3). Its journal line is
    /// written once the outcome is known, then reported on the stream.
    /// No one can be asked here: an R3 action is refused
    /// `needs_confirmation`, whatever the turn's `can_confirm` says.
    pub async fn call(&self, turn: Turn, tool: &str, args: Value) -> ApiResult<CallOutcome> {
        Ok(self.call_asking(turn, tool, args, None).await?.outcome)
    }

    /// [`Host::call`] with the request it sent (secrets as `[secret]`)
    /// and, where there is someone to ask, the player's decision (§12): an
    /// R3 action of a voice or keyboard turn whose `can_confirm` is true is
    /// built, then `ask` shows the player exactly that request and has
    /// [`Ask::within`] (at most 60 s) to answer. Only a yes sends it,
    /// unchanged; a no or no answer is refused `declined` with nothing
    /// sent. With no `ask`, an R3 action is refused `needs_confirmation`,
    /// as in [`Host::call`].
    ///
    /// A caller that stops waiting (a turn stopped, a window closed) does
    /// not stop a call already sent: it runs as a task of the host's, so it
    /// still gets its journal line, gives the plugin's lock back and is
    /// reported on the stream.
    pub async fn call_asking(
        &self,
        mut turn: Turn,
        tool: &str,
        args: Value,
        ask: Option<Arc<dyn Ask>>,
    ) -> ApiResult<TriedAction> {
        turn.can_confirm &= ask.is_some();
        let host = self.clone();
        let tool = tool.to_owned();
        self.runtime()
            .spawn(async move { host.run_call(turn, tool, args, ask).await })
            .await
            .map_err(|e| ApiError::new(ErrorCode::Host(HostCode::Internal), format!("the host's task failed: {e}")))?
    }

    /// The Developer section's Try an action (§19): [`Host::call_asking`],
    /// the call as the AI would make it, with the request it sent. Refused
    /// `dev_mode_required` while developer mode is off: the Developer
    /// section is not there then, so neither is its button.
    pub async fn try_action(
        &self,
        turn: Turn,
        tool: &str,
        args: Value,
        ask: Option<Arc<dyn Ask>>,
    ) -> ApiResult<TriedAction> {
        if !self.switches().await?.dev_mode {
            return Err(dev_mode_required());
        }
        self.call_asking(turn, tool, args, ask).await
    }

    /// The pipeline's three stages: prepare and finish each with a pooled
    /// store, the request sent with none checked out (a call that ends in
    /// prepare is finished with the same store). Then the call's end and
    /// the journal line it wrote (its own, whatever else was written
    /// meanwhile) go on the stream. An R3 request waits for the player's
    /// answer between prepare and send, with no store checked out, and is
    /// judged again before it goes (`ask_and_judge`).
    async fn run_call(
        &self,
        turn: Turn,
        tool: String,
        args: Value,
        ask: Option<Arc<dyn Ask>>,
    ) -> ApiResult<TriedAction> {
        let name = tool.clone();
        // Before prepare: every change from the plugin's state that
        // prepare reads on reaches an R3 question waiting for its answer.
        let changes = self.subscribe();
        let prepared = self
            .read(move |s| {
                Ok(match pipeline::prepare(s, &turn, &name, &args) {
                    Prepared::Finish(ending) => Ok(pipeline::finish(s, ending)),
                    other => Err(other),
                })
            })
            .await?;
        let mut confirmation = None;
        let next = match prepared {
            Ok(finished) => Ok(finished),
            Err(Prepared::Send(request)) => Err(Ok(request)),
            Err(Prepared::Ask(asking)) => {
                let (decision, next) = self.ask_and_judge(*asking, ask.as_deref(), changes).await?;
                confirmation = decision;
                Err(next)
            }
            Err(Prepared::Finish(_)) => unreachable!("finished with prepare's store"),
        };
        let finished = match next {
            Ok(finished) => finished,
            Err(next) => {
                let ending = match next {
                    Ok(request) => pipeline::send(&self.inner.client, request).await,
                    Err(withheld) => withheld,
                };
                self.read(move |s| Ok(pipeline::finish(s, ending))).await?
            }
        };
        let outcome = &finished.outcome;
        self.emit(HostEvent::CallFinished { tool, outcome: outcome.outcome, code: outcome.code });
        // The call happened: its outcome stands even when its line is lost.
        match finished.entry {
            Some(Ok(entry)) => self.emit(HostEvent::JournalAdded { entry }),
            Some(Err(e)) => self.emit(HostEvent::JournalLost { message: e.to_string() }),
            None => {}
        }
        Ok(TriedAction { outcome: finished.outcome, sent: finished.sent, confirmation })
    }

    /// Asks the player about an R3 call (§12) and judges it again before
    /// it may be sent (issue 32): the player's answer races the host's
    /// `changes`; a change that may concern the call (its plugin's, the
    /// app switches', or changes missed) judges it again at once, and a
    /// call that would now be refused or ask another question stops the
    /// wait (the asker's future is dropped: a window closes its dialog),
    /// with no answer, ended as judged. A yes judges it again too: only
    /// then is there a request to send. Without an asker the turn cannot
    /// confirm (see [`Host::call_asking`]): a no, should one get here.
    async fn ask_and_judge(
        &self,
        mut asking: pipeline::Asking,
        ask: Option<&dyn Ask>,
        mut changes: broadcast::Receiver<HostEvent>,
    ) -> ApiResult<(Option<Decision>, Result<Box<pipeline::Request>, pipeline::Ending>)> {
        let slug = asking.question().plugin.clone();
        let decision = match ask {
            None => Decision::Declined,
            Some(ask) => {
                let answer = ask_player(ask, asking.question().clone());
                tokio::pin!(answer);
                loop {
                    let change = tokio::select! {
                        decision = &mut answer => break decision,
                        change = changes.recv() => change,
                    };
                    if matches!(change, Err(broadcast::error::RecvError::Closed)) {
                        break (&mut answer).await;
                    }
                    if !may_concern(&change, &slug) {
                        continue;
                    }
                    asking = match self.read(move |s| Ok(asking.judge_again(s))).await? {
                        Ok(still) => still,
                        Err(withdrawn) => return Ok((None, Err(withdrawn))),
                    };
                }
            }
        };
        let next = self.read(move |s| Ok(asking.answer(s, decision))).await?;
        Ok((Some(decision), next))
    }

    /// Journal lines, newest first (Actions tab).
    pub async fn journal(&self, query: JournalQuery) -> ApiResult<Vec<JournalLine>> {
        self.read(move |s| Ok(s.journal_page(&query)?)).await
    }

    // ------------------------------------------------------------ plumbing

    fn runtime(&self) -> &tokio::runtime::Handle {
        &self.inner.runtime
    }

    /// Runs `f` with a connection of the pool on a blocking thread of the
    /// host's runtime: every store call, short reads included. Running
    /// short ones on the caller's thread instead (`block_in_place`) saved
    /// 2–50 µs a read (docs/benchmarks.md, `cards`), which no player sees,
    /// at the price of a second path.
    async fn read<T, F>(&self, f: F) -> ApiResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> ApiResult<T> + Send + 'static,
    {
        let inner = self.inner.clone();
        let task = self.runtime().spawn_blocking(move || inner.with_store(f));
        task.await
            .map_err(|e| ApiError::new(ErrorCode::Host(HostCode::Internal), format!("the host's task failed: {e}")))?
    }

    /// A change to one plugin, reported with its new card.
    async fn edit<F>(&self, slug: &str, f: F) -> ApiResult<Card>
    where
        F: FnOnce(&Store, &str) -> Result<(), StoreError> + Send + 'static,
    {
        let owned = slug.to_owned();
        let card = self
            .read(move |s| {
                f(s, &owned)?;
                card_of(s, &owned)
            })
            .await?;
        self.emit(HostEvent::PluginChanged { slug: slug.to_owned(), change: Change::Edited, card: Some(card.clone()) });
        Ok(card)
    }

    /// Reports a plugin's new card; a card that cannot be read is left to the next reader.
    async fn changed(&self, slug: &str, change: Change) {
        if let Ok(card) = self.card(slug).await {
            self.emit(HostEvent::PluginChanged { slug: slug.to_owned(), change, card: Some(card) });
        }
    }

    /// Sends to the stream; nobody listening is not an error.
    fn emit(&self, event: HostEvent) {
        let _ = self.inner.events.send(event);
    }
}

impl Inner {
    /// Runs `f` with a connection of the pool, given back after.
    fn with_store<T>(&self, f: impl FnOnce(&Store) -> ApiResult<T>) -> ApiResult<T> {
        let store = self.checkout()?;
        let out = f(&store);
        self.checkin(store);
        out
    }

    fn checkout(&self) -> ApiResult<Store> {
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        match idle {
            Some(store) => Ok(store),
            None => Ok(Store::open(self.profile.clone(), self.key_store.clone())?),
        }
    }

    fn checkin(&self, store: Store) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE_CONNECTIONS {
            idle.push(store);
        }
    }
}

/// Asks the player, for at most [`ANSWER_WITHIN`] (less when the asker
/// says so): no answer in time is [`Decision::Expired`].
async fn ask_player(ask: &dyn Ask, question: Question) -> Decision {
    let within = ask.within().min(ANSWER_WITHIN);
    tokio::time::timeout(within, ask.confirm(question)).await.unwrap_or(Decision::Expired)
}

/// Whether a change on the host's stream may change what an R3 call of
/// the plugin `slug` would do or ask: that plugin's card (a switch, a
/// setting, a secret, an update, its removal, its status), the app
/// switches, or changes the receiver lagged behind and missed.
fn may_concern(change: &Result<HostEvent, broadcast::error::RecvError>, slug: &str) -> bool {
    match change {
        Ok(HostEvent::PluginChanged { slug: changed, .. }) => changed == slug,
        Ok(HostEvent::Switches { .. }) | Err(broadcast::error::RecvError::Lagged(_)) => true,
        Ok(_) | Err(broadcast::error::RecvError::Closed) => false,
    }
}

/// The runtime of a host whose shell has none: two workers (the host's
/// work is mostly waiting on sockets and short store calls).
fn own_runtime() -> ApiResult<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).thread_name("dcp-host").enable_all().build().map_err(
        |e| ApiError::new(ErrorCode::Host(HostCode::Internal), format!("the host's runtime cannot start: {e}")),
    )
}

/// Try an action while developer mode is off.
fn dev_mode_required() -> ApiError {
    ApiError::new(
        ErrorCode::Import(dcp_format::Code::DevModeRequired),
        "Try an action is in the Developer section: turn on developer mode first",
    )
}

fn card_of(s: &Store, slug: &str) -> ApiResult<Card> {
    Ok(s.card(slug)?)
}

fn events_page(s: &Store, slug: &str, port: u16, known: Option<KnownDoor>) -> ApiResult<EventsPage> {
    let context = s.call_context(slug)?.ok_or_else(|| StoreError::UnknownPlugin(slug.to_owned()))?;
    let language = s.prefs()?.language;
    let on = s.event_switches(slug)?;
    let events = context
        .plugin
        .as_ref()
        .map(|p| p.events.iter().map(|e| EventView::new(e, language, on.contains(&e.name))).collect())
        .unwrap_or_default();
    Ok(EventsPage {
        slug: slug.to_owned(),
        status: context.status,
        events,
        door: DoorView {
            wanted: dcp_door::wanted_now(s),
            port,
            address: format!("127.0.0.1:{port}"),
            held_by_a_door: known.as_ref().and_then(|k| k.held_by_a_door),
            state: known.map(|k| k.state),
        },
        token_made: s.event_token_sealed(slug)?.is_some(),
    })
}
