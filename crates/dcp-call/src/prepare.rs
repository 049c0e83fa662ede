//! The first stage of a call (§3 "A tool call"), short and with a store:
//! the plugin as it is now, its secrets opened, the turn's steps counted,
//! the courtier's decision, the chat's quota, the arguments, the plugin's
//! BUSY lock, then the request built. What it gives owns everything the
//! rest needs, so no store is held while the request is out. An R3 call
//! is judged again here after the player's answer ([`again`]): the same
//! steps but those that count or lock, on the plugin as it is then.

use crate::arguments::{self, Arguments};
use crate::ask::Question;
use crate::build::{self, Inputs};
use crate::busy::{self, Held, PluginLock};
use crate::courtier;
use crate::mask::Masker;
use crate::pipeline::{Again, Asking, Ending, Prepared, Reading, Request, SentRequest};
use crate::turn::{Source, Turn};
use crate::verdict::{Call, Verdict};
use dcp_format::codes::{CallCode, Refusal};
use dcp_format::model::{in_language, ArgKind, Method, Plugin, Response, Tool};
use dcp_format::names::ToolRef;
use dcp_net::{Outgoing, Policy};
use dcp_store::{CallContext, Store};
use dcp_vault::Sensitive;
use serde_json::Value;
use std::cell::OnceCell;
use std::sync::Arc;

/// Prepares the call of `full_name` (`<slug>__<tool>`) with the AI's
/// `args`: a request to send, an R3 request to ask the player about first,
/// or a call that ended here (refused, bad arguments, BUSY, a request that
/// cannot be built) for the pipeline's `finish` to journal.
pub fn prepare(store: &Store, turn: &Turn, full_name: &str, args: &Value) -> Prepared {
    match plan(store, turn, full_name, args) {
        Ok((request, None, _)) => Prepared::Send(request),
        Ok((request, Some(question), turn)) => {
            // Until the answer, a call of the plugin refused BUSY says so.
            request.reading.lock.asking(true);
            let again = Again { turn, args: args.clone() };
            Prepared::Ask(Box::new(Asking { request, question, again }))
        }
        Err(ending) => Prepared::Finish(ending),
    }
}

/// The request, with the question to ask first when its action needs the
/// player's confirmation (the courtier let it through: the player can be
/// asked), and the turn with its step resolved.
fn plan(
    store: &Store,
    turn: &Turn,
    full_name: &str,
    args: &Value,
) -> Result<(Box<Request>, Option<Question>, Turn), Ending> {
    // A name that is no `<slug>__<tool>` names no plugin: its line keeps
    // the name as given.
    let name = full_name.parse::<ToolRef>().ok();
    let (slug, tool_name) = name.as_ref().map_or((full_name, ""), |n| (n.slug(), n.tool()));
    let now = match &name {
        Some(name) => Now::read(store, name.slug()).map_err(|e| {
            Ending::unlogged(CallCode::ExecutionError, &format!("the app could not read the plugin: {e}"))
        })?,
        None => Now::default(),
    };
    let tool = now.tool(tool_name);
    // Borrowed, not copied: the only copies in clear are the wiped ones.
    let secrets = now.secrets();
    // Built only when something needs masking before the request exists (a
    // subject, an early failure): a call that is sent masks with the
    // request's own masker below, so it builds one masker, not two.
    let built = OnceCell::new();
    let early = || built.get_or_init(|| Masker::new(secrets.iter().copied()));
    let mut call = Call {
        slug: slug.to_owned(),
        tool: tool_name.to_owned(),
        who: turn.source,
        client: turn.client.clone(),
        subject: subject(tool, args, early),
        confirmation: None,
        step: None,
    };
    let turn = match in_step(store, turn) {
        Ok((turn, numbered)) => {
            call.step = numbered;
            turn
        }
        Err(e) => {
            let message = format!("the app could not count the turn's steps: {e}");
            return Err(Ending::decided(call, Verdict::failed(CallCode::ExecutionError, &message, false, early())));
        }
    };
    let (context, tool) = match decide(&turn, &now, tool_name) {
        Ok(decided) => decided,
        Err(reason) => return Err(Ending::decided(call, Verdict::refused(reason))),
    };
    // A call without a turn id is a turn of its own; calls sharing an id
    // share the chat's one call (§12).
    if let (Source::Twitch, Some(turn_id)) = (turn.source, &turn.id) {
        match store.take_chat_call(turn_id) {
            Ok(0) => {}
            Ok(_) => return Err(Ending::decided(call, Verdict::refused(Refusal::TwitchQuota))),
            Err(e) => {
                let message = format!("the app could not count the chat's calls: {e}");
                return Err(Ending::decided(call, Verdict::failed(CallCode::ExecutionError, &message, false, early())));
            }
        }
    }
    let args = match arguments(tool, args, early()) {
        Ok(args) => args,
        Err(verdict) => return Err(Ending::decided(call, verdict)),
    };
    let lock = match busy_lock(store, slug) {
        Ok(Ok(lock)) => lock,
        Ok(Err(held)) => {
            let message = match held {
                Held::Running => "another call of this plugin is still running; try again when it ends",
                // Issue 34: nothing runs, and nothing will until the player answers.
                Held::Asking => {
                    "another call of this plugin is waiting for the player to confirm it; nothing of this \
                     plugin runs until they answer: try again after that"
                }
            };
            return Err(Ending::decided(call, Verdict::failed(CallCode::Busy, message, true, early())));
        }
        Err(_) => {
            let message = "the app could not take the plugin's lock";
            return Err(Ending::decided(call, Verdict::failed(CallCode::ExecutionError, message, false, early())));
        }
    };
    match Built::new(&now, context, tool, &args, early) {
        Ok(built) => {
            let (request, question) = built.into_request(call, lock);
            Ok((request, question, turn))
        }
        Err(verdict) => Err(Ending::decided(call, verdict)),
    }
}

/// An R3 call judged again, against the plugins as they are now (issue
/// 32): the same courtier on the turn as it was judged (its step already
/// counted, the chat's quota already taken: R3 is never the chat's), the
/// secrets read again, the request built again. Nothing is counted and no
/// lock taken: the call already holds its plugin's.
pub(crate) fn again(store: &Store, again: &Again, call: &Call) -> Result<Built, Verdict> {
    let now = Now::read(store, &call.slug).map_err(|e| {
        let message = format!("the app could not read the plugin: {e}");
        Verdict::failed(CallCode::ExecutionError, &message, false, &Masker::new([]))
    })?;
    let secrets = now.secrets();
    let built = OnceCell::new();
    let early = || built.get_or_init(|| Masker::new(secrets.iter().copied()));
    let (context, tool) = decide(&again.turn, &now, &call.tool).map_err(Verdict::refused)?;
    let args = arguments(tool, &again.args, early())?;
    Built::new(&now, context, tool, &args, early)
}

/// One plugin as a call finds it now: its kept context (none when it is
/// not installed) and its secrets, opened once per call: for the auth
/// block, and to mask them wherever they might appear (answers, errors,
/// subjects). Wiped when the stage that read them ends: what comes later
/// holds only the masker and the request.
#[derive(Default)]
struct Now {
    context: Option<Arc<CallContext>>,
    opened: Vec<(String, Sensitive)>,
}

impl Now {
    fn read(store: &Store, slug: &str) -> Result<Now, dcp_store::StoreError> {
        let context = store.call_context(slug)?;
        let opened = context.as_ref().map(|c| store.open_secrets(c)).unwrap_or_default();
        Ok(Now { context, opened })
    }

    fn tool(&self, name: &str) -> Option<&Tool> {
        self.context.as_ref().and_then(|c| c.plugin.as_deref()).and_then(|p| p.tool(name))
    }

    fn secrets(&self) -> Vec<&str> {
        self.opened.iter().map(|(_, s)| s.expose()).collect()
    }
}

/// The courtier's decision on the tool `tool_name` of the plugin as it is
/// now: the plugin and its tool, or the reason of the refusal.
fn decide<'n>(turn: &Turn, now: &'n Now, tool_name: &str) -> Result<(&'n CallContext, &'n Tool), Refusal> {
    let tool = now.tool(tool_name);
    courtier::may_run(turn, now.context.as_deref(), tool)?;
    match (now.context.as_deref(), tool) {
        (Some(context), Some(tool)) => Ok((context, tool)),
        _ => Err(Refusal::UnknownTool),
    }
}

/// The AI's arguments converted by the tool's schema (§7), or the failure
/// the AI reads to fix them.
fn arguments(tool: &Tool, args: &Value, masker: &Masker) -> Result<Arguments, Verdict> {
    arguments::convert(tool, args).map_err(|e| {
        let message = format!("{e}. Fix these arguments and call again.");
        Verdict::failed(CallCode::InvalidArguments, &message, true, masker)
    })
}

/// A request built from the plugin as it is now, with all that sending it
/// and reading its answer need, and the question to ask first when its
/// action needs the player's confirmation.
pub(crate) struct Built {
    outgoing: Outgoing,
    policy: Policy,
    masker: Masker,
    response: Response,
    shown: SentRequest,
    question: Option<Question>,
}

impl Built {
    /// Builds the request of `tool` with `args`; `early` masks a failure.
    fn new<'m>(
        now: &Now,
        context: &CallContext,
        tool: &Tool,
        args: &Arguments,
        early: impl FnOnce() -> &'m Masker,
    ) -> Result<Built, Verdict> {
        let Some(plugin) = &context.plugin else { return Err(Verdict::refused(Refusal::PluginOff)) };
        let (outgoing, credentials) = request(plugin, tool, context, args, &now.opened)
            .map_err(|e| Verdict::failed(e.code(), &e.to_string(), false, early()))?;
        // From here on a server may echo the credentials as sent, whole.
        let secrets = now.secrets().into_iter();
        let masker = Masker::new(secrets.chain(credentials.iter().map(Sensitive::expose)));
        let shown = SentRequest::of(tool.request.method, &outgoing, &masker);
        let question = tool.level.needs_confirmation().then(|| Question {
            plugin: context.slug.clone(),
            plugin_name: plugin.display_name.clone(),
            tool: tool.name.clone(),
            hint: in_language(&tool.hint, context.prefs.language).unwrap_or_default().to_owned(),
            request: shown.clone(),
        });
        let policy = Policy {
            hosts: plugin.hosts.clone(),
            local_ports: plugin.local_ports.clone(),
            dev_mode: context.prefs.dev_mode,
            confirmed: question.is_some(),
        };
        Ok(Built { outgoing, policy, masker, response: tool.response.clone(), shown, question })
    }

    /// The request of `call`, holding its plugin's `lock`, and its question.
    pub fn into_request(self, call: Call, lock: PluginLock) -> (Box<Request>, Option<Question>) {
        let Built { outgoing, policy, masker, response, shown, question } = self;
        let reading = Reading { masker, response, shown, lock };
        (Box::new(Request { call, outgoing, policy, reading }), question)
    }
}

/// The turn with this call's step resolved: calls sharing a turn id count
/// its steps (§3); a call without one is a turn of its own. A step the
/// caller numbered needs no read: it is given back, to be kept in the
/// turn by the call's journal line (`finish`, one commit); an unnumbered
/// one is counted now.
fn in_step(store: &Store, turn: &Turn) -> Result<(Turn, Option<(String, u32)>), dcp_store::StoreError> {
    let (step, numbered) = match (&turn.id, turn.step) {
        (Some(id), Some(step)) => (step, Some((id.clone(), step))),
        (Some(id), None) => (store.take_step(id, None)?, None),
        (None, step) => (step.unwrap_or(1), None),
    };
    Ok((Turn { step: Some(step), ..turn.clone() }, numbered))
}

fn busy_lock(store: &Store, slug: &str) -> std::io::Result<Result<PluginLock, Held>> {
    busy::try_lock(store.profile().root(), slug)
}

/// Builds the request with the settings and the secrets the auth block
/// needs; also gives the credentials as sent (to be masked).
fn request(
    plugin: &Plugin,
    tool: &Tool,
    context: &CallContext,
    args: &Arguments,
    opened: &[(String, Sensitive)],
) -> Result<(Outgoing, Vec<Sensitive>), build::BuildError> {
    let secret = |key: &str| opened.iter().find(|(k, _)| k == key).map(|(_, s)| Sensitive::new(s.expose().to_owned()));
    let built = build::build(tool, &plugin.auth, args, &Inputs { settings: &context.settings, secret: &secret })?;
    let outgoing = Outgoing { method: method(built.method), url: built.url, headers: built.headers, body: built.body };
    Ok((outgoing, built.credentials))
}

fn method(m: Method) -> dcp_net::Method {
    match m {
        Method::GET => dcp_net::Method::Get,
        Method::POST => dcp_net::Method::Post,
        Method::PUT => dcp_net::Method::Put,
        Method::PATCH => dcp_net::Method::Patch,
        Method::DELETE => dcp_net::Method::Delete,
    }
}

/// The journal's subject: the first text argument, cleaned, masked, short.
fn subject<'m>(tool: Option<&Tool>, args: &Value, masker: impl FnOnce() -> &'m Masker) -> Option<String> {
    let tool = tool?;
    let first =
        tool.arguments.iter().filter(|a| a.kind == ArgKind::String).find_map(|a| args.get(&a.name)?.as_str())?;
    Some(masker().mask(&crate::answer::clean(first)))
}
