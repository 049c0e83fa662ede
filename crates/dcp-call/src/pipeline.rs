//! One tool call, start to end (§3 "A tool call"), in three stages so that
//! no store is held while a server takes its time (up to 20 s):
//!
//! 1. [`prepare`] (sync, short, with a store): the courtier decides, the
//!    arguments are converted, the plugin's BUSY lock is taken and the
//!    request is built (`prepare.rs`); an R3 request then waits, with no
//!    store, for the player's answer to its question ([`Asking`]): only a
//!    yes lets it go on to `send`, and only when the call, judged again
//!    against the plugins as they are then, still asks that question;
//! 2. [`send`] (async, no store): the request goes through the network
//!    filter;
//! 3. [`finish`] (sync, short, with a store): the answer is read, cleaned,
//!    masked and framed (`verdict.rs`), the journal gets its line,
//!    and the lock is released.
//!
//! A call that ends in `prepare` (refused, bad arguments, BUSY) skips
//! `send`. Data flows one way; each stage's failure becomes what the AI
//! reads, with the codes of §22.

use crate::ask::{Decision, Question};
use crate::busy::PluginLock;
use crate::mask::Masker;
use crate::prepare;
use crate::turn::Turn;
use crate::verdict::{Call, Verdict};
use dcp_format::codes::{CallCode, Refusal, ToolCode, ToolFamily};
use dcp_format::model::{Method, Response};
use dcp_net::{Client, Incoming, NetError, Outgoing, Policy};
use dcp_store::journal::{JournalLine, Outcome as Logged};
use dcp_store::{Store, StoreError};
use serde::Serialize;
use serde_json::Value;

pub use crate::prepare::prepare;

/// What the AI reads, and how the call ended: the `dcplugin call --json`
/// object.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
pub struct CallOutcome {
    /// done, failed or refused.
    pub outcome: Logged,
    /// The §22 code of a failure (`POLICY_DENIED` for a refusal).
    pub code: Option<ToolCode>,
    /// The courtier's reason of a refusal.
    pub reason: Option<Refusal>,
    /// Whether a retry may help.
    pub retryable: bool,
    /// Exactly what the AI reads.
    pub for_ai: String,
    /// What `code` says happened ([`ToolCode::family`]), for a shell to
    /// word it; none without a code (issue 33: no shell classifies a code
    /// by its text).
    pub family: Option<ToolFamily>,
}

impl CallOutcome {
    /// A call ended so; its family is its code's.
    pub fn new(
        outcome: Logged,
        code: Option<ToolCode>,
        reason: Option<Refusal>,
        retryable: bool,
        for_ai: String,
    ) -> CallOutcome {
        CallOutcome { outcome, code, reason, retryable, for_ai, family: code.map(ToolCode::family) }
    }
}

/// What the app sent for a call, as the Developer section's Try an action
/// shows it (§19): every secret and credential as `[secret]`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

impl SentRequest {
    /// `outgoing` as the player may see it: masked by `masker`, which
    /// knows the credentials as sent.
    pub(crate) fn of(method: Method, outgoing: &Outgoing, masker: &Masker) -> SentRequest {
        SentRequest {
            method: method.as_str(),
            url: masker.mask(&outgoing.url),
            headers: outgoing.headers.iter().map(|(name, value)| (name.clone(), masker.mask(value))).collect(),
            body: outgoing.body.as_deref().map(|body| masker.mask(&String::from_utf8_lossy(body))),
        }
    }
}

/// What [`prepare`] gives.
pub enum Prepared {
    /// A request for [`send`], then [`finish`].
    Send(Box<Request>),
    /// An R3 request: the player answers its question first.
    Ask(Box<Asking>),
    /// The call ended before anything was sent: [`finish`] journals it.
    Finish(Ending),
}

/// A request ready for the network filter, with what reading its answer
/// needs. It holds the plugin's lock (BUSY for any other call of it) until
/// [`finish`] has journaled the call, and the credentials as sent (in the
/// request and the masker), so it has no `Debug`.
pub struct Request {
    pub(crate) call: Call,
    pub(crate) outgoing: Outgoing,
    pub(crate) policy: Policy,
    pub(crate) reading: Reading,
}

/// An R3 request waiting for the player's answer (§12). It cannot be sent
/// as it is: [`Asking::answer`] gives a request to send only when the
/// player confirmed and the call, judged again against the plugins as they
/// are then, still asks exactly the question the player answered.
pub struct Asking {
    pub(crate) request: Box<Request>,
    pub(crate) question: Question,
    pub(crate) again: Again,
}

/// What judging an R3 call again needs besides its [`Call`]: the turn as
/// it was judged (its step resolved) and the AI's arguments.
pub(crate) struct Again {
    pub turn: Turn,
    pub args: Value,
}

impl Asking {
    /// What to ask the player.
    pub fn question(&self) -> &Question {
        &self.question
    }

    /// Judges the call again against the plugins as they are now (issue
    /// 32): the same courtier, the secrets read again, the request built
    /// again. Still the question asked: the call, with the request as
    /// built now (a rotated secret is sent as it is now, unseen either
    /// way). Anything else ends it with nothing sent, its plugin's lock
    /// held until its line is written: refused with the courtier's reason,
    /// refused `changed` when the question would now be another (its URL,
    /// method, headers or body after masking, the plugin's name, the
    /// action's hint), or failed as `prepare` would fail it.
    pub fn judge_again(self, store: &Store) -> Result<Asking, Ending> {
        let Asking { request, question, again } = self;
        let Request { call, reading, .. } = *request;
        let Reading { lock, .. } = reading;
        match prepare::again(store, &again, &call) {
            Ok(built) => match built.into_request(call, lock) {
                (request, Some(now)) if now == question => Ok(Asking { request, question, again }),
                (request, _) => {
                    let Request { call, reading, .. } = *request;
                    Err(Ending::withheld(call, Verdict::refused(Refusal::Changed), reading.lock))
                }
            },
            Err(verdict) => Err(Ending::withheld(call, verdict, lock)),
        }
    }

    /// The player's answer: confirmed, the call judged again
    /// ([`Asking::judge_again`], which needs the store: there is no other
    /// way to a request) and, still the question asked, the request to
    /// [`send`]; declined or expired, the call ends refused `declined` with
    /// nothing sent (for [`finish`]). Its journal line says the answer,
    /// and why nothing was sent when the answer was a yes.
    pub fn answer(mut self, store: &Store, decision: Decision) -> Result<Box<Request>, Ending> {
        self.request.reading.lock.asking(false);
        self.request.call.confirmation = Some(decision);
        if decision == Decision::Confirmed {
            return self.judge_again(store).map(|asking| asking.request);
        }
        let Request { call, reading, .. } = *self.request;
        Err(Ending::withheld(call, Verdict::declined(decision), reading.lock))
    }
}

/// What reading an answer needs, from [`prepare`] to [`finish`].
pub(crate) struct Reading {
    /// Every secret of the plugin and every credential as sent.
    pub masker: Masker,
    pub response: Response,
    pub shown: SentRequest,
    pub lock: PluginLock,
}

/// A call whose request is over, or was never needed: [`finish`] reads it.
pub struct Ending(Box<End>);

// Boxed whole in `Ending`: its variants' sizes cost nothing.
#[allow(clippy::large_enum_variant)]
enum End {
    /// Decided before anything was sent.
    Decided(Call, Verdict),
    /// The plugin could not even be read: nothing to journal.
    Unlogged(CallOutcome),
    /// The server's reply, or why there is none; `confirmed`, the URL a
    /// confirmed request was sent to (the one the player was shown), to
    /// tell where it ended (issue 32).
    Replied { call: Call, reply: Result<Incoming, NetError>, confirmed: Option<String>, reading: Reading },
    /// Built, never sent (the player said no, or the call judged again
    /// after a yes no longer may run or ask the same): the plugin's lock is
    /// held until the line is written, as for a call that was sent.
    Withheld { call: Call, verdict: Verdict, lock: PluginLock },
}

impl Ending {
    pub(crate) fn decided(call: Call, verdict: Verdict) -> Ending {
        Ending(Box::new(End::Decided(call, verdict)))
    }

    fn withheld(call: Call, verdict: Verdict, lock: PluginLock) -> Ending {
        // Its question, if it had one, is over.
        lock.asking(false);
        Ending(Box::new(End::Withheld { call, verdict, lock }))
    }

    pub(crate) fn unlogged(code: CallCode, message: &str) -> Ending {
        let for_ai = format!("{code}: {message}");
        Ending(Box::new(End::Unlogged(CallOutcome::new(Logged::Failed, Some(code.into()), None, false, for_ai))))
    }
}

/// Sends the request through the network filter; holds no store.
pub async fn send(client: &Client, request: Box<Request>) -> Ending {
    let Request { call, outgoing, policy, reading } = *request;
    let confirmed = policy.confirmed.then(|| outgoing.url.clone());
    let reply = client.send(outgoing, &policy).await;
    Ending(Box::new(End::Replied { call, reply, confirmed, reading }))
}

/// How a call ended, once journaled.
#[derive(Debug)]
pub struct Finished {
    /// What the AI reads.
    pub outcome: CallOutcome,
    /// The request that was sent, none when the call ended before one was.
    pub sent: Option<SentRequest>,
    /// The journal line the call wrote, as [`Store::journal`] lists it;
    /// none when the plugin could not be read. A line that cannot be
    /// written is [`StoreError::JournalLost`]: the call stands.
    pub entry: Option<Result<JournalLine, StoreError>>,
}

/// Reads the answer (cleaned, masked, framed), writes the call's journal
/// line in a short transaction of its own (with the turn's step, when its
/// caller numbered it), then releases the plugin's lock.
pub fn finish(store: &Store, ending: Ending) -> Finished {
    let (call, verdict, lock, sent) = match *ending.0 {
        End::Unlogged(outcome) => return Finished { outcome, sent: None, entry: None },
        End::Decided(call, verdict) => (call, verdict, None, None),
        End::Withheld { call, verdict, lock } => (call, verdict, Some(lock), None),
        End::Replied { call, reply, confirmed, reading } => {
            let verdict = Verdict::replied(&call, &reply, confirmed.as_deref(), &reading.response, &reading.masker);
            (call, verdict, Some(reading.lock), Some(reading.shown))
        }
    };
    let entry = match &call.step {
        Some((turn, step)) => store.journal_write_in_step(&verdict.entry(&call), turn, *step),
        None => store.journal_write(&verdict.entry(&call)),
    };
    // Released only now: until its line is written, the call is running.
    drop(lock);
    Finished { outcome: verdict.outcome, sent, entry: Some(entry) }
}
