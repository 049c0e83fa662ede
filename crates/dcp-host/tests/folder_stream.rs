//! §19 Load a folder, through the host's API and its event stream: with
//! the background running, each save of the folder's manifest.json
//! reloads the plugin by itself and the stream reports it as
//! `FolderSaved` with the new card (new version, Invalid, Active again).
//! Reading the folder (cards, details, icon) is not a save.

mod common;

use common::*;
use dcp_host::events::{Change, HostEvent};
use dcp_host::{BackgroundOptions, Card, Status};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// §19 "the plugin reloads by itself": well within this.
const SEEN_WITHIN: Duration = Duration::from_secs(5);

fn folder_saved(slug: &'static str) -> impl Fn(&HostEvent) -> bool {
    move |e| matches!(e, HostEvent::PluginChanged { slug: s, change: Change::FolderSaved, card: Some(_) } if s == slug)
}

/// The card of the next `FolderSaved` of `slug` that `wanted` accepts.
async fn saved_card(
    events: &mut tokio::sync::broadcast::Receiver<HostEvent>,
    slug: &'static str,
    wanted: impl Fn(&Card) -> bool,
) -> Card {
    let saved = folder_saved(slug);
    let event = next_event(events, SEEN_WITHIN, |e| {
        saved(e) && matches!(e, HostEvent::PluginChanged { card: Some(c), .. } if wanted(c))
    })
    .await;
    let HostEvent::PluginChanged { card: Some(card), .. } = event else { unreachable!() };
    card
}

/// Saves manifest.json as an editor does: the whole file rewritten in place.
fn save(dir: &Path, manifest: &Value) {
    std::fs::write(dir.join("manifest.json"), serde_json::to_vec_pretty(manifest).expect("JSON")).expect("save");
}

/// Saves as editors that write a temporary file and rename it over the old one.
fn save_by_rename(dir: &Path, manifest: &Value) {
    let temp = dir.join(".manifest.json.swp");
    std::fs::write(&temp, serde_json::to_vec_pretty(manifest).expect("JSON")).expect("write");
    std::fs::rename(&temp, dir.join("manifest.json")).expect("rename");
}

/// Developer mode on, the exchange-rates example loaded from a folder and
/// installed; the background started and the stream subscribed.
async fn loaded() -> (Fixture, std::path::PathBuf, Value) {
    let f = fixture();
    dev_mode(&f.host, true).await;
    let manifest = example("exchange-rates");
    let dir = folder(f.dir.path(), "fx-dev", &manifest);
    let review = f.host.load_folder(dir.clone()).await.expect("review of the folder");
    assert_eq!(review.slug, "fx");
    let installed = f.host.install(&review.review, Default::default()).await.expect("installed");
    assert_eq!(installed.slug, "fx");
    let card = f.host.card("fx").await.expect("card");
    assert_eq!((card.status, card.version.as_str()), (Status::Active, "1.0.0"));
    assert_eq!(card.origin, dcp_host::Origin::Folder, "§19: the card shows Folder (dev): {card:?}");
    (f, dir, manifest)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s19_each_save_reloads_the_plugin_and_the_stream_reports_it() {
    let (f, dir, mut manifest) = loaded().await;
    let mut events = f.host.subscribe();
    let background = f.host.start_background(BackgroundOptions::default()).expect("background");

    // A new version, saved: reported with the new card.
    manifest["version"] = "1.1.0".into();
    save(&dir, &manifest);
    let card = saved_card(&mut events, "fx", |c| c.version == "1.1.0").await;
    assert_eq!(card.status, Status::Active);
    assert_eq!(f.host.card("fx").await.expect("card").version, "1.1.0", "the store holds the reload");

    // A broken manifest (a tool without its request): Invalid, with the
    // errors in the details' Developer section.
    let broken_manifest = {
        let mut m = manifest.clone();
        m["version"] = "1.2.0".into();
        let tool = &mut m["_meta"]["com.desktopaicompanion"]["tools"]["convert"];
        tool.as_object_mut().expect("tool").remove("request");
        m
    };
    save(&dir, &broken_manifest);
    let card = saved_card(&mut events, "fx", |c| c.status == Status::Invalid).await;
    assert_eq!(card.status, Status::Invalid);
    let details = f.host.details("fx").await.expect("details");
    assert_eq!(details.card.status, Status::Invalid);
    assert!(!details.errors.is_empty(), "§19: the Developer section lists the errors");

    // Not even JSON: still Invalid, reported again, now with not_json. (A
    // late second report of the previous save would still show the old
    // errors: wait for the one with the new error.)
    std::fs::write(dir.join("manifest.json"), b"{ \"name\": ").expect("save");
    loop {
        saved_card(&mut events, "fx", |c| c.status == Status::Invalid).await;
        let details = f.host.details("fx").await.expect("details");
        if details.errors.iter().any(|p| p.code.as_str() == "not_json") {
            break;
        }
    }

    // Fixed and saved again, the way editors that rename do: Active.
    manifest["version"] = "1.3.0".into();
    save_by_rename(&dir, &manifest);
    let card = saved_card(&mut events, "fx", |c| c.status == Status::Active).await;
    assert_eq!(card.version, "1.3.0");
    let details = f.host.details("fx").await.expect("details");
    assert!(details.errors.is_empty(), "{:?}", details.errors);
    assert_eq!(details.actions.len(), 1);

    background.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s19_reading_the_folder_is_not_a_save() {
    let (f, dir, mut manifest) = loaded().await;
    let mut events = f.host.subscribe();
    let background = f.host.start_background(BackgroundOptions::default()).expect("background");

    // First prove that this stream, this folder and this background report a save. Saved by
    // rename, the save is one event of the folder (a rewrite in place is a burst, which a loaded
    // machine can split into two reloads), so no reload of it can come after this one (issue 33:
    // no pause to let a burst settle).
    manifest["version"] = "1.0.1".into();
    save_by_rename(&dir, &manifest);
    saved_card(&mut events, "fx", |c| c.version == "1.0.1").await;

    // Reading the folder opens manifest.json (and looks for icon.png), again and again.
    for _ in 0..5 {
        assert_eq!(f.host.cards().await.expect("cards").len(), 1);
        assert_eq!(f.host.details("fx").await.expect("details").card.version, "1.0.1");
        assert!(f.host.icon("fx").await.expect("icon").is_none());
        f.host.reload().await.expect("Reload plugins");
    }
    let spurious = events_during(&mut events, Duration::from_millis(1500), folder_saved("fx")).await;
    assert!(spurious.is_empty(), "a read is not a save: {spurious:?}");

    background.stop().await;
}
