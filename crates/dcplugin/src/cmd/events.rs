//! `events` (a plugin's events, their switches, the door's state and the
//! event token) and `serve` (the host without a window: the event door and
//! the folder watchers, printing what happens).

use super::host::{done, fail, run as act, Ok as Done};
use crate::output::print_json;
use dcp_host::events::{Change, HostEvent};
use dcp_host::{BackgroundOptions, EventsPage, Host, Notice, Wanted};
use std::process::ExitCode;

/// `dcplugin events SLUG [on|off EVENT | token [--new]]`.
pub fn run(
    host: &Host,
    slug: &str,
    what: Option<&str>,
    event: Option<&str>,
    new: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    Ok(match (what, event) {
        (Some(state @ ("on" | "off")), Some(event)) => act(
            host,
            json,
            async { host.set_event_enabled(slug, event, state == "on").await.map(|_| Done { ok: true }) },
            |_| format!("{event} {state}"),
        ),
        (Some("on" | "off"), None) => anyhow::bail!("name the event: dcplugin events {slug} on|off EVENT"),
        (Some("token"), None) => {
            let token = host.block_on(async {
                if new {
                    host.new_event_token(slug).await
                } else {
                    host.event_token(slug).await
                }
            });
            match token {
                // The CLI is the details page's Copy: the one place a token is shown.
                Ok(token) => done(&serde_json::json!({ "token": token.expose() }), json, || token.expose().to_owned()),
                Err(e) => fail(&e, json),
            }
        }
        (None, None) => act(host, json, host.events_page(slug), human),
        _ => anyhow::bail!("use: dcplugin events SLUG [on|off EVENT | token [--new]]"),
    })
}

fn human(v: &EventsPage) -> String {
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

/// One line of `serve` for a door notice.
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

/// One line of `serve` for a host event; events a script does not follow are not printed.
fn print_event(event: &HostEvent, json: bool) {
    match event {
        HostEvent::Door { notice } => print_notice(notice, json),
        HostEvent::PluginChanged { change: Change::FolderSaved, card: Some(card), .. } if json => {
            print_json(&serde_json::json!({ "kind": "reloaded", "plugin": card.slug, "status": card.status }))
        }
        HostEvent::PluginChanged { change: Change::FolderSaved, card: Some(card), .. } => {
            println!("reloaded {}  {}", card.slug, card.status_label)
        }
        HostEvent::ReloadFailed { message } if json => {
            print_json(&serde_json::json!({ "kind": "reload_failed", "error": message }))
        }
        HostEvent::ReloadFailed { message } => println!("reload failed, trying again: {message}"),
        _ => {}
    }
}

/// `dcplugin serve`: runs until Ctrl-C or SIGTERM.
pub fn serve(host: &Host, listening: bool, json: bool) -> anyhow::Result<ExitCode> {
    let mut events = host.subscribe();
    let background = host.start_background(BackgroundOptions { listening })?;
    host.block_on(async move {
        let stop = stop_signal();
        tokio::pin!(stop);
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => print_event(&event, json),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                },
                () = &mut stop => break,
            }
        }
        background.stop().await;
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
