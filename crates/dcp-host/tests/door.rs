//! §16 Events through the host: the pomodoro example installed with its
//! token secret, one event switched on, the background listening; a
//! program on the PC posts over real TCP to 127.0.0.1:<door port>, and the
//! host's stream shows the door opening, the event received and the turn
//! the AI reads. A wrong token is refused (401) and never received. Once
//! stopped, nothing listens on the port.

mod common;

use common::*;
use dcp_host::events::HostEvent;
use dcp_host::{BackgroundOptions, DoorState, Notice, Status, Wanted};
use std::time::Duration;
use tokio::sync::broadcast::Receiver;

const FOCUS: &str = r#"{"event": "focus_done", "text": "Session 2 of 4 done. Break: 5 minutes."}"#;

fn door_notice(e: &HostEvent) -> Option<&Notice> {
    match e {
        HostEvent::Door { notice } => Some(notice),
        _ => None,
    }
}

fn received(e: &HostEvent) -> bool {
    matches!(door_notice(e), Some(Notice::Received { .. }))
}

/// Developer mode on, pomodoro (its server moved to a free port) imported
/// and installed with its token secret, `focus_done` switched on.
async fn pomodoro() -> Fixture {
    pomodoro_in(fixture()).await
}

/// The same in `f`.
async fn pomodoro_in(f: Fixture) -> Fixture {
    dev_mode(&f.host, true).await;
    let manifest = example_on_port("pomodoro", free_port());
    install_manifest(&f.host, f.dir.path(), "pomodoro", &manifest, with_token()).await;
    let card = f.host.card("pomodoro").await.expect("card");
    assert_eq!(card.status, Status::Active);
    let page = f.host.events_page("pomodoro").await.expect("events page");
    assert!(page.events.iter().all(|e| !e.on), "§16: every event switch is off by default");
    assert_eq!(page.door.wanted, Wanted::NoEventOn);
    f.host.set_event_enabled("pomodoro", "focus_done", true).await.expect("switch on");
    f
}

/// Waits for the door to report `state`; gives the door as the events page
/// then shows it (the window reads it on that notice).
async fn reported(f: &Fixture, events: &mut Receiver<HostEvent>, state: DoorState) -> dcp_host::DoorView {
    next_event(
        events,
        Duration::from_secs(5),
        |e| matches!(door_notice(e), Some(Notice::Door { state: s }) if *s == state),
    )
    .await;
    let page = f.host.events_page("pomodoro").await.expect("events page");
    assert_eq!(page.door.wanted, Wanted::Open);
    assert_eq!(page.door.address, format!("127.0.0.1:{}", f.door_port));
    assert_eq!(page.door.state, Some(state));
    page.door
}

/// Waits for the door to report it listens on the fixture's port.
async fn listening(f: &Fixture, events: &mut Receiver<HostEvent>) {
    reported(f, events, DoorState::Listening { port: f.door_port }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_an_event_posted_over_tcp_becomes_the_turn_the_ai_reads() {
    let f = pomodoro().await;
    let mut events = f.host.subscribe();
    let background = f.host.start_background(BackgroundOptions { listening: true }).expect("background");
    listening(&f, &mut events).await;

    let token = f.host.event_token("pomodoro").await.expect("token");
    assert_eq!(token.expose().len(), 64, "§16: 64 characters, 0-9 and a-f");
    assert!(token.expose().bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    let answer = post_event(f.door_port, "pomodoro", token.expose(), FOCUS).await;
    assert_eq!(answer.status, 202, "{answer:?}");
    assert!(answer.body.contains("accepted"), "{answer:?}");

    let event = next_event(&mut events, Duration::from_secs(5), received).await;
    let HostEvent::Door { notice: Notice::Received { plugin, event, text } } = event else { unreachable!() };
    assert_eq!((plugin.as_str(), event.as_str()), ("pomodoro", "focus_done"));
    assert_eq!(text.as_deref(), Some("Session 2 of 4 done. Break: 5 minutes."));

    // The companion listens: the event is said in one turn, with no tool.
    let event =
        next_event(&mut events, Duration::from_secs(5), |e| matches!(door_notice(e), Some(Notice::Turn { .. }))).await;
    let HostEvent::Door { notice: Notice::Turn { message, events: said, tools, said: shown } } = event else {
        unreachable!()
    };
    assert_eq!(said, ["pomodoro/focus_done"]);
    // What the player is shown of it: the title and the program's words, unframed.
    let shown: Vec<(&str, &str, Option<&str>)> =
        shown.iter().map(|e| (e.plugin.as_str(), e.title.as_str(), e.text.as_deref())).collect();
    assert_eq!(shown, [("pomodoro", "Focus session finished", Some("Session 2 of 4 done. Break: 5 minutes."))]);
    assert!(tools.is_empty(), "§16: an event turn offers no tool");
    assert!(message.contains("Pomodoro timer"), "{message}");
    assert!(message.contains("Focus session finished"), "the event's title: {message}");
    assert!(message.contains("Session 2 of 4 done. Break: 5 minutes."), "the program's text: {message}");
    assert!(message.starts_with("(Not a message from the user."), "{message}");

    let journal = f
        .host
        .journal(dcp_host::JournalQuery { limit: 10, plugin: Some("pomodoro".into()), ..Default::default() })
        .await
        .expect("journal");
    assert!(journal.iter().any(|e| e.who.as_str() == "event" && e.outcome.as_str() == "received"), "{journal:?}");

    background.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_a_wrong_token_gets_401_and_is_never_received() {
    let f = pomodoro().await;
    let mut events = f.host.subscribe();
    let background = f.host.start_background(BackgroundOptions { listening: true }).expect("background");
    listening(&f, &mut events).await;

    // First prove this stream shows a received event from this door.
    let token = f.host.event_token("pomodoro").await.expect("token");
    assert_eq!(post_event(f.door_port, "pomodoro", token.expose(), FOCUS).await.status, 202);
    next_event(&mut events, Duration::from_secs(5), received).await;
    next_event(&mut events, Duration::from_secs(5), |e| matches!(door_notice(e), Some(Notice::Turn { .. }))).await;

    // A wrong token of the right shape: 401, refused as bad_token, never received.
    let wrong: String = token.expose().chars().rev().collect();
    assert_ne!(wrong, token.expose());
    let answer = post_event(f.door_port, "pomodoro", &wrong, FOCUS).await;
    assert_eq!(answer.status, 401, "{answer:?}");
    assert!(answer.body.contains("refused"), "{answer:?}");
    let after = events_during(&mut events, Duration::from_millis(1500), |e| door_notice(e).is_some()).await;
    assert!(!after.iter().any(received), "a wrong token is never received: {after:?}");
    assert!(
        after
            .iter()
            .any(|e| matches!(door_notice(e), Some(Notice::Refused { reason, .. }) if reason.as_str() == "bad_token")),
        "the refusal is reported: {after:?}"
    );
    // An unknown plugin gets the same answer, and no notice at all.
    let answer = post_event(f.door_port, "nosuchplugin", token.expose(), FOCUS).await;
    assert_eq!(answer.status, 401, "{answer:?}");

    // New token: the old one stops working at once (checked before any rate limit).
    let new = f.host.new_event_token("pomodoro").await.expect("new token");
    assert_ne!(new.expose(), token.expose());
    assert_eq!(post_event(f.door_port, "pomodoro", token.expose(), FOCUS).await.status, 401);

    background.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_once_stopped_nothing_listens_on_the_port() {
    let f = pomodoro().await;
    let mut events = f.host.subscribe();
    let background = f.host.start_background(BackgroundOptions { listening: true }).expect("background");
    listening(&f, &mut events).await;
    // Proves the check below: while running, the port accepts connections.
    tokio::net::TcpStream::connect(("127.0.0.1", f.door_port)).await.expect("the door listens");

    background.stop().await;
    let refused = tokio::net::TcpStream::connect(("127.0.0.1", f.door_port)).await.expect_err("nothing listens");
    assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused, "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_the_door_closes_when_the_last_event_is_switched_off() {
    let f = pomodoro().await;
    let mut events = f.host.subscribe();
    let background = f.host.start_background(BackgroundOptions { listening: true }).expect("background");
    listening(&f, &mut events).await;

    f.host.set_event_enabled("pomodoro", "focus_done", false).await.expect("switch off");
    next_event(&mut events, Duration::from_secs(5), |e| {
        matches!(door_notice(e), Some(Notice::Door { state: DoorState::Closed { why: Wanted::NoEventOn } }))
    })
    .await;
    let refused = tokio::net::TcpStream::connect(("127.0.0.1", f.door_port)).await.expect_err("closed");
    assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused, "{refused}");

    background.stop().await;
}

/// The door once it reports its port taken.
async fn taken(f: &Fixture, events: &mut Receiver<HostEvent>) -> dcp_host::DoorView {
    reported(f, events, DoorState::PortTaken { port: f.door_port }).await
}

/// §16, issue 23: when the door's port is held by another event door (the
/// window beside `dcplugin serve`, of another profile here), the window is
/// told so, since that door already takes the events; a program that is no
/// door is told apart. Nothing else is said while the door listens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_a_taken_port_says_whether_another_door_holds_it() {
    let first = pomodoro().await;
    let mut first_events = first.host.subscribe();
    let first_background = first.host.start_background(BackgroundOptions { listening: true }).expect("background");
    let door = reported(&first, &mut first_events, DoorState::Listening { port: first.door_port }).await;
    assert_eq!(door.held_by_a_door, None, "a listening door says nothing of a holder");

    let second = pomodoro_in(fixture_with_door(first.door_port)).await;
    let mut second_events = second.host.subscribe();
    let second_background = second.host.start_background(BackgroundOptions { listening: true }).expect("background");
    assert_eq!(taken(&second, &mut second_events).await.held_by_a_door, Some(true), "the first door holds it");
    second_background.stop().await;
    first_background.stop().await;

    // A program that is no door: it answers anything with 200 and closes.
    let foreign = std::net::TcpListener::bind(("127.0.0.1", first.door_port)).expect("the port is free again");
    std::thread::spawn(move || {
        for mut stream in foreign.incoming().flatten() {
            use std::io::{Read, Write};
            let _ = stream.read(&mut [0; 1024]);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi");
        }
    });
    let third = pomodoro_in(fixture_with_door(first.door_port)).await;
    let mut third_events = third.host.subscribe();
    let third_background = third.host.start_background(BackgroundOptions { listening: true }).expect("background");
    assert_eq!(taken(&third, &mut third_events).await.held_by_a_door, Some(false), "a program that is no door");
    third_background.stop().await;
}
