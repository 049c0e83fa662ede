//! `ai` (the companion's AI: show it, set its URL and model, or the most
//! tokens one answer may have: issue 34), `ai key`
//! (its API key from standard input, never printed) and `ai test` (reach it,
//! list its models, and say whether the model can use tools: issues 22, 34).
//! Where the AI runs is the URL's: the host judges it; this module prints.

use super::host::{fail, run as act, say_failure};
use super::plugins::read_secret;
use crate::output::print_json;
use crate::shown::{line, outln};
use crate::words::place_words;
use dcp_host::{AiSettings, AiTest, ApiError, ErrorCode, FoundAi, Host, HostCode, PcServer};
use serde::Serialize;
use std::process::ExitCode;

/// What `ai` does besides showing.
pub enum AiCommand {
    /// Show, or set the URL and/or the model, or (alone) the answer length:
    /// a number as typed, or `default`.
    Set { url: Option<String>, model: Option<String>, max_tokens: Option<String> },
    /// Keep the key read from standard input, or clear it.
    Key { clear: bool },
    /// Reach the AI and list its models.
    Test,
}

/// Runs `dcplugin ai …`.
pub fn run(host: &Host, command: AiCommand, json: bool) -> anyhow::Result<ExitCode> {
    Ok(match command {
        AiCommand::Set { url: None, model: None, max_tokens: None } => show(host, json),
        AiCommand::Set { max_tokens: Some(typed), .. } => {
            // The word `default` is this command line's; the number is the host's to judge.
            let typed = Some(typed).filter(|t| t.trim() != "default");
            match host.block_on(host.set_ai_max_tokens(typed)) {
                Ok(settings) => print(&settings, json, None),
                Err(e) => refused(&e, json),
            }
        }
        AiCommand::Set { url, model, max_tokens: None } => match host.block_on(host.set_ai(url, model)) {
            Ok(settings) => print(&settings, json, None),
            Err(e) => refused(&e, json),
        },
        AiCommand::Key { clear: true } => act(host, json, host.clear_ai_key(), |_| "API key cleared".into()),
        AiCommand::Key { clear: false } => {
            let key = read_secret()?;
            if key.is_empty() {
                anyhow::bail!("no key on standard input (to forget the key: {} ai key --clear)", crate::me());
            }
            match host.block_on(host.set_ai_key(key)) {
                Ok(settings) => print(&settings, json, None),
                Err(e) => refused(&e, json),
            }
        }
        AiCommand::Test => test(host, json),
    })
}

/// `ai` alone: the AI kept, or, with none, what answers on this PC.
fn show(host: &Host, json: bool) -> ExitCode {
    let settings = match host.block_on(host.ai()) {
        Ok(settings) => settings,
        Err(e) => return fail(&e, json),
    };
    let found = match settings.url {
        None => host.block_on(host.find_pc_ai()),
        Some(_) => Vec::new(),
    };
    print(&settings, json, Some(&found))
}

/// `--json`: `{"url", "model", "where", "key_set"}`, and `found` (the AI
/// servers answering on this PC) when none is set.
#[derive(Serialize)]
struct SettingsJson<'a> {
    #[serde(flatten)]
    settings: &'a AiSettings,
    #[serde(skip_serializing_if = "Option::is_none")]
    found: Option<&'a [FoundAi]>,
}

fn print(settings: &AiSettings, json: bool, found: Option<&[FoundAi]>) -> ExitCode {
    let found = found.filter(|_| settings.url.is_none());
    if json {
        print_json(&SettingsJson { settings, found });
        return ExitCode::SUCCESS;
    }
    let me = crate::me();
    match (&settings.url, settings.place) {
        (Some(url), Some(place)) => outln!("AI: {url} ({})", place_words(place)),
        _ => outln!("AI: not set"),
    }
    outln!("model: {}", line(settings.model.as_deref().unwrap_or("not set")));
    outln!("API key: {}", if settings.key_set { "set" } else { "not set" });
    let bounds = settings.max_tokens_bounds;
    let default = if settings.max_tokens == bounds.default { ", the default" } else { "" };
    outln!(
        "answer length: at most {} tokens{default} (from {} to {}: {me} ai --max-tokens N|default)",
        settings.max_tokens,
        bounds.min,
        bounds.max
    );
    if settings.key_forgotten {
        // Bound to scheme, host and port (issue 32): another program must not get it.
        outln!(
            "the API key was forgotten: it was given for another address (scheme, host or port); \
             set it again: {me} ai key"
        );
    }
    if let Some(found) = found {
        if found.is_empty() {
            let ports: Vec<String> = PcServer::ALL
                .iter()
                .map(|s| {
                    format!("{} {}", s.name(), s.ports().iter().map(u16::to_string).collect::<Vec<_>>().join(" or "))
                })
                .collect();
            outln!(
                "no AI answers on this PC's usual ports ({}): start one, or set an online AI: {me} ai --url https://… --model NAME",
                ports.join(", ")
            );
        }
        for f in found {
            // Whatever answers on these ports names its models (issue 32): each on this line.
            let models = if f.models.is_empty() { "no model yet".to_owned() } else { names(&f.models) };
            outln!("found on this PC: {} ({models})", f.url);
            if let Some(model) = f.models.first() {
                outln!("  to use it: {me} ai --url {} --model {}", f.url, line(&super::shell_word(model)));
            }
        }
    } else if settings.url.is_some() && settings.model.is_none() {
        outln!("next: {me} ai --model NAME (see {me} ai test for the models)");
    }
    ExitCode::SUCCESS
}

/// Model names as the AI service gave them, each on this one line.
fn names(models: &[String]) -> String {
    models.iter().map(|m| line(m).to_string()).collect::<Vec<_>>().join(", ")
}

/// A refusal: `{"ok": false, "code", "message", "hint"?}`, exit 1: an
/// AI's code, or `bad_input` for an answer length out of bounds (or a
/// Twitch channel that is no Twitch login, `twitch-chat`).
pub(super) fn refused(e: &ApiError, json: bool) -> ExitCode {
    let hint = match e.code {
        ErrorCode::Ai(code) => super::hints::ai_fix(code),
        ErrorCode::Host(HostCode::BadInput) => None,
        _ => return fail(e, json),
    };
    let code = e.code;
    if json {
        print_json(&serde_json::json!({ "ok": false, "code": code, "message": e.message, "hint": hint }));
    } else {
        say_failure(code.as_str(), &e.message, hint.as_deref());
    }
    ExitCode::from(super::REFUSED)
}

/// `ai test`: exit 0 only when the AI answered and knows the model.
fn test(host: &Host, json: bool) -> ExitCode {
    let tested: AiTest = match host.block_on(host.ai_test(true)) {
        Ok(tested) => tested,
        Err(e) => return fail(&e, json),
    };
    if json {
        print_json(&tested);
    } else if tested.ok {
        let place = tested.place.map_or("", place_words);
        match tested.models.len() {
            // Ollama with nothing pulled yet answers with an empty list.
            0 => outln!("Connected ({place}), but it lists no model yet: get one (Ollama: ollama pull NAME)"),
            1 => outln!("Connected ({place}): 1 model: {}", names(&tested.models)),
            n => outln!("Connected ({place}): {n} models: {}", names(&tested.models)),
        }
        for words in crate::words::tools_lines(&tested) {
            outln!("{words}");
        }
    } else {
        let code = tested.code.map_or("error", |c| c.as_str());
        let message = tested.message.as_deref().unwrap_or("the AI could not be reached");
        say_failure(code, message, tested.code.and_then(super::hints::ai_fix).as_deref());
    }
    if tested.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::REFUSED)
    }
}
