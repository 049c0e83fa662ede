//! One `Host`, cloned into 8 tasks of a multi-thread runtime, used at once
//! for about two seconds while the background (event door, folder watcher,
//! status poll) runs: listing cards, calling a tool of a plugin that talks
//! to a program on the PC (§15), switching actions (§12) and events (§16)
//! on and off, saving a setting (§10) and secrets (§11), flipping the app
//! and plugin switches (§18). Every method must succeed (no SQLITE_BUSY,
//! no "database is locked"), the whole test ends well within its timeout
//! (no deadlock), and each task reads back what it just wrote.

mod common;

use common::*;
use dcp_host::events::HostEvent;
use dcp_host::{
    BackgroundOptions, DoorState, Host, JournalQuery, Notice, Place, Sensitive, Source, Status, SwitchesPatch, Turn,
};
use serde_json::json;
use std::time::{Duration, Instant};

/// How long the tasks hammer the host.
const RUN: Duration = Duration::from_secs(2);
/// The whole test, set-up included: far beyond a normal run, so only a deadlock reaches it.
const DEADLOCK: Duration = Duration::from_secs(90);

fn voice() -> Turn {
    Turn::new(Source::Voice, Place::Pc)
}

/// Runs `step(i)` for i = 0, 1, … until [`RUN`] is over; returns the count.
async fn repeat<F, Fut>(mut step: F) -> usize
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let end = Instant::now() + RUN;
    let mut i = 0;
    while Instant::now() < end {
        step(i).await;
        i += 1;
    }
    i
}

type Task = tokio::task::JoinHandle<(&'static str, usize)>;

fn spawn<F, Fut>(name: &'static str, host: &Host, f: F) -> Task
where
    F: FnOnce(Host) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = usize> + Send + 'static,
{
    let host = host.clone();
    tokio::spawn(async move { (name, f(host).await) })
}

#[derive(Default)]
struct Watched {
    failures: Vec<String>,
    turned: bool,
    lagged: u64,
}

const SLUGS: [&str; 4] = ["fx", "mypc", "pomodoro", "recipes"];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_tasks_on_one_host_with_the_background_running() {
    tokio::time::timeout(DEADLOCK, run()).await.expect("no deadlock: the test ends well within its timeout");
}

async fn run() {
    let f = fixture();
    let host = f.host.clone();
    dev_mode(&host, true).await;
    let pc = pc_server(free_port(), r#"{"time":"12:34","date":"2026-11-30"}"#);
    let dir = f.dir.path();
    install_manifest(&host, dir, "mypc", &example_on_port("local-server", pc.port), with_token()).await;
    install_manifest(&host, dir, "pomodoro", &example_on_port("pomodoro", free_port()), with_token()).await;
    install_manifest(&host, dir, "fx", &example("exchange-rates"), Default::default()).await;
    install_manifest(&host, dir, "recipes", &example("recipe-search"), Default::default()).await;
    host.set_event_enabled("pomodoro", "focus_done", true).await.expect("event on");

    let mut events = host.subscribe();
    let background = host.start_background(BackgroundOptions { listening: true }).expect("background");
    let port = f.door_port;
    next_event(&mut events, Duration::from_secs(5), |e| {
        matches!(e, HostEvent::Door { notice: Notice::Door { state: DoorState::Listening { port: p } } } if *p == port)
    })
    .await;

    // Follows the stream during the run: a reload failure or a dropped event
    // is an error; the event turn is expected. The edits make many events; a
    // reader that falls more than the stream keeps behind lags, which is
    // counted and printed (the turn may then be among the events it lost).
    let stop_watching = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop = stop_watching.clone();
    let watched = tokio::spawn(async move {
        let mut seen = Watched::default();
        loop {
            match events.recv().await {
                Ok(HostEvent::ReloadFailed { message }) => seen.failures.push(message),
                Ok(HostEvent::Door { notice: Notice::Dropped { reason, .. } }) => {
                    seen.failures.push(reason.to_string())
                }
                Ok(HostEvent::Door { notice: Notice::Turn { events, .. } }) => {
                    seen.turned |= events == ["pomodoro/focus_done"];
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => seen.lagged += n,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return seen,
            }
            if stop.load(std::sync::atomic::Ordering::SeqCst) {
                return seen;
            }
        }
    });
    let tasks: Vec<Task> = vec![
        spawn("cards", &host, |h| async move {
            repeat(|_| async {
                let cards = h.cards().await.expect("cards");
                let slugs: Vec<&str> = cards.iter().map(|c| c.slug.as_str()).collect();
                assert_eq!(slugs, SLUGS);
            })
            .await
        }),
        spawn("calls", &host, |h| async move {
            repeat(|_| async {
                let done = h.call(voice(), "mypc__get_time", json!({})).await.expect("call");
                assert_eq!(done.outcome.as_str(), "done", "{:?} {}", done.code, done.for_ai);
                assert!(done.for_ai.contains("12:34"), "{}", done.for_ai);
            })
            .await
        }),
        spawn("actions", &host, |h| async move {
            repeat(|i| {
                let h = h.clone();
                async move {
                    let on = i % 2 == 1;
                    for (slug, tool) in [("mypc", "add_note"), ("pomodoro", "stop")] {
                        h.set_action_enabled(slug, tool, on).await.expect("action switch");
                        let details = h.details(slug).await.expect("details");
                        let action = details.actions.iter().find(|a| a.name == tool).expect("action");
                        assert_eq!(action.enabled, on, "{slug}__{tool} reads back as switched");
                    }
                }
            })
            .await
        }),
        spawn("settings", &host, |h| async move {
            repeat(|i| {
                let h = h.clone();
                async move {
                    let servings = json!(i % 12 + 1);
                    h.save_settings("recipes", vec![("servings".into(), servings.clone())]).await.expect("save");
                    let details = h.details("recipes").await.expect("details");
                    let setting = details.settings.iter().find(|s| s.key == "servings").expect("setting");
                    assert_eq!(setting.value.as_ref(), Some(&servings), "the saved value reads back");
                }
            })
            .await
        }),
        spawn("secrets", &host, |h| async move {
            repeat(|i| {
                let h = h.clone();
                async move {
                    // The PC server's token stays the one it checks: the calls keep working.
                    let card = h.set_secret("mypc", "token", Sensitive::new(TOKEN.into())).await.expect("secret");
                    assert_eq!(card.status, Status::Active);
                    let value = Sensitive::new(format!("pomodoro-token-{i}"));
                    let card = h.set_secret("pomodoro", "token", value).await.expect("secret");
                    assert_eq!(card.status, Status::Active);
                    let details = h.details("pomodoro").await.expect("details");
                    let token = details.settings.iter().find(|s| s.key == "token").expect("token");
                    assert!(token.set && token.value.is_none(), "set, never shown");
                }
            })
            .await
        }),
        spawn("switches", &host, |h| async move {
            repeat(|i| {
                let h = h.clone();
                async move {
                    let language = if i % 2 == 0 { "fr" } else { "en" };
                    let patch = SwitchesPatch { language: Some(language.into()), ..Default::default() };
                    assert_eq!(h.set_switches(patch).await.expect("switches").language.as_str(), language);
                    let switches = h.switches().await.expect("switches");
                    assert_eq!(switches.language.as_str(), language);
                    assert!(switches.dev_mode && switches.plugins_enabled && switches.tools_enabled);
                    let on = i % 2 == 1;
                    let card = h.set_enabled("fx", on).await.expect("plugin switch");
                    assert_eq!((card.enabled, card.status == Status::Off), (on, !on));
                    assert_eq!(h.card("fx").await.expect("card").enabled, on);
                    h.set_twitch("fx", on).await.expect("twitch");
                    assert_eq!(h.details("fx").await.expect("details").twitch_allowed, on);
                }
            })
            .await
        }),
        spawn("events", &host, |h| async move {
            let token = h.event_token("pomodoro").await.expect("token");
            repeat(|i| {
                let (h, token) = (h.clone(), token.expose().to_owned());
                async move {
                    let on = i % 2 == 0;
                    h.set_event_enabled("pomodoro", "break_done", on).await.expect("event switch");
                    let page = h.events_page("pomodoro").await.expect("events page");
                    let state = |name: &str| page.events.iter().find(|e| e.name == name).expect("event").on;
                    assert_eq!((state("break_done"), state("focus_done")), (on, true));
                    assert!(page.token_made);
                    assert_eq!(h.event_token("pomodoro").await.expect("token").expose(), token, "the same token");
                }
            })
            .await
        }),
        spawn("journal", &host, move |h| async move {
            // One event through the door while everything else runs (the
            // limit is one per 10 s, so one).
            let token = h.event_token("pomodoro").await.expect("token");
            let body = r#"{"event": "focus_done", "text": "Session 1 of 4 done."}"#;
            let answer = post_event(port, "pomodoro", token.expose(), body).await;
            assert_eq!(answer.status, 202, "{answer:?}");
            repeat(|_| {
                let h = h.clone();
                async move {
                    h.journal(JournalQuery { limit: 50, plugin: None, ..Default::default() }).await.expect("journal");
                    let offer = h.offer(voice()).await.expect("offer");
                    assert!(!offer.tools.is_empty());
                }
            })
            .await
        }),
    ];

    let mut counts = Vec::new();
    for task in tasks {
        let (name, count) = task.await.expect("the task ended without a panic");
        assert!(count > 0, "{name} ran at least once");
        counts.push((name, count));
    }
    println!("iterations in {RUN:?}: {counts:?}");

    // Every call was journaled, none failed; the event was received and said.
    let calls = counts.iter().find(|(n, _)| *n == "calls").expect("calls").1;
    let journal = host
        .journal(JournalQuery { limit: 100_000, plugin: Some("mypc".into()), ..Default::default() })
        .await
        .expect("journal");
    let done = journal.iter().filter(|e| e.action == "get_time" && e.outcome.as_str() == "done").count();
    assert_eq!(done, calls, "one journal line per call");
    assert!(
        journal.iter().all(|e| e.outcome.as_str() == "done"),
        "{:?}",
        journal.iter().find(|e| e.outcome.as_str() != "done")
    );
    assert_eq!(pc.requests.load(std::sync::atomic::Ordering::SeqCst), calls);
    let pomodoro = host
        .journal(JournalQuery { limit: 100, plugin: Some("pomodoro".into()), ..Default::default() })
        .await
        .expect("journal");
    assert!(pomodoro.iter().any(|e| e.who.as_str() == "event" && e.outcome.as_str() == "received"), "{pomodoro:?}");
    stop_watching.store(true, std::sync::atomic::Ordering::SeqCst);
    host.set_switches(SwitchesPatch::default()).await.expect("one more event wakes the watcher");
    let seen = watched.await.expect("the watcher ended without a panic");
    println!("stream: lagged by {} events in all", seen.lagged);
    assert!(seen.failures.is_empty(), "{:?}", seen.failures);
    assert!(seen.turned || seen.lagged > 0, "the event was said in one turn");
    assert_eq!(host.events_page("pomodoro").await.expect("page").door.state, Some(DoorState::Listening { port }));
    background.stop().await;
}

/// §16 "Made when first asked": eight clones asking at once for a plugin's
/// first event token all get the one token that works, not eight tokens of
/// which only the last one written opens the door.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn s16_the_first_event_token_asked_at_once_is_one_token() {
    tokio::time::timeout(DEADLOCK, async {
        let f = fixture();
        dev_mode(&f.host, true).await;
        for round in 0..5 {
            let slug = format!("timer{round}");
            let manifest = example_on_port("pomodoro", free_port());
            let text = serde_json::to_string(&manifest).expect("JSON").replace("\"pomodoro\"", &format!("\"{slug}\""));
            let manifest: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            install_manifest(&f.host, f.dir.path(), &slug, &manifest, with_token()).await;
            let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(8));
            let asks: Vec<_> = (0..8)
                .map(|_| {
                    let (h, slug, barrier) = (f.host.clone(), slug.clone(), barrier.clone());
                    tokio::spawn(async move {
                        barrier.wait().await;
                        h.event_token(&slug).await.expect("token").expose().to_owned()
                    })
                })
                .collect();
            let mut tokens = Vec::new();
            for ask in asks {
                tokens.push(ask.await.expect("task"));
            }
            let kept = f.host.event_token(&slug).await.expect("token").expose().to_owned();
            assert!(tokens.iter().all(|t| *t == kept), "round {round}: {} tokens handed out, one kept", {
                let mut distinct = tokens.clone();
                distinct.sort();
                distinct.dedup();
                distinct.len()
            });
        }
    })
    .await
    .expect("no deadlock");
}
