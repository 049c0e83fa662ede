//! Text from outside the app printed by `dcplugin` in text mode (issue 32,
//! §3, §19): a journal line's fields, the model names an AI service lists,
//! an AI service's error message. Each reaches the terminal with no escape
//! and no hidden character, a field on its one line. `--json` is pinned by
//! the other CLI tests and not changed.

mod support;

use scripted_ai::{openai, ModelsReply, Options, Script, ScriptedAi};
use std::process::Output;
use support::{free_port, text, Profile};

/// What a hostile program puts in a name: a line break forging a journal
/// line, the clipboard (OSC 52), the title (OSC 0), concealed text, an
/// 8-bit CSI, a right-to-left override, a zero-width space.
const HOSTILE: &str = "x\n2026-01-01 10:00:00  bank__send_money  keyboard  done \"to mallory 1000\"\
                       \u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]0;pwned\u{7}\u{1b}[8m\u{9b}2J\u{202e}\u{200b}";

/// Nothing of `bytes` drives a terminal: no escape, no bell, no C1, no
/// bidi override, no zero-width space.
fn harmless(bytes: &[u8]) {
    let printed = text(bytes);
    for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\u{200b}'] {
        assert!(!printed.contains(bad), "U+{:04X} printed: {printed:?}", bad as u32);
    }
}

/// `bytes` show the hostile text's escapes visibly.
fn escaped_visibly(bytes: &[u8]) {
    let printed = text(bytes);
    assert!(printed.contains("\\u{1b}]52;c;cHduZWQ=\\u{7}"), "escaped visibly: {printed}");
}

/// A journal line whose tool name the AI (or a client) made up: stored as
/// it came by an older version (before issue 32 cleaned it when written),
/// printed on one line, escaped.
#[test]
fn s19_issue32_a_journal_line_is_printed_on_one_line_without_escapes() {
    let p = Profile::new();
    let call = p.run(&["call", &format!("evil__{HOSTILE}")]);
    assert_eq!(call.status.code(), Some(1), "refused unknown_tool: {}", text(&call.stderr));
    harmless(&call.stderr);
    let db = rusqlite::Connection::open(p.root().join("host.sqlite")).expect("the profile's database");
    let written = db
        .execute("UPDATE journal SET slug = ?1, action = ?1, subject = ?1, client = ?1", [HOSTILE])
        .expect("the line kept as an older version kept it");
    assert_eq!(written, 1);
    let journal = p.run(&["journal"]);
    assert!(journal.status.success(), "{}", text(&journal.stderr));
    harmless(&journal.stdout);
    escaped_visibly(&journal.stdout);
    let printed = text(&journal.stdout);
    assert_eq!(printed.lines().count(), 1, "one line: {printed}");
    assert!(printed.contains("x\\n2026-01-01 10:00:00  bank__send_money"), "the line break escaped: {printed}");
    assert!(printed.contains("refused unknown_tool"), "{printed}");
}

/// An AI service at `models`'s answer, set as `p`'s AI.
fn ai_listing(p: &Profile, models: ModelsReply, turns: Vec<scripted_ai::Step>) -> ScriptedAi {
    let ai = ScriptedAi::launch(Script { models, turns }, Options::default()).expect("scripted-ai starts");
    let set = p.run(&["ai", "--url", &ai.url(), "--model", scripted_ai::MODEL]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    ai
}

/// `ai test` lists the models a program on the AI's port names.
#[test]
fn s13_issue32_model_names_an_ai_lists_are_printed_safely() {
    let p = Profile::new();
    let _ai = ai_listing(&p, ModelsReply::List(vec![scripted_ai::MODEL.to_owned(), HOSTILE.to_owned()]), vec![]);
    let tested: Output = p.run(&["ai", "test"]);
    assert!(tested.status.success(), "{}", text(&tested.stderr));
    harmless(&tested.stdout);
    escaped_visibly(&tested.stdout);
    let printed = text(&tested.stdout);
    assert_eq!(printed.lines().count(), 2, "the models on one line, then tools (issue 34): {printed}");
    assert!(printed.starts_with("Connected (on this PC): 2 models: scripted, x\\n2026"), "{printed}");
    assert!(printed.lines().nth(1).is_some_and(|l| l.starts_with("tools: unknown")), "{printed}");
}

/// An AI service's error message, and the model's reply, in the chat's text.
#[test]
fn s13_issue32_an_ai_error_and_a_reply_are_printed_safely() {
    let p = Profile::new();
    let turns = vec![openai::error(400, HOSTILE), openai::text([HOSTILE])];
    let _ai = ai_listing(&p, ModelsReply::List(vec![scripted_ai::MODEL.to_owned()]), turns);
    let chat = |once: &str| p.run(&["chat", "--door-port", &free_port().to_string(), "--once", once]);
    let failed = chat("hello");
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    harmless(&failed.stderr);
    escaped_visibly(&failed.stderr);
    let replied = chat("hello again");
    assert!(replied.status.success(), "{}", text(&replied.stderr));
    harmless(&replied.stdout);
    escaped_visibly(&replied.stdout);
    // A reply spans lines as written; none of them is forged by a carriage return.
    assert_eq!(
        text(&replied.stdout).lines().next(),
        Some("x"),
        "the reply's own line break kept: {}",
        text(&replied.stdout)
    );
}
