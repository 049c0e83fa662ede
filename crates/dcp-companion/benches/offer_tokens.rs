//! The offer's size in a real model's tokens (issue 34, §17): an AI on the
//! player's PC reads the short offer (each argument's name, type, enum
//! values and `required`, no descriptions), an online AI the full one. This
//! measures what that saves where it counts, in the prompt of a real server:
//! for 1, 10 and 30 tools of the project's own plugins (the examples and the
//! catalog), each offer is sent in both forms as a real chat request asking
//! for one token, and the server's own count is read (`usage.prompt_tokens`;
//! llama.cpp's `timings` for the prefill time). Printed per size as
//! `short/full = 0.xx` of the offer's tokens (the prompt with tools less
//! the same prompt without), target ≤ 0.5, and of the whole prompt.
//!
//! It needs a server: `DCP_REAL_AI_URL` is its base URL (e.g.
//! `http://127.0.0.1:8080/v1`), `DCP_REAL_AI_MODEL` the model's name
//! (llama.cpp answers with its one model whatever the name). Without the
//! URL it says so and ends well, so `cargo bench` stays green.
//! `scripts/real-ai` runs it against llama.cpp's server and SmolLM2.

use dcp_ai::{Message, ToolSpec};
use dcp_call::offer::{parameters, Schema};
use dcp_format::model::Tool;
use serde_json::{json, Value};
use std::time::Instant;

/// The project's real plugins, whose tools are offered here: the examples,
/// and the catalog's (official: their slugs are reserved to them, §5).
const MANIFESTS: [(&str, bool); 8] = [
    (include_str!("../../../plugins-examples/exchange-rates/manifest.json"), false),
    (include_str!("../../../plugins-examples/local-server/manifest.json"), false),
    (include_str!("../../../plugins-examples/my-tasks/manifest.json"), false),
    (include_str!("../../../plugins-examples/pomodoro/manifest.json"), false),
    (include_str!("../../../plugins-examples/recipe-search/manifest.json"), false),
    (include_str!("../../../plugins-examples/trello-perso/manifest.json"), false),
    (include_str!("../../../crates/dcp-store/catalog/todoist.json"), true),
    (include_str!("../../../crates/dcp-store/catalog/trello.json"), true),
];
/// The offer sizes measured: one tool, a few plugins, §17's most.
const SIZES: [usize; 3] = [1, 10, 30];
/// §17's aim for the short offer against the full one.
const TARGET: f64 = 0.5;
/// Each request is sent this many times, the forms in turn, and the median
/// time kept: on a shared machine one prefill can take twice another.
const ROUNDS: usize = 3;

/// What the server said of one request.
struct Counted {
    /// The prompt's tokens (`usage.prompt_tokens`).
    prompt: u64,
    /// llama.cpp's prefill time (`timings.prompt_ms`), when it says.
    prefill_ms: Option<f64>,
    /// Prefill and the first token (`timings.prompt_ms + predicted_ms`).
    first_word_ms: Option<f64>,
    /// The request's time as this program saw it.
    wall_ms: f64,
}

impl Counted {
    /// The median of each time over `rounds` of the same request (the same
    /// prompt, so the same count).
    fn median(mut rounds: Vec<Counted>) -> Counted {
        let middle = rounds.len() / 2;
        let times = |f: fn(&Counted) -> Option<f64>| {
            let mut t: Vec<f64> = rounds.iter().filter_map(f).collect();
            t.sort_by(f64::total_cmp);
            t.get(t.len() / 2).copied()
        };
        let (prefill_ms, first_word_ms) = (times(|c| c.prefill_ms), times(|c| c.first_word_ms));
        let wall_ms = times(|c| Some(c.wall_ms)).unwrap_or_default();
        let prompt = rounds.swap_remove(middle).prompt;
        Counted { prompt, prefill_ms, first_word_ms, wall_ms }
    }
}

fn main() {
    let Ok(url) = std::env::var("DCP_REAL_AI_URL") else {
        println!(
            "offer_tokens: needs a running AI server: DCP_REAL_AI_URL=http://127.0.0.1:PORT/v1 \
             (scripts/real-ai starts llama.cpp's and runs this); nothing measured"
        );
        return;
    };
    let model = std::env::var("DCP_REAL_AI_MODEL").unwrap_or_else(|_| "model".to_owned());
    let plugins: Vec<_> = MANIFESTS
        .iter()
        .map(|&(manifest, official)| {
            let options = dcp_format::Options { official, ..dcp_format::Options::default() };
            let report = dcp_format::validate_manifest(manifest.as_bytes(), &options);
            report.plugin.unwrap_or_else(|| panic!("an invalid manifest: {:?}", report.problems))
        })
        .collect();
    let mut tools: Vec<&Tool> = plugins.iter().flat_map(|p| &p.tools).collect();
    tools.sort_by_key(|t| t.full_name.to_string());

    // rustls' ring provider by hand: the workspace's reqwest brings none.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = reqwest::Client::new();
    let send = |tools: Option<Vec<ToolSpec>>| {
        runtime.block_on(count(&client, &url, &model, tools)).unwrap_or_else(|e| panic!("{url}: {e}"))
    };

    let bare = send(None);
    println!("offer_tokens: {url} ({model}); the prompt without tools: {} tokens", bare.prompt);
    if tools.len() < SIZES[SIZES.len() - 1] {
        println!("  ({} real tools: past them, the same tools again under other plugin names)", tools.len());
    }
    let mut met = true;
    for n in SIZES {
        let (mut full, mut short) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            full.push(send(Some(offer(&tools, n, Schema::Full))));
            short.push(send(Some(offer(&tools, n, Schema::Short))));
        }
        let (full, short) = (Counted::median(full), Counted::median(short));
        let (full_offer, short_offer) =
            (full.prompt.saturating_sub(bare.prompt), short.prompt.saturating_sub(bare.prompt));
        let ratio = short_offer as f64 / full_offer.max(1) as f64;
        met &= ratio <= TARGET;
        println!(
            "{n:>2} tools: offer full {full_offer} tokens, short {short_offer}: short/full = {ratio:.2} \
             (whole prompt {} / {}: {:.2})",
            full.prompt,
            short.prompt,
            short.prompt as f64 / full.prompt.max(1) as f64
        );
        for (form, c) in [("full", &full), ("short", &short)] {
            println!(
                "{n:>2} tools {form:<5}: prefill {}, first word {}, request {:.0} ms (medians of {ROUNDS})",
                ms(c.prefill_ms),
                ms(c.first_word_ms),
                c.wall_ms
            );
        }
    }
    println!("target short/full ≤ {TARGET} for the offer: {}", if met { "met" } else { "not met" });
}

/// The first `n` tools in `schema`'s form, as the engine offers them. Past
/// the real tools, the same again under a numbered plugin name, so a size
/// larger than the project's plugins still holds realistic tools.
fn offer(tools: &[&Tool], n: usize, schema: Schema) -> Vec<ToolSpec> {
    (0..n)
        .map(|i| {
            let tool = tools[i % tools.len()];
            let round = i / tools.len();
            let name = match round {
                0 => tool.full_name.to_string(),
                _ => tool.full_name.to_string().replacen("__", &format!("{}__", round + 1), 1),
            };
            ToolSpec { name, description: tool.description.clone(), parameters: parameters(tool, schema) }
        })
        .collect()
}

/// One chat request asking for one token, its prompt not taken from the
/// server's cache (llama.cpp's `cache_prompt`), so the prefill is all of it.
async fn count(
    client: &reqwest::Client,
    url: &str,
    model: &str,
    tools: Option<Vec<ToolSpec>>,
) -> Result<Counted, String> {
    let messages = [
        Message::System { content: "You are the player's companion. Use a tool when one helps.".into() },
        Message::User { content: "What time is it on my PC?".into() },
    ];
    let mut body =
        json!({"model": model, "messages": messages, "max_tokens": 1, "stream": false, "cache_prompt": false});
    if let Some(tools) = tools {
        body["tools"] = json!(tools);
    }
    let started = Instant::now();
    let answer = client
        .post(format!("{}/chat/completions", url.trim_end_matches('/')))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = answer.status();
    let bytes = answer.bytes().await.map_err(|e| e.to_string())?;
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let answer: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{status}: {e}"))?;
    let prompt = answer["usage"]["prompt_tokens"]
        .as_u64()
        .or_else(|| answer["timings"]["prompt_n"].as_u64())
        .ok_or_else(|| format!("{status}: no usage.prompt_tokens in {answer}"))?;
    let timings = &answer["timings"];
    let prefill_ms = timings["prompt_ms"].as_f64();
    let first_word_ms = prefill_ms.zip(timings["predicted_ms"].as_f64()).map(|(p, d)| p + d);
    Ok(Counted { prompt, prefill_ms, first_word_ms, wall_ms })
}

fn ms(value: Option<f64>) -> String {
    value.map_or_else(|| "not said".to_owned(), |v| format!("{v:.0} ms"))
}
