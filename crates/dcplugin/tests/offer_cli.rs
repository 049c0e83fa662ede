//! `dcplugin tools` through the real binary: what the offer leaves out is
//! said for what it is, and the arguments are those the turn's AI reads
//! (issue 34).

mod support;

use serde_json::Value;
use support::{examples, json_of, text, Profile};

/// Runs a command that must succeed: its standard output.
fn ok(p: &Profile, args: &[&str]) -> String {
    let out = p.run(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}{}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}

/// One action switched off is said to be the action, not its plugin; §22's
/// code stays `plugin_off` (the plugin, the action or all plugins off).
#[test]
fn an_action_switched_off_is_left_out_as_the_action_off() {
    let p = Profile::new();
    let manifest = examples().join("exchange-rates/manifest.json");
    ok(&p, &["import", manifest.to_str().unwrap_or_default(), "--yes"]);

    ok(&p, &["disable", "fx", "--action", "convert"]);
    let out = ok(&p, &["tools"]);
    assert!(out.contains("left out: fx__convert  action switched off (plugin_off)"), "{out}");
    let offer = json_of(&p.run(&["tools", "--json"]));
    let left: Vec<&Value> = offer["left_out"].as_array().map(|l| l.iter().collect()).unwrap_or_default();
    assert_eq!(left.len(), 1, "{offer}");
    assert_eq!(
        (&left[0]["tool"], &left[0]["reason"], &left[0]["message"]),
        (&Value::from("convert"), &Value::from("plugin_off"), &Value::from("action switched off")),
        "{offer}"
    );

    // The whole plugin off is still the plugin's line.
    ok(&p, &["enable", "fx", "--action", "convert"]);
    ok(&p, &["disable", "fx"]);
    let out = ok(&p, &["tools"]);
    assert!(out.contains("left out: fx  off (plugin_off)"), "{out}");
}

/// §17: `tools` shows the arguments as the turn's AI reads them: on this PC
/// (`--model local`, the default) names, types, enum values and `required`
/// only; online, the whole schema.
#[test]
fn an_ai_on_this_pc_is_offered_the_short_schema() {
    let p = Profile::new();
    let manifest = examples().join("exchange-rates/manifest.json");
    ok(&p, &["import", manifest.to_str().unwrap_or_default(), "--yes"]);
    let parameters =
        |model: &str| json_of(&p.run(&["tools", "--json", "--model", model]))["tools"][0]["parameters"].clone();
    let short = serde_json::json!({ "type": "object", "required": ["amount", "from", "to"], "properties": {
        "amount": { "type": "number" }, "from": { "type": "string" }, "to": { "type": "string" } } });
    assert_eq!(parameters("local"), short);
    let full = parameters("online");
    assert_eq!(full["properties"]["from"]["description"], "Currency to convert from, a three-letter code such as USD.");
    assert_eq!(
        (&full["properties"]["from"]["maxLength"], &full["properties"]["amount"]["minimum"]),
        (&3.into(), &0.0.into())
    );
}
