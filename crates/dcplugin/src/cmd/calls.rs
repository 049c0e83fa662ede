//! `tools`, `call` and `journal`: the tool-call pipeline seen from a script.

use super::store::run as act;
use crate::TurnArgs;
use dcp_call::offer::offer;
use dcp_call::turn::{Model, Source, Turn};
use dcp_store::Store;
use std::process::ExitCode;

/// The turn described on the command line.
pub fn turn(args: &TurnArgs) -> Turn {
    Turn {
        source: Source::parse(&args.source).unwrap_or(Source::Voice),
        model: if args.model == "online" { Model::Online } else { Model::Local },
        live: args.live,
        builtin: args.builtin,
        id: args.turn.clone(),
        step: args.step,
    }
}

/// `dcplugin tools`: the offer for the turn's next step, unless `--step`
/// names one.
pub fn tools(store: &Store, args: &TurnArgs, json: bool) -> ExitCode {
    let mut t = turn(args);
    act(
        json,
        || {
            if let (Some(id), None) = (&t.id, t.step) {
                t.step = Some(store.steps_used(id)? + 1);
            }
            Ok(offer(&t, &store.call_contexts()?))
        },
        |o| {
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
                "no tool offered".into()
            } else {
                lines.join("\n")
            }
        },
    )
}

/// `dcplugin call`: exit 0 when done, 1 otherwise.
pub fn call(
    store: &Store,
    tool: &str,
    args: Option<&str>,
    turn_args: &TurnArgs,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let args: serde_json::Value = match args {
        Some(text) => serde_json::from_str(text).map_err(|e| anyhow::anyhow!("--args is not JSON: {e}"))?,
        None => serde_json::Value::Object(Default::default()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let client = dcp_net::Client::new();
    let outcome = runtime.block_on(dcp_call::pipeline::call(store, &client, &turn(turn_args), tool, &args));
    if json {
        crate::output::print_json(&outcome);
    } else {
        println!("{}", outcome.for_ai);
    }
    // The answer is out: now the call's journal entry is committed.
    if let Err(e) = store.journal_flush() {
        eprintln!("warning: {e}");
    }
    Ok(if outcome.outcome == "done" { ExitCode::SUCCESS } else { ExitCode::from(super::REFUSED) })
}

/// `dcplugin journal`.
pub fn journal(store: &Store, limit: usize, plugin: Option<&str>, json: bool) -> ExitCode {
    act(
        json,
        || store.journal(limit, plugin),
        |entries| {
            entries
                .iter()
                .map(|e| {
                    let code = e.code.as_deref().map_or(String::new(), |c| format!(" {c}"));
                    let subject = e.subject.as_deref().map_or(String::new(), |s| format!("  \"{s}\""));
                    format!("{}  {}__{}  {}  {}{code}{subject}", e.at, e.plugin, e.action, e.who, e.outcome)
                })
                .collect::<Vec<_>>()
                .join("\n")
        },
    )
}
