#![allow(missing_docs)] // criterion_group! writes an undocumented function
//! §5 text checks against the JSON parse of the same 64 KB: the whole
//! validation must stay under 3× serde_json's parse time, so the text
//! checks of a manifest made only of AI texts (the worst case) are measured
//! next to its parse.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use dcp_format::text::check_ai_text;

const TEXTS: &[&str] = &[
    "Convert an amount of money from one currency to another with today's reference rates. Currencies are three-letter codes such as USD, EUR or JPY.",
    "List the open lists of the user's Trello board with their open cards (ids, names). Gives the list ids needed to add a card.",
    "Length of the focus session in minutes. Leave it out unless the user says a length: the timer then uses 25.",
    "ajouter une carte à votre tableau Trello",
    "Title of the card",
];

fn manifest_of_texts() -> (String, Vec<String>) {
    let mut texts = Vec::new();
    let mut size = 2;
    while size < 64 * 1024 {
        let text = TEXTS[texts.len() % TEXTS.len()].to_owned();
        size += text.len() + 12;
        texts.push(text);
    }
    let map: serde_json::Map<String, serde_json::Value> =
        texts.iter().enumerate().map(|(i, t)| (format!("k{i}"), t.clone().into())).collect();
    (serde_json::Value::Object(map).to_string(), texts)
}

/// A realistic manifest: the tools of spec §20 B repeated up to 64 KB, and
/// the texts the AI reads in it (descriptions, hints, argument
/// descriptions).
fn realistic_manifest() -> (String, Vec<String>) {
    let tool = serde_json::json!({
        "description": "List the user's tasks matching a filter, with their ids. Gives the ids needed to complete a task.",
        "hint": { "en": "read your tasks", "fr": "lire vos tâches" },
        "risk": "R1",
        "inputSchema": { "type": "object", "properties": {
            "filter": { "type": "string", "description": "Filter such as today, overdue or a project name.", "default": "today", "maxLength": 200 },
            "due": { "type": "string", "description": "Due date in plain English", "maxLength": 100 }
        } },
        "request": { "method": "GET", "url": "https://api.tasks.example.com/v1/tasks", "query": { "filter": "{{filter}}", "limit": "{{config.max_tasks}}" } },
        "response": { "pick": ["results[].id", "results[].content", "results[].due.date"], "maxChars": 4000 }
    });
    let mut tools = serde_json::Map::new();
    let mut texts = Vec::new();
    while serde_json::Value::Object(tools.clone()).to_string().len() < 64 * 1024 {
        tools.insert(format!("tool_{}", tools.len()), tool.clone());
        texts.extend(
            [
                "List the user's tasks matching a filter, with their ids. Gives the ids needed to complete a task.",
                "read your tasks",
                "lire vos tâches",
                "Filter such as today, overdue or a project name.",
                "Due date in plain English",
            ]
            .map(str::to_owned),
        );
    }
    (serde_json::Value::Object(tools).to_string(), texts)
}

fn bench(c: &mut Criterion) {
    let (json, texts) = realistic_manifest();
    c.bench_function("parse a 64 KB manifest", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&json)).ok())
    });
    c.bench_function("check_ai_text on its texts", |b| {
        b.iter(|| texts.iter().map(|t| check_ai_text(black_box(t)).len()).sum::<usize>())
    });
    let (json, texts) = manifest_of_texts();
    c.bench_function("parse 64 KB of texts", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&json)).ok())
    });
    c.bench_function("check_ai_text on 64 KB of texts", |b| {
        b.iter(|| texts.iter().map(|t| check_ai_text(black_box(t)).len()).sum::<usize>())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
