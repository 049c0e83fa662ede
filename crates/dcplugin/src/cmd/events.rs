//! `events` (a plugin's events, their switches, the door's state and the
//! event token) and `serve` (the host without a window: the event door and
//! the folder watchers, printing what happens).

use super::host::{done, fail, run as act, run_as, Ok as Done};
use crate::choice::EventsWhat;
use crate::output::print_json;
use crate::shown::{line, outln};
use crate::words::{door_state_words, status_label, EventsPageJson};
use dcp_host::events::{Change, HostEvent};
use dcp_host::{held_by_a_door, BackgroundOptions, DoorState, EventsPage, Host, Notice, Origin, Status, Wanted};
use std::process::ExitCode;

/// `dcplugin events SLUG [on|off EVENT | token [--new]]`.
pub fn run(
    host: &Host,
    slug: &str,
    what: Option<EventsWhat>,
    event: Option<&str>,
    new: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    Ok(match (what, event) {
        (Some(state @ (EventsWhat::On | EventsWhat::Off)), Some(event)) => act(
            host,
            json,
            async { host.set_event_enabled(slug, event, state == EventsWhat::On).await.map(|_| Done { ok: true }) },
            |_| {
                if state == EventsWhat::On {
                    let me = crate::me();
                    format!(
                        "{event} on\nnext: the door listens while `{me} serve` (or the app) runs, in developer mode; \
                         give your program the event token: {me} events {slug} token"
                    )
                } else {
                    format!("{event} off")
                }
            },
        ),
        (Some(EventsWhat::On | EventsWhat::Off), None) => {
            anyhow::bail!("name the event: dcplugin events {slug} on|off EVENT")
        }
        (Some(EventsWhat::Token), None) => {
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
        (None, None) => run_as(host, json, host.events_page(slug), EventsPageJson::of, human),
        _ => anyhow::bail!("use: dcplugin events SLUG [on|off EVENT | token [--new]]"),
    })
}

fn human(v: &EventsPage) -> String {
    let mut lines = vec![format!("{}  ({})", v.slug, status_label(v.status))];
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
async fn print_notice(n: &Notice, json: bool) {
    if json {
        print_json(n);
        return;
    }
    // A refused request's plugin and event are what its sender wrote: each on this line.
    let said = match n {
        Notice::Door { state } => format!("door: {}", door_words(state).await),
        Notice::Received { plugin, event, text } => {
            format!(
                "received {}/{}{}",
                line(plugin),
                line(event),
                text.as_deref().map_or(String::new(), |t| format!("  \"{}\"", line(t)))
            )
        }
        Notice::Refused { plugin, event, reason } => {
            format!("refused {}/{}  {reason}", line(plugin), line(event.as_deref().unwrap_or("-")))
        }
        Notice::Dropped { plugin, event, reason } => format!("dropped {}/{}  {reason}", line(plugin), line(event)),
        Notice::Turn { message, .. } => {
            format!("event turn (no tools: any call is refused as not_requested): {message}")
        }
    };
    outln!("{said}");
}

/// One line of `serve` for a host event; events a script does not follow
/// are not printed. A saved folder that no longer passes the checks
/// (Invalid) comes with its errors, read from the plugin's details.
async fn print_event(host: &Host, event: &HostEvent, json: bool) {
    match event {
        // Only the words change: `--json` prints the notice as it is.
        HostEvent::Door { notice } => print_notice(notice, json).await,
        HostEvent::PluginChanged { change: Change::FolderSaved, card: Some(card), .. } => {
            let errors = if card.status == Status::Invalid {
                host.details(&card.slug).await.map(|d| d.errors).unwrap_or_default()
            } else {
                Vec::new()
            };
            if json {
                let mut line = serde_json::json!({ "kind": "reloaded", "plugin": card.slug, "status": card.status });
                if !errors.is_empty() {
                    line["errors"] = serde_json::to_value(&errors).unwrap_or_default();
                }
                print_json(&line);
            } else {
                outln!("reloaded {}  {}", card.slug, status_label(card.status));
                for problem in &errors {
                    outln!("  {}", line(&problem.to_string()));
                }
                if !errors.is_empty() {
                    outln!("  fix manifest.json and save again: it is read at each save");
                }
            }
        }
        HostEvent::ReloadFailed { message } if json => {
            print_json(&serde_json::json!({ "kind": "reload_failed", "error": message }))
        }
        HostEvent::ReloadFailed { message } => outln!("reload failed, trying again: {message}"),
        _ => {}
    }
}

/// The door's state in words; for a taken port, the program holding it is
/// asked whether it is another event door ([`held_by_a_door`]): `serve`'s
/// and `chat`'s door line.
pub(super) async fn door_words(state: &DoorState) -> String {
    let by_a_door = match state {
        DoorState::PortTaken { port } => {
            let port = *port;
            tokio::task::spawn_blocking(move || held_by_a_door(port)).await.unwrap_or(false)
        }
        _ => false,
    };
    door_state_words(state, by_a_door)
}

/// `dcplugin serve`: runs until Ctrl-C or SIGTERM.
pub fn serve(host: &Host, listening: bool, door_port: u16, json: bool) -> anyhow::Result<ExitCode> {
    let mut events = host.subscribe();
    let background = host.start_background(BackgroundOptions { listening })?;
    print_start(host, door_port, json);
    host.block_on(async move {
        let stop = stop_signal();
        tokio::pin!(stop);
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => print_event(host, &event, json).await,
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
            outln!("stopped");
        }
        anyhow::Ok(ExitCode::SUCCESS)
    })
}

/// What `serve` watches, said once at its start: the loaded folders and
/// the door's port.
fn print_start(host: &Host, door_port: u16, json: bool) {
    let folders: Vec<(String, std::path::PathBuf)> = host
        .block_on(host.cards())
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c.origin == Origin::Folder)
        .filter_map(|c| host.block_on(host.details(&c.slug)).ok().map(|d| (c.slug, d.folder)))
        .collect();
    if json {
        let watching: Vec<_> =
            folders.iter().map(|(slug, dir)| serde_json::json!({ "plugin": slug, "folder": dir })).collect();
        print_json(&serde_json::json!({ "kind": "serving", "door_port": door_port, "watching": watching }));
        return;
    }
    outln!("profile: {}", host.profile_dir().display());
    outln!(
        "event door: 127.0.0.1:{door_port}, open while developer mode is on and an event of an active plugin is \
         switched on"
    );
    if folders.is_empty() {
        outln!("watching: no loaded folder ({} load-folder DIR loads one, in developer mode)", crate::me());
    }
    for (slug, dir) in &folders {
        outln!("watching: {slug}  {} (each save of manifest.json or icon.png reloads it)", dir.display());
    }
    outln!("Ctrl-C stops.");
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
