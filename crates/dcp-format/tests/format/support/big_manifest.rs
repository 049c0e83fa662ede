//! A valid manifest just under the 64 KB limit, with every section at its
//! maximum count: 20 settings, 15 tools of 10 properties, 10 events. Shared
//! by the benchmark and the test that keeps it valid.

use serde_json::{json, Map, Value};

const SENTENCE: &str =
    "Reads the items of the user's list that match the filter and returns their names with their ids.";

fn text(len: usize) -> String {
    SENTENCE.chars().cycle().take(len).collect::<String>().trim_end().to_owned() + "."
}

fn tool(i: usize) -> Value {
    let properties: Map<String, Value> = (0..10)
        .map(|p| (format!("arg{p}"), json!({ "type": "string", "description": text(199), "maxLength": 100 })))
        .collect();
    let mut query: Map<String, Value> = (0..10).map(|p| (format!("q{p}"), json!(format!("{{{{arg{p}}}}}")))).collect();
    query.extend((10..16).map(|p| (format!("fixed_parameter_{p}"), json!("a fixed value"))));
    json!({
        "description": text(199),
        "hint": { "en": format!("read list number {i}"), "fr": format!("lire la liste numéro {i}"), "de": format!("Liste {i} lesen") },
        "risk": "R1",
        "inputSchema": { "type": "object", "properties": properties, "required": ["arg0"] },
        "request": {
            "method": "GET",
            "url": format!("https://api{}.example.com/v1/lists/{{{{config.setting0}}}}/items", i % 10),
            "query": query,
            "headers": { "X-Api-Version": "2" }
        },
        "response": { "pick": ["items[].id", "items[].name", "items[].due.date", "total"], "maxChars": 4000 }
    })
}

/// The manifest's bytes.
pub fn big_manifest() -> Vec<u8> {
    let mut settings: Map<String, Value> = (0..19)
        .map(|i| (format!("setting{i}"), json!({ "type": "string", "title": text(79), "description": text(199), "maxLength": 64, "format": "id" })))
        .collect();
    settings.insert("api_token".into(), json!({ "type": "string", "title": "API token", "sensitive": true, "required": true, "helpUrl": "https://example.com/help" }));
    let tools: Map<String, Value> = (0..15).map(|i| (format!("tool_{i}"), tool(i))).collect();
    let events: Map<String, Value> = (0..10)
        .map(|i| {
            (
                format!("event_{i}"),
                json!({ "title": { "en": format!("Event number {i} happened"), "fr": format!("Événement {i}") } }),
            )
        })
        .collect();
    let hosts: Vec<String> = (0..10).map(|i| format!("api{i}.example.com")).collect();
    let manifest = json!({
        "name": "big-manifest",
        "version": "1.0.0",
        "display_name": "Big manifest",
        "description": text(290),
        "author": { "name": "Benchmark" },
        "user_config": settings,
        "_meta": { "com.desktopaicompanion": {
            "apiVersion": 1, "kind": "declarative", "slug": "bigmanifest",
            "permissions": { "network": { "hosts": hosts } },
            "auth": { "in": "header", "name": "Authorization", "value": "Bearer {{secret.api_token}}" },
            "tools": tools,
            "events": events
        } }
    });
    serde_json::to_vec(&manifest).unwrap_or_default()
}
