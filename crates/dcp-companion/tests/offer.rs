//! What a turn sends the AI as tools (§17, issue 34): with more tools
//! installed than the 30 offered, the player's words and the tools used
//! earlier in the conversation pick them; an AI on this PC reads the short
//! form of their arguments.

#[path = "../../dcp-host/tests/common/mod.rs"]
mod common;

use common::{fixture, install_manifest, Fixture};
use dcp_ai::{judge_ai_url, Connection};
use dcp_companion::{CancellationToken, Companion, Said};
use dcp_host::{InstallOptions, Source};
use scripted_ai::{openai, Script, ScriptedAi, Step, MODEL};
use serde_json::{json, Map, Value};

/// A plugin of `slug` with `tools`: (name, description, hint).
fn manifest(slug: &str, tools: &[(String, String, String)]) -> Value {
    let mut map = Map::new();
    for (name, description, hint) in tools {
        map.insert(
            name.clone(),
            json!({ "description": description, "hint": { "en": hint },
                    "inputSchema": { "type": "object", "required": ["city"], "properties": {
                        "city": { "type": "string", "description": "Name of the city", "maxLength": 100 } } },
                    "request": { "method": "GET", "url": format!("https://api.{slug}.example/{name}"),
                                 "query": { "city": "{{city}}" } } }),
        );
    }
    json!({ "name": slug, "version": "1.0.0", "_meta": { "com.desktopaicompanion": {
        "apiVersion": 1, "kind": "declarative", "slug": slug,
        "permissions": { "network": { "hosts": [format!("api.{slug}.example")] } }, "tools": map } } })
}

/// 33 tools: two plugins of 15 that come first by slug, then `zulu`'s
/// weather forecast.
async fn world(turns: Vec<Step>) -> (Fixture, ScriptedAi, Companion) {
    let f = fixture();
    for slug in ["alpha", "bravo"] {
        let tools: Vec<(String, String, String)> = (1..=15)
            .map(|i| (format!("page_{i}"), format!("Read page {i} of the user's album."), "read an album page".into()))
            .collect();
        install_manifest(&f.host, f.dir.path(), slug, &manifest(slug, &tools), InstallOptions::default()).await;
    }
    let zulu = [
        (
            "forecast",
            "Tell the weather forecast for a city for the next days, with the chance of rain.",
            "tell the forecast",
        ),
        ("sunset", "Tell when the sun sets in a city.", "tell the sunset time"),
        ("air", "Read the air quality of a city.", "read the air quality"),
    ]
    .map(|(n, d, h)| (n.to_owned(), d.to_owned(), h.to_owned()));
    install_manifest(&f.host, f.dir.path(), "zulu", &manifest("zulu", &zulu), InstallOptions::default()).await;
    let ai = ScriptedAi::start(Script::with_turns(turns)).await;
    let url = judge_ai_url(&ai.url()).expect("a loopback URL is an AI on this PC");
    let companion = Companion::new(f.host.clone(), Connection::new(url, MODEL.into(), None));
    (f, ai, companion)
}

async fn say(companion: &mut Companion, text: &str) {
    let said = Said { source: Source::Keyboard, live: false, text: text.into() };
    companion.say(said, None, CancellationToken::new()).finish(|_| {}).await.expect("the turn ends with an answer");
}

#[tokio::test(flavor = "multi_thread")]
async fn s17_the_players_words_and_the_tools_used_pick_the_30_tools() {
    let (_f, ai, mut companion) = world(vec![
        // The forecast asked without its city: refused before anything is
        // sent (INVALID_ARGUMENTS), but called.
        openai::tool_calls(&[("call_1", "zulu__forecast", "{}")], 0),
        openai::text(["Which city?"]),
        openai::text(["Noted."]),
    ])
    .await;
    say(&mut companion, "Will it rain tomorrow?").await;
    let first = ai.chats();
    let tools = first[0].tool_names();
    assert_eq!(tools.len(), 30);
    assert!(tools.contains(&"zulu__forecast".to_owned()), "{tools:?}");
    // §17: an AI on this PC reads no argument description.
    let forecast =
        first[0].body["tools"].as_array().expect("tools").iter().find(|t| t["function"]["name"] == "zulu__forecast");
    let parameters = &forecast.expect("offered")["function"]["parameters"];
    assert_eq!(
        parameters,
        &json!({ "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] })
    );

    // Words that name nothing: the tool called before, and its plugin, stay.
    say(&mut companion, "Lyon").await;
    let tools = ai.chats().last().expect("a request").tool_names();
    assert!(tools.contains(&"zulu__forecast".to_owned()) && tools.contains(&"zulu__air".to_owned()), "{tools:?}");
}
