//! What the AI is offered for a turn (§3 "What the AI knows", §12, §13,
//! §17): the tools it may choose (built-in tools first, 30 in all), the
//! abilities list from the English hints, and what is left out and why, so
//! the companion can tell the player.

use crate::courtier::{may_run, Refusal};
use crate::rank::{self, Index};
use crate::turn::{Place, Turn};
use dcp_format::limits::TOOLS_OFFERED;
use dcp_format::model::{ArgKind, Target, Texts, Tool};
use dcp_format::risk::Level;
use dcp_store::CallContext;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// A tool as the AI sees it: full name, description, arguments.
#[derive(Debug, Clone, Serialize)]
pub struct OfferedTool {
    /// `<slug>__<tool>`.
    pub name: String,
    /// The tool description.
    pub description: String,
    /// The arguments as JSON Schema, in the turn's [`Schema`] form.
    pub parameters: Value,
    /// Its level (§12), for a client that shows what an action may change
    /// (`dcplugin mcp`'s annotations).
    pub level: Level,
    /// It reaches a web host (§14), not a program on this PC (§15).
    pub web: bool,
}

/// Something not offered, and why.
#[derive(Debug, Clone, Serialize)]
pub struct LeftOut {
    /// The plugin.
    pub plugin: String,
    /// The action, or `None` when the whole plugin is left out.
    pub tool: Option<String>,
    /// The reason: the courtier's (§22), or `tool_limit`.
    pub reason: Refusal,
    /// What the companion can tell the player.
    pub message: String,
}

/// What a turn offers.
#[derive(Debug, Clone, Serialize)]
pub struct Offer {
    /// The tools, in order.
    pub tools: Vec<OfferedTool>,
    /// `<plugin>: <hint>` for each offered action, "your" read as "the user's".
    pub abilities: Vec<String>,
    /// What is left out and why.
    pub left_out: Vec<LeftOut>,
    /// Every action of the installed plugins as the player is shown it, by
    /// full name, offered or not (a turn's tool line names the action the
    /// AI called, even one refused; issue 33). Not part of what the AI
    /// reads.
    #[serde(skip)]
    pub shown: BTreeMap<String, Shown>,
}

/// An action as the player is shown it (§18): its plugin's name and its hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The plugin's display name.
    pub plugin: String,
    /// The hint, by language (§6).
    pub hint: Texts,
}

/// The offer for `turn` over every installed plugin (sorted by slug). When
/// more tools are eligible than there is room for, the turn's words and the
/// tools already used pick which ([`rank`]); what is left out is
/// `tool_limit`.
pub fn offer(turn: &Turn, plugins: &[Arc<CallContext>]) -> Offer {
    offer_with(turn, plugins, &OnceLock::new())
}

/// [`offer`], ranking with the index of `plugins` ([`Index::of`]) in
/// `index`, made there the first time it is needed: a caller that makes
/// many offers over the same plugins (the host) keeps it.
pub fn offer_with(turn: &Turn, plugins: &[Arc<CallContext>], index: &OnceLock<Index>) -> Offer {
    let mut out = Offer { tools: Vec::new(), abilities: Vec::new(), left_out: Vec::new(), shown: BTreeMap::new() };
    let room = TOOLS_OFFERED.saturating_sub(turn.builtin);
    // Each plugin and action as it comes, in order: left out with its
    // reason, or eligible (an index into `eligible`), for the ranking to
    // decide once all are known.
    let mut seen: Vec<(&str, Option<&str>, Result<usize, Refusal>)> = Vec::new();
    // The eligible tools, their plugin's name and their number in the index.
    let mut eligible: Vec<(&Tool, &str, usize)> = Vec::new();
    let mut number = 0;
    for ctx in plugins {
        let first = number;
        if let Some(plugin) = &ctx.plugin {
            number += plugin.tools.len();
            for tool in &plugin.tools {
                let shown = Shown { plugin: plugin.display_name.clone(), hint: tool.hint.clone() };
                out.shown.insert(tool.full_name.to_string(), shown);
            }
        }
        // The checks that come before an action's own concern the whole
        // plugin: asked about no action, the courtier stops at the first of
        // them that fails, or at unknown_tool when they all pass. (Asked
        // about its first action, an action switched off would read as the
        // whole plugin off.)
        let whole = may_run(turn, Some(ctx), None).err().filter(|reason| *reason != Refusal::UnknownTool);
        let plugin = match (&ctx.plugin, whole) {
            (Some(plugin), None) => plugin,
            (_, reason) => {
                seen.push((&ctx.slug, None, Err(reason.unwrap_or(Refusal::PluginOff))));
                continue;
            }
        };
        for (i, tool) in plugin.tools.iter().enumerate() {
            let verdict = may_run(turn, Some(ctx), Some(tool)).map(|()| {
                eligible.push((tool, &plugin.display_name, first + i));
                eligible.len() - 1
            });
            seen.push((&ctx.slug, Some(&tool.name), verdict));
        }
    }
    let kept = if eligible.len() <= room || (turn.words.is_empty() && turn.used.is_empty()) {
        // Room for all, or nothing to rank by: the offer's order.
        (0..eligible.len()).map(|i| i < room).collect()
    } else {
        let numbers: Vec<usize> = eligible.iter().map(|e| e.2).collect();
        let asked = rank::Asked { words: &turn.words, used: &turn.used };
        index.get_or_init(|| Index::of(plugins)).keep(&numbers, room, asked)
    };
    for (slug, tool, verdict) in seen {
        match verdict.and_then(|i| if kept[i] { Ok(i) } else { Err(Refusal::ToolLimit) }) {
            Err(reason) => leave(&mut out, slug, tool, reason),
            Ok(i) => {
                let (tool, plugin, _) = eligible[i];
                out.tools.push(offered(tool, turn.schema()));
                out.abilities.push(format!("{}: {}", plugin, users(tool.hint.get("en").map_or("", String::as_str))));
            }
        }
    }
    out
}

fn leave(out: &mut Offer, plugin: &str, tool: Option<&str>, reason: Refusal) {
    // §22 has one code for a plugin, an action or all plugins off; an
    // action left out as `plugin_off` while its plugin is offered is that
    // action switched off (issue 34: "off" alone read as the whole plugin).
    let message = match (reason, tool) {
        (Refusal::PluginOff, Some(_)) => "action switched off".to_owned(),
        _ => reason.for_player(),
    };
    out.left_out.push(LeftOut { plugin: plugin.to_owned(), tool: tool.map(str::to_owned), reason, message });
}

/// "your" becomes "the user's" for the AI (§6 "About hints").
fn users(hint: &str) -> String {
    hint.split(' ')
        .map(|w| match w {
            "your" => "the user's",
            "Your" => "The user's",
            other => other,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How much of a tool's arguments the AI reads when it picks tools (§17).
///
/// `Short` is §17's form for an AI on the player's PC: "the tool
/// description and the argument names, types and enum values, but not the
/// argument descriptions", and `required`. It also leaves out `minimum`,
/// `maximum`, `maxLength` and `default`, which that sentence does not keep:
/// the host checks every argument against the whole schema anyway
/// (`INVALID_ARGUMENTS`, which the AI may retry, §9) and fills in a missing
/// argument's default itself (§8), so they cost a small model prompt time
/// and add nothing it must know to pick. `Full` is the manifest's schema
/// as written (descriptions, bounds, defaults): online AIs, and the AI
/// apps of `dcplugin mcp`, whose model is not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Schema {
    /// Names, types, enum values and `required` (§17, an AI on this PC).
    Short,
    /// Everything the manifest declares.
    Full,
}

impl Schema {
    /// The form for an AI that runs at `place`.
    pub fn for_ai(place: Place) -> Schema {
        match place {
            Place::Pc => Schema::Short,
            Place::Online => Schema::Full,
        }
    }
}

/// A tool's arguments as the JSON Schema the AI reads, in `schema`'s form.
pub fn parameters(tool: &Tool, schema: Schema) -> Value {
    let full = schema == Schema::Full;
    let mut properties = Map::new();
    for arg in &tool.arguments {
        let mut p = Map::new();
        p.insert("type".into(), json!(arg.kind.as_str()));
        if let Some(d) = arg.description.as_ref().filter(|_| full) {
            p.insert("description".into(), json!(d));
        }
        if let Some(e) = &arg.enum_values {
            p.insert("enum".into(), json!(e));
        }
        if full {
            let number = |n: f64| if arg.kind == ArgKind::Integer { json!(n as i64) } else { json!(n) };
            if let Some(n) = arg.minimum {
                p.insert("minimum".into(), number(n));
            }
            if let Some(n) = arg.maximum {
                p.insert("maximum".into(), number(n));
            }
            if let Some(n) = arg.max_length {
                p.insert("maxLength".into(), json!(n));
            }
            if let Some(d) = &arg.default {
                p.insert("default".into(), d.clone());
            }
        }
        properties.insert(arg.name.clone(), Value::Object(p));
    }
    let required: Vec<&str> = tool.arguments.iter().filter(|a| a.required).map(|a| a.name.as_str()).collect();
    json!({ "type": "object", "properties": properties, "required": required })
}

fn offered(tool: &Tool, schema: Schema) -> OfferedTool {
    OfferedTool {
        name: tool.full_name.to_string(),
        description: tool.description.clone(),
        parameters: parameters(tool, schema),
        level: tool.level,
        web: matches!(tool.request.target, Target::Web { .. }),
    }
}
