//! `events` (a plugin's events, their switches, the door's state and the
//! event token) and `serve` (the host without a window: the event door and
//! the folder watchers, printing what happens).

use super::store::{done, fail, Ok as Done};
use crate::output::print_json;
use dcp_door::{CompanionState, Door, DoorConfig, Notice, SystemClock, Wanted};
use dcp_store::{Profile, Store};
use dcp_vault::OsKeyStore;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Serialize)]
struct EventRow {
    name: String,
    title: String,
    on: bool,
}

#[derive(Serialize)]
struct DoorView {
    wanted: Wanted,
    address: String,
}

#[derive(Serialize)]
struct EventsView {
    slug: String,
    status: String,
    events: Vec<EventRow>,
    door: DoorView,
    token_made: bool,
}

/// `dcplugin events SLUG [on|off EVENT | token [--new]]`.
pub fn run(
    store: &Store,
    slug: &str,
    what: Option<&str>,
    event: Option<&str>,
    new: bool,
    port: u16,
    json: bool,
) -> anyhow::Result<ExitCode> {
    Ok(match (what, event) {
        (Some(state @ ("on" | "off")), Some(event)) => match store.set_event_enabled(slug, event, state == "on") {
            Ok(()) => done(&Done { ok: true }, json, || format!("{event} {state}")),
            Err(e) => fail(&e, json),
        },
        (Some("on" | "off"), None) => anyhow::bail!("name the event: dcplugin events {slug} on|off EVENT"),
        (Some("token"), None) => {
            let token = if new { store.new_event_token(slug) } else { store.event_token(slug) };
            match token {
                // The CLI is the details page's Copy: the one place a token is shown.
                Ok(token) => done(&serde_json::json!({ "token": token.expose() }), json, || token.expose().to_owned()),
                Err(e) => fail(&e, json),
            }
        }
        (None, None) => match view(store, slug, port) {
            Ok(v) => done(&v, json, || human(&v)),
            Err(e) => fail(&e, json),
        },
        _ => anyhow::bail!("use: dcplugin events SLUG [on|off EVENT | token [--new]]"),
    })
}

fn view(store: &Store, slug: &str, port: u16) -> Result<EventsView, dcp_store::StoreError> {
    let context = store.call_context(slug)?.ok_or_else(|| dcp_store::StoreError::UnknownPlugin(slug.to_owned()))?;
    let language = store.prefs()?.language;
    let on = store.event_switches(slug)?;
    let events = context
        .plugin
        .as_ref()
        .map(|p| {
            p.events
                .iter()
                .map(|e| EventRow {
                    name: e.name.clone(),
                    title: e.title.get(&language).or_else(|| e.title.get("en")).cloned().unwrap_or_default(),
                    on: on.contains(&e.name),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(EventsView {
        slug: slug.to_owned(),
        status: context.status.label().to_owned(),
        events,
        door: DoorView { wanted: dcp_door::wanted_now(store), address: format!("127.0.0.1:{port}") },
        token_made: store.event_token_sealed(slug)?.is_some(),
    })
}

fn human(v: &EventsView) -> String {
    let mut lines = vec![format!("{}  ({})", v.slug, v.status)];
    if v.events.is_empty() {
        lines.push("  no event".into());
    }
    for e in &v.events {
        lines.push(format!("  {:<40} {:<4} {}", e.name, if e.on { "on" } else { "off" }, e.title));
    }
    lines.push(match v.door.wanted {
        Wanted::Open => format!("door: open on {} while the app or dcplugin serve runs", v.door.address),
        Wanted::DevModeOff => "door: closed (developer mode is off)".into(),
        Wanted::NoEventOn => "door: closed (no event of an active plugin is switched on)".into(),
    });
    lines.push(format!("token: {}", if v.token_made { "made (dcplugin events SLUG token)" } else { "not made yet" }));
    lines.join("\n")
}

/// One line of `serve`.
fn print_notice(n: &Notice, json: bool) {
    if json {
        print_json(n);
        return;
    }
    let line = match n {
        Notice::Door { state } => format!("door: {}", state.describe()),
        Notice::Received { plugin, event, text } => {
            format!("received {plugin}/{event}{}", text.as_deref().map_or(String::new(), |t| format!("  \"{t}\"")))
        }
        Notice::Refused { plugin, event, reason } => {
            format!("refused {plugin}/{}  {reason}", event.as_deref().unwrap_or("-"))
        }
        Notice::Dropped { plugin, event, reason } => format!("dropped {plugin}/{event}  {reason}"),
        Notice::Turn { message, .. } => {
            format!("event turn (no tools: any call is refused as not_requested): {message}")
        }
    };
    println!("{line}");
}

/// `dcplugin serve`: runs until Ctrl-C or SIGTERM.
pub fn serve(profile: Option<PathBuf>, listening: bool, port: u16, json: bool) -> anyhow::Result<ExitCode> {
    let profile = Profile::locate(profile)?;
    let keys: Arc<OsKeyStore> = Arc::new(OsKeyStore::new());
    let store = Store::open(profile.clone(), keys.clone())?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().worker_threads(2).build()?;
    runtime.block_on(async move {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let door = Door::start(store, DoorConfig { port, ..DoorConfig::default() }, Arc::new(SystemClock::new()), tx);
        if listening {
            door.set_companion(CompanionState::Listening);
        } else {
            door.set_companion(CompanionState::Sleeping);
        }
        let watcher = dcp_store::watch::FolderWatcher::start(profile, keys, move |reloaded| match reloaded {
            Ok(entries) => {
                for e in entries {
                    if json {
                        print_json(&serde_json::json!({ "kind": "reloaded", "plugin": e.slug, "status": e.status }));
                    } else {
                        println!("reloaded {}  {}", e.slug, e.status_label);
                    }
                }
            }
            Err(e) if json => print_json(&serde_json::json!({ "kind": "reload_failed", "error": e.to_string() })),
            Err(e) => println!("reload failed, trying again: {e}"),
        })?;
        let stop = stop_signal();
        tokio::pin!(stop);
        loop {
            tokio::select! {
                notice = rx.recv() => match notice {
                    Some(n) => print_notice(&n, json),
                    None => break,
                },
                () = &mut stop => break,
            }
        }
        door.stop().await;
        drop(watcher);
        if json {
            print_json(&serde_json::json!({ "kind": "stopped" }));
        } else {
            println!("stopped");
        }
        anyhow::Ok(ExitCode::SUCCESS)
    })
}

async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
