//! `tools`, `call` and `journal`: the tool-call pipeline seen from a script.

use super::host::{fail, run as act};
use crate::shown::{errln, line, outln};
use crate::TurnArgs;
use dcp_host::events::HostEvent;
use dcp_host::Refusal;
use dcp_host::{Host, JournalOutcome, JournalQuery, Status, ToolRef, Turn};
use std::process::ExitCode;

/// The turn described on the command line.
pub fn turn(args: &TurnArgs) -> Turn {
    // `call` asks no one: an R3 action is refused as before. `tools`
    // shows the arguments in the form the turn's AI reads (§17).
    Turn {
        live: args.live,
        builtin: args.builtin,
        id: args.turn.clone(),
        step: args.step,
        ..Turn::new(args.source, args.model.into())
    }
}

/// `dcplugin tools`: the offer for the turn's next step, unless `--step`
/// names one.
pub fn tools(host: &Host, args: &TurnArgs, json: bool) -> ExitCode {
    act(host, json, host.offer(turn(args)), |o| {
        let mut lines: Vec<String> = o.tools.iter().map(|t| format!("{}  {}", t.name, t.description)).collect();
        if !o.abilities.is_empty() {
            lines.push(format!("abilities:\n  {}", o.abilities.join("\n  ")));
        }
        for l in &o.left_out {
            lines.push(format!(
                "left out: {}{}  {} ({})",
                l.plugin,
                l.tool.as_ref().map_or(String::new(), |t| format!("__{t}")),
                l.message,
                l.reason
            ));
        }
        if lines.is_empty() {
            let me = crate::me();
            format!(
                "no tool offered: no active plugin (see {me} list; {me} import FILE or dcplugin init DIR to add one)"
            )
        } else {
            lines.join("\n")
        }
    })
}

/// `dcplugin call`: exit 0 when done, 1 otherwise.
pub fn call(host: &Host, tool: &str, args: Option<&str>, turn_args: &TurnArgs, json: bool) -> anyhow::Result<ExitCode> {
    let args: serde_json::Value = match args {
        Some(text) => serde_json::from_str(text).map_err(|e| anyhow::anyhow!("--args is not JSON: {e}"))?,
        None => serde_json::Value::Object(Default::default()),
    };
    let mut events = host.subscribe();
    let outcome = match host.block_on(host.call(turn(turn_args), tool, args)) {
        Ok(outcome) => outcome,
        Err(e) => return Ok(fail(&e, json)),
    };
    let hint = match (outcome.outcome, outcome.reason) {
        // plugin_off also covers a file that is Invalid, Modified or Missing: its status says which fix.
        (JournalOutcome::Refused, Some(Refusal::PluginOff)) => {
            let card = tool.parse::<ToolRef>().ok().and_then(|t| host.block_on(host.card(t.slug())).ok());
            card.filter(|c| !matches!(c.status, Status::Off | Status::Active))
                .and_then(|c| super::hints::status_fix(&c))
                .or_else(|| super::hints::fix_for_refusal(Refusal::PluginOff, tool))
        }
        (JournalOutcome::Refused, Some(reason)) => super::hints::fix_for_refusal(reason, tool),
        _ => None,
    };
    if json {
        /// The outcome, and the command or flag that fixes a refusal.
        #[derive(serde::Serialize)]
        struct CallJson<'a> {
            #[serde(flatten)]
            outcome: &'a dcp_host::CallOutcome,
            #[serde(skip_serializing_if = "Option::is_none")]
            hint: Option<&'a str>,
        }
        crate::output::print_json(&CallJson { outcome: &outcome, hint: hint.as_deref() });
    } else {
        outln!("{}", outcome.for_ai);
        if let Some(hint) = &hint {
            errln!("hint: {hint}");
        }
    }
    while let Ok(event) = events.try_recv() {
        if let HostEvent::JournalLost { message } = event {
            errln!("warning: {message}");
        }
    }
    Ok(if outcome.outcome == JournalOutcome::Done { ExitCode::SUCCESS } else { ExitCode::from(super::REFUSED) })
}

/// `dcplugin journal`.
pub fn journal(host: &Host, query: JournalQuery, json: bool) -> ExitCode {
    act(host, json, host.journal(query), |entries| {
        let lines = entries
            .iter()
            .map(|e| {
                // Every field may hold what the AI or a client made up (issue 32): each on this one line.
                let code = e.code.as_ref().map_or(String::new(), |c| format!(" {}", line(&c.to_string())));
                let subject = e.subject.as_deref().map_or(String::new(), |s| format!("  \"{}\"", line(s)));
                let when = crate::localtime::format_ms(e.at);
                // An R3 call's answer from the player (§12): confirmed, declined, expired.
                let asked = e.confirmation.as_ref().map_or(String::new(), |d| format!(" ({d})"));
                // Where a confirmed call's request was redirected, read or refused (issue 32, §12, §14).
                let ended = e.ended_at.as_deref().map_or(String::new(), |url| format!(" redirected to {}", line(url)));
                // The AI app that asked, as it named itself (issue 24): "mcp (Claude Desktop 0.9.2)".
                let who =
                    e.client.as_deref().map_or(e.who.to_string(), |client| format!("{} ({})", e.who, line(client)));
                format!(
                    "{when}  {}__{}  {who}  {}{code}{asked}{ended}{subject}",
                    line(&e.plugin),
                    line(&e.action),
                    e.outcome
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        if lines.is_empty() {
            "no journal entry yet".to_owned()
        } else {
            lines
        }
    })
}
