//! The offer a turn asks for before each of its requests (§3 "What the AI
//! knows") is kept between two asks with nothing changed, and made again
//! when anything it is made of changes: the turn (who asked, where the AI
//! runs, live on Twitch, the step, whether the player can be asked, the
//! arguments' form), an app switch, a plugin's or an action's switch, a
//! plugin's choices (online AI, Twitch), an install and an uninstall.

mod common;

use common::*;
use dcp_host::{CloudChoice, Host, InstallOptions, Offer, Place, Schema, Sensitive, Source, SwitchesPatch, Turn};
use serde_json::Value;

fn voice() -> Turn {
    Turn { step: Some(1), ..Turn::new(Source::Voice, Place::Pc) }
}

/// The offer for `turn`, asked twice: the second (the kept one, since
/// nothing changed) must be the first.
async fn offer(host: &Host, turn: &Turn) -> Offer {
    let first = host.offer(turn.clone()).await.expect("offer");
    let again = host.offer(turn.clone()).await.expect("offer");
    assert_eq!(json(&first), json(&again), "asked again with nothing changed");
    first
}

fn json(offer: &Offer) -> Value {
    serde_json::to_value(offer).expect("JSON")
}

fn tools(offer: &Offer) -> Vec<&str> {
    let mut names: Vec<&str> = offer.tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    names
}

/// Why `tool` of `plugin` (none: the whole plugin) is left out, if it is.
fn why<'a>(offer: &'a Offer, plugin: &str, tool: Option<&str>) -> Option<&'a str> {
    offer.left_out.iter().find(|l| l.plugin == plugin && l.tool.as_deref() == tool).map(|l| l.reason.as_str())
}

const MINE: [&str; 3] = ["mytasks__add_task", "mytasks__complete_task", "mytasks__list_tasks"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_s12_s13_an_offer_is_made_again_when_anything_it_is_made_of_changes() {
    let f = fixture();
    let secrets = vec![("api_token".into(), Sensitive::new("tok-offer-test".into()))];
    let options = InstallOptions { secrets, cloud: Some(CloudChoice::Local), ..Default::default() };
    install_manifest(&f.host, f.dir.path(), "mytasks", &example("my-tasks"), options).await;
    let all = offer(&f.host, &voice()).await;
    assert_eq!(tools(&all), MINE);

    // The turn.
    let live = offer(&f.host, &Turn { live: true, ..voice() }).await;
    assert_eq!(why(&live, "mytasks", Some("list_tasks")), Some("stream_private"), "{:?}", live.left_out);
    let online = offer(&f.host, &Turn { model: Place::Online, ..voice() }).await;
    assert_eq!(why(&online, "mytasks", Some("list_tasks")), Some("cloud_blocked"), "{:?}", online.left_out);
    let twitch = offer(&f.host, &Turn { source: Source::Twitch, ..voice() }).await;
    assert_eq!(why(&twitch, "mytasks", Some("add_task")), Some("twitch_level"), "{:?}", twitch.left_out);
    let past = offer(&f.host, &Turn { step: Some(6), ..voice() }).await;
    assert_eq!((tools(&past).len(), why(&past, "mytasks", None)), (0, Some("step_limit")));
    let event = offer(&f.host, &Turn { source: Source::Event, ..voice() }).await;
    assert_eq!((tools(&event).len(), why(&event, "mytasks", None)), (0, Some("not_requested")));
    let more = offer(&f.host, &Turn { builtin: 29, ..voice() }).await;
    assert_eq!(tools(&more).len(), 1, "one place left beside 29 built-in tools");
    // §17, issue 34: past the limit, the player's words pick the tools.
    let two = Turn { builtin: 28, ..voice() };
    let done = offer(&f.host, &Turn { words: "I did the report, mark it as done".into(), ..two.clone() }).await;
    assert!(tools(&done).contains(&"mytasks__complete_task"), "{:?}", tools(&done));
    let plain = offer(&f.host, &two).await;
    assert_eq!(why(&plain, "mytasks", Some("complete_task")), Some("tool_limit"), "no words: the manifest's order");
    // §17: the AI on this PC reads no argument description; a turn asking
    // for the whole schema (`dcplugin mcp`) does.
    let whole = offer(&f.host, &Turn { schema: Some(Schema::Full), ..voice() }).await;
    let described = |o: &Offer| json(o)["tools"].to_string().contains("Title of the task");
    assert_eq!((described(&all), described(&whole)), (false, true));
    assert_eq!(json(&offer(&f.host, &voice()).await), json(&all), "the first turn again: the same offer");

    // What the player switches.
    f.host.set_twitch("mytasks", true).await.expect("twitch");
    let live = offer(&f.host, &Turn { live: true, ..voice() }).await;
    assert_eq!(tools(&live), MINE, "allowed while live now: {:?}", live.left_out);
    f.host.set_cloud("mytasks", CloudChoice::Allow).await.expect("cloud");
    let online = offer(&f.host, &Turn { model: Place::Online, ..voice() }).await;
    assert_eq!(tools(&online), MINE, "allowed online now: {:?}", online.left_out);
    f.host.set_action_enabled("mytasks", "list_tasks", false).await.expect("action off");
    let fewer = offer(&f.host, &voice()).await;
    assert_eq!(tools(&fewer), ["mytasks__add_task", "mytasks__complete_task"], "{:?}", fewer.left_out);
    assert_eq!(why(&fewer, "mytasks", Some("list_tasks")), Some("plugin_off"));
    f.host.set_switches(SwitchesPatch { tools_enabled: Some(false), ..Default::default() }).await.expect("tools off");
    let off = offer(&f.host, &voice()).await;
    assert_eq!((tools(&off).len(), why(&off, "mytasks", None)), (0, Some("tools_off")));
    f.host.set_switches(SwitchesPatch { tools_enabled: Some(true), ..Default::default() }).await.expect("tools on");
    f.host.set_enabled("mytasks", false).await.expect("plugin off");
    assert_eq!(why(&offer(&f.host, &voice()).await, "mytasks", None), Some("plugin_off"));
    f.host.set_enabled("mytasks", true).await.expect("plugin on");
    let on = offer(&f.host, &voice()).await;
    assert_eq!(tools(&on), ["mytasks__add_task", "mytasks__complete_task"], "{:?}", on.left_out);

    // Installs and uninstalls.
    install_manifest(&f.host, f.dir.path(), "fx", &example("exchange-rates"), InstallOptions::default()).await;
    let both = offer(&f.host, &voice()).await;
    assert_eq!(tools(&both), ["fx__convert", "mytasks__add_task", "mytasks__complete_task"]);
    f.host.uninstall("mytasks").await.expect("uninstall");
    assert_eq!(tools(&offer(&f.host, &voice()).await), ["fx__convert"]);
}
