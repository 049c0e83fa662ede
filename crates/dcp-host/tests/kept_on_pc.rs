//! "Kept on this PC" for what the companion's conversation holds (§13,
//! issue 32): which plugins are kept now (`Host::kept_on_pc`, asked before
//! each request of a turn), and an event turn's events held back from an
//! online AI (`Host::events_for_online_ai`): journaled `dropped` with the
//! reason `cloud_blocked`, reported on the stream, the others said in the
//! door's message made again without them.

mod common;

use common::*;
use dcp_host::events::HostEvent;
use dcp_host::{
    CloudChoice, EventReason, InstallOptions, JournalKind, JournalOutcome, JournalQuery, JournalValue, Notice,
    SaidEvent, Sensitive, SpecCode,
};
use std::time::Duration;

/// `mytasks` (it reads the player's data, R1) installed with its online-AI
/// answer `cloud`, and the local-server example (no R1) as `mypc`.
async fn installed(cloud: CloudChoice) -> Fixture {
    let f = fixture();
    let secrets = vec![("api_token".into(), Sensitive::new("tok-kept-test".into()))];
    let options = InstallOptions { secrets, cloud: Some(cloud), ..Default::default() };
    install_manifest(&f.host, f.dir.path(), "mytasks", &example("my-tasks"), options).await;
    install_pc_example(&f, "mypc", free_port(), with_token()).await;
    f
}

fn said(plugin: &str, event: &str, title: &str, text: &str) -> SaidEvent {
    SaidEvent { plugin: plugin.into(), event: event.into(), title: title.into(), text: Some(text.into()) }
}

/// §13: kept is the courtier's `cloud_blocked` rule: "Only with an AI on
/// this PC" for a plugin that reads private data, as the player changes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s13_issue32_the_plugins_kept_on_this_pc_now() {
    let f = installed(CloudChoice::Local).await;
    assert_eq!(f.host.kept_on_pc().await.expect("kept"), ["mytasks"]);
    f.host.set_cloud("mytasks", CloudChoice::Allow).await.expect("allow");
    assert_eq!(f.host.kept_on_pc().await.expect("kept"), Vec::<String>::new());
    // A plugin reading nothing private is never kept, whatever its stored answer.
    f.host.set_cloud("mytasks", CloudChoice::Local).await.expect("local");
    f.host.set_cloud("mypc", CloudChoice::Local).await.expect("stored");
    assert_eq!(f.host.kept_on_pc().await.expect("kept"), ["mytasks"]);
}

/// §13, §16, issue 32: for an online AI, a kept plugin's event is held:
/// journaled `dropped` (`cloud_blocked`), reported as the door's `dropped`
/// notice and a journal line on the stream; the other event is said in a
/// message made again without it, in the player's language.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s16_issue32_a_kept_plugin_s_events_are_held_from_an_online_ai() {
    let f = installed(CloudChoice::Local).await;
    let mut stream = f.host.subscribe();
    let tasks = said("mytasks", "due", "Task due", "pay the rent to 4321");
    let pc = said("mypc", "done", "Build finished", "3 warnings");
    let message = "(the door's message: pay the rent to 4321, 3 warnings)".to_owned();

    // Nothing kept among them: the door's message stands, nothing is journaled.
    let heard = f.host.events_for_online_ai(message.clone(), vec![pc.clone()]).await.expect("heard");
    assert_eq!((heard.message.as_deref(), heard.said.len(), heard.held.len()), (Some(message.as_str()), 1, 0));

    let heard = f.host.events_for_online_ai(message, vec![tasks.clone(), pc.clone()]).await.expect("heard");
    assert_eq!((heard.said, heard.held), (vec![pc], vec![tasks]));
    let told = heard.message.expect("the other event is said");
    assert!(!told.contains("4321") && !told.contains("Task due"), "{told}");
    assert!(told.contains("The My PC (local server) plugin reports: Build finished.") && told.contains("3 warnings"));

    let query = JournalQuery { limit: 10, kind: Some(JournalKind::Event), ..Default::default() };
    let lines = f.host.journal(query).await.expect("journal");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!((lines[0].plugin.as_str(), lines[0].action.as_str()), ("mytasks", "due"));
    assert_eq!(lines[0].outcome, JournalValue::Known(JournalOutcome::Dropped));
    assert_eq!(lines[0].code, Some(JournalValue::Known(SpecCode::Event(EventReason::CloudBlocked))));
    let dropped = next_event(&mut stream, Duration::from_secs(5), |e| {
        matches!(e, HostEvent::Door { notice: Notice::Dropped { .. } })
    })
    .await;
    let HostEvent::Door { notice: Notice::Dropped { plugin, event, reason } } = dropped else { unreachable!() };
    assert_eq!((plugin.as_str(), event.as_str(), reason), ("mytasks", "due", EventReason::CloudBlocked));
    next_event(&mut stream, Duration::from_secs(5), |e| matches!(e, HostEvent::JournalAdded { .. })).await;

    // Every event held: nothing left to say.
    let heard = f.host.events_for_online_ai("(m)".into(), vec![said("mytasks", "due", "Task due", "x")]).await;
    assert_eq!(heard.expect("heard").message, None);
}
