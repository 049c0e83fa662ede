//! One tool call, start to end (§3 "A tool call"): the courtier decides,
//! the arguments are converted, the request is built and sent through the
//! network filter, the answer is read and framed, and the journal records
//! the outcome. Data flows one way; each stage's failure becomes what the
//! AI reads, with the codes of §22.

use crate::answer::{self, frame};
use crate::arguments::{self, Arguments};
use crate::build::{self, Inputs};
use crate::courtier;
use crate::mask::Masker;
use crate::turn::{Source, Turn};
use dcp_format::codes::{CallCode, Refusal, SpecCode, ToolCode};
use dcp_format::model::{ArgKind, Method, Plugin, Tool};
use dcp_net::{Client, NetError, Outgoing, Policy};
use dcp_store::journal::{Kind, NewEntry, Outcome as Logged};
use dcp_store::{CallContext, Store};
use dcp_vault::Sensitive;
use serde::Serialize;
use serde_json::Value;

/// What the AI reads, and how the call ended: the `dcplugin call --json`
/// object.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CallOutcome"))]
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
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
}

/// Runs the call of `full_name` (`<slug>__<tool>`) with the AI's `args`.
/// Its journal entry is kept by the store: the caller commits it with
/// [`Store::journal_flush`] once the answer is delivered (the next call,
/// a read of the journal or dropping the store commit it otherwise).
pub async fn call(store: &Store, client: &Client, turn: &Turn, full_name: &str, args: &Value) -> Outcome {
    run(store, client, turn, full_name, args, &mut None).await
}

/// What the app sent for a call, as the Developer section's Try an action
/// shows it (§19): every secret and credential as `[secret]`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
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

/// [`call`], also giving the request that was sent (none when the call
/// ended before a request was built).
pub async fn call_showing_request(
    store: &Store,
    client: &Client,
    turn: &Turn,
    full_name: &str,
    args: &Value,
) -> (Outcome, Option<SentRequest>) {
    let mut sent = None;
    let outcome = run(store, client, turn, full_name, args, &mut sent).await;
    (outcome, sent)
}

async fn run(
    store: &Store,
    client: &Client,
    turn: &Turn,
    full_name: &str,
    args: &Value,
    sent: &mut Option<SentRequest>,
) -> Outcome {
    let (slug, tool_name) = full_name.split_once("__").unwrap_or((full_name, ""));
    let context = match store.call_context(slug) {
        Ok(context) => context,
        Err(e) => return failed_unlogged(CallCode::ExecutionError, &format!("the app could not read the plugin: {e}")),
    };
    let tool = context.as_ref().and_then(|c| c.plugin.as_deref()).and_then(|p| p.tool(tool_name));
    // Opened once per call: for the auth block, and to mask them wherever
    // they might appear (answers, errors, subjects).
    let opened = context.as_ref().map(|c| store.open_secrets(c)).unwrap_or_default();
    // Borrowed, not copied: the only copies in clear are the wiped ones.
    let secrets: Vec<&str> = opened.iter().map(|(_, s)| s.expose()).collect();
    let masker = Masker::new(secrets.iter().copied());
    let record =
        Record { store, slug, tool: tool_name, who: turn.source.as_str(), subject: subject(tool, args, &masker) };
    let turn = match in_step(store, turn) {
        Ok(turn) => turn,
        Err(e) => {
            return record.failed(
                CallCode::ExecutionError,
                &format!("the app could not count the turn's steps: {e}"),
                false,
                &masker,
            )
        }
    };
    if let Err(reason) = courtier::may_run(&turn, context.as_deref(), tool) {
        return record.refused(reason);
    }
    let (Some(context), Some(tool)) = (&context, tool) else { return record.refused(Refusal::UnknownTool) };
    // A call without a turn id is a turn of its own; calls sharing an id
    // share the chat's one call (§12).
    if let (Source::Twitch, Some(turn_id)) = (turn.source, &turn.id) {
        match store.take_chat_call(turn_id) {
            Ok(0) => {}
            Ok(_) => return record.refused(Refusal::TwitchQuota),
            Err(e) => {
                return record.failed(
                    CallCode::ExecutionError,
                    &format!("the app could not count the chat's calls: {e}"),
                    false,
                    &masker,
                )
            }
        }
    }
    let args = match arguments::convert(tool, args) {
        Ok(args) => args,
        Err(e) => {
            return record.failed(
                CallCode::InvalidArguments,
                &format!("{e}. Fix these arguments and call again."),
                true,
                &masker,
            )
        }
    };
    let Ok(lock) = busy_lock(store, slug) else {
        return record.failed(CallCode::ExecutionError, "the app could not take the plugin's lock", false, &masker);
    };
    let Some(_lock) = lock else {
        return record.failed(
            CallCode::Busy,
            "another call of this plugin is still running; try again when it ends",
            true,
            &masker,
        );
    };
    let Some(plugin) = &context.plugin else { return record.refused(Refusal::PluginOff) };
    let (outgoing, credentials) = match request(plugin, tool, context, &args, &opened) {
        Ok(built) => built,
        Err(e) => return record.failed(e.code(), &e.to_string(), false, &masker),
    };
    // From here on a server may echo the credentials as sent, whole.
    let masker = Masker::new(secrets.iter().copied().chain(credentials.iter().map(Sensitive::expose)));
    *sent = Some(SentRequest {
        method: tool.request.method.as_str(),
        url: masker.mask(&outgoing.url),
        headers: outgoing.headers.iter().map(|(name, value)| (name.clone(), masker.mask(value))).collect(),
        body: outgoing.body.as_deref().map(|body| masker.mask(&String::from_utf8_lossy(body))),
    });
    let policy = Policy {
        hosts: plugin.hosts.clone(),
        local_ports: plugin.local_ports.clone(),
        dev_mode: context.prefs.dev_mode,
    };
    let incoming = match client.send(outgoing, &policy).await {
        Ok(incoming) => incoming,
        Err(e) => return record.failed(e.code(), &net_message(&e), e.retryable(), &masker),
    };
    match answer::read(incoming.status, incoming.content_type.as_deref(), &incoming.body, &tool.response, &masker) {
        Ok(text) => record.done(frame(slug, &tool.name, &text)),
        Err(f) => record.failed_showing(f.code, &f.message, f.from_server.as_deref(), f.retryable, &masker),
    }
}

/// The turn with this call's step resolved: calls sharing a turn id count
/// its steps (§3); a call without one is a turn of its own.
fn in_step(store: &Store, turn: &Turn) -> Result<Turn, dcp_store::StoreError> {
    let step = match &turn.id {
        Some(id) => store.take_step(id, turn.step)?,
        None => turn.step.unwrap_or(1),
    };
    Ok(Turn { step: Some(step), ..turn.clone() })
}

fn busy_lock(store: &Store, slug: &str) -> std::io::Result<Option<crate::busy::PluginLock>> {
    crate::busy::try_lock(store.profile().root(), slug)
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

/// What the AI is told for a network failure (§15: a server on the PC that
/// does not answer is probably not running).
fn net_message(e: &NetError) -> String {
    match e {
        NetError::Network { local: true, .. } => {
            "the program on the user's PC did not answer: it is probably not running. Ask the user to start it, then try again.".into()
        }
        other => other.to_string(),
    }
}

/// The journal's subject: the first text argument, cleaned, masked, short.
fn subject(tool: Option<&Tool>, args: &Value, masker: &Masker) -> Option<String> {
    let tool = tool?;
    let first =
        tool.arguments.iter().filter(|a| a.kind == ArgKind::String).find_map(|a| args.get(&a.name)?.as_str())?;
    Some(masker.mask(&answer::clean(first)))
}

/// Writes the journal entry of a call and shapes what the AI reads.
struct Record<'a> {
    store: &'a Store,
    slug: &'a str,
    tool: &'a str,
    who: &'a str,
    subject: Option<String>,
}

impl Record<'_> {
    fn write(&self, outcome: Logged, code: Option<SpecCode>, error: Option<&str>) {
        // Kept, not committed: the AI's answer does not wait for the disk.
        // The journal must not turn a finished call into a failure; an
        // entry that cannot be committed is reported by the caller's flush.
        let _ = self.store.journal_queue(&NewEntry {
            plugin: self.slug,
            action: self.tool,
            who: self.who,
            kind: Kind::Call,
            outcome,
            code,
            subject: self.subject.as_deref(),
            error,
        });
    }

    fn refused(&self, reason: Refusal) -> Outcome {
        self.write(Logged::Refused, Some(SpecCode::Refusal(reason)), None);
        let code = ToolCode::Call(CallCode::PolicyDenied);
        Outcome {
            outcome: Logged::Refused,
            code: Some(code),
            reason: Some(reason),
            retryable: false,
            for_ai: format!("{code} ({reason}): {}", reason.for_ai()),
        }
    }

    fn failed(&self, code: impl Into<ToolCode>, message: &str, retryable: bool, masker: &Masker) -> Outcome {
        self.failed_showing(code.into(), message, None, retryable, masker)
    }

    /// A failure whose `from_server` text (already cleaned and masked) the
    /// AI reads inside the untrusted frame, like an answer (§9).
    fn failed_showing(
        &self,
        code: ToolCode,
        message: &str,
        from_server: Option<&str>,
        retryable: bool,
        masker: &Masker,
    ) -> Outcome {
        let message = masker.mask(message);
        let retry = if retryable { " You may retry." } else { "" };
        let mut for_ai = format!("{code}: {message}{retry}");
        if let Some(text) = from_server {
            for_ai.push('\n');
            for_ai.push_str(&frame(self.slug, self.tool, text));
        }
        // The journal gets the code; the error goes to the plugin's last
        // failed calls (§3, §19).
        self.write(Logged::Failed, Some(SpecCode::Tool(code)), Some(&for_ai));
        Outcome { outcome: Logged::Failed, code: Some(code), reason: None, retryable, for_ai }
    }

    fn done(&self, for_ai: String) -> Outcome {
        self.write(Logged::Done, None, None);
        Outcome { outcome: Logged::Done, code: None, reason: None, retryable: false, for_ai }
    }
}

fn failed_unlogged(code: CallCode, message: &str) -> Outcome {
    Outcome {
        outcome: Logged::Failed,
        code: Some(code.into()),
        reason: None,
        retryable: false,
        for_ai: format!("{code}: {message}"),
    }
}
