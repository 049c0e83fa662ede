//! §17: the arguments an AI reads when it picks tools. An AI on the
//! player's PC gets the short form (argument names, types, enum values and
//! `required`, no argument descriptions nor bounds nor defaults); an
//! online AI, and a turn that asks for it (`dcplugin mcp`), the full one.

mod catalog;

use dcp_call::offer::{offer, Schema};
use dcp_call::turn::{Place, Source, Turn};
use dcp_format::language::Language;
use dcp_store::CallContext;
use serde_json::{json, Value};
use std::sync::Arc;

/// A plugin whose one tool has an argument of each kind of detail.
fn ctx() -> CallContext {
    let manifest = json!({ "name": "weather", "version": "1.0.0", "_meta": { "com.desktopaicompanion": {
        "apiVersion": 1, "kind": "declarative", "slug": "weather",
        "permissions": { "network": { "hosts": ["api.weather.example"] } },
        "tools": { "forecast": {
            "description": "Tell the weather forecast for a city, in metric or imperial units.",
            "hint": { "en": "tell the forecast" },
            "inputSchema": { "type": "object", "properties": {
                "city": { "type": "string", "description": "Name of the city", "maxLength": 100 },
                "units": { "type": "string", "description": "Units of the temperatures",
                           "enum": ["metric", "imperial"], "default": "metric" },
                "days": { "type": "integer", "description": "Days to tell", "minimum": 1, "maximum": 7 }
            }, "required": ["city"] },
            "request": { "method": "GET", "url": "https://api.weather.example/forecast",
                         "query": { "city": "{{city}}", "units": "{{units}}", "days": "{{days}}" } }
        } }
    } } });
    catalog::active(&manifest, Language::En)
}

/// The one tool's name, description and parameters as offered for `turn`.
fn offered(turn: &Turn) -> (String, String, Value) {
    let o = offer(turn, &[Arc::new(ctx())]);
    let tool = &o.tools[0];
    (tool.name.clone(), tool.description.clone(), tool.parameters.clone())
}

const DESCRIPTION: &str = "Tell the weather forecast for a city, in metric or imperial units.";

fn full() -> Value {
    json!({ "type": "object", "properties": {
        "city": { "type": "string", "description": "Name of the city", "maxLength": 100 },
        "units": { "type": "string", "description": "Units of the temperatures",
                   "enum": ["metric", "imperial"], "default": "metric" },
        "days": { "type": "integer", "description": "Days to tell", "minimum": 1, "maximum": 7 }
    }, "required": ["city"] })
}

#[test]
fn s17_an_ai_on_the_pc_reads_names_types_enums_and_required_only() {
    let (name, description, parameters) = offered(&Turn::new(Source::Keyboard, Place::Pc));
    assert_eq!((name.as_str(), description.as_str()), ("weather__forecast", DESCRIPTION), "the tool's own text stays");
    let short = json!({ "type": "object", "properties": {
        "city": { "type": "string" },
        "units": { "type": "string", "enum": ["metric", "imperial"] },
        "days": { "type": "integer" }
    }, "required": ["city"] });
    assert_eq!(parameters, short);
    assert!(!parameters.to_string().contains("description"), "{parameters}");
}

#[test]
fn s17_an_online_ai_reads_the_whole_schema() {
    let (_, description, parameters) = offered(&Turn::new(Source::Keyboard, Place::Online));
    assert_eq!(description, DESCRIPTION);
    assert_eq!(parameters, full());
}

#[test]
fn s17_a_turn_may_ask_for_the_whole_schema_whatever_its_ai() {
    // `dcplugin mcp --ai pc`: the client's model runs on this PC, but what
    // it is and how its app shows tools is not known.
    let turn = Turn { schema: Some(Schema::Full), ..Turn::new(Source::Mcp, Place::Pc) };
    assert_eq!(turn.schema(), Schema::Full);
    assert_eq!(offered(&turn).2, full());
    let short = Turn { schema: Some(Schema::Short), ..Turn::new(Source::Mcp, Place::Online) };
    assert_eq!(offered(&short).2["properties"]["city"], json!({ "type": "string" }));
}
