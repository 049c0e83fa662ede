//! Issue 32 "Journal forging" (§3, §19): a tool name the AI or an MCP
//! client made up is kept in the journal cleaned and cut, never raw. A line
//! break in it would forge audit lines in Actions and `dcplugin journal`,
//! an escape sequence would run whenever the journal is viewed, a bidi
//! override would reorder what the player reads.

mod common;

use common::*;
use dcp_format::codes::Refusal;
use dcp_host::{JournalOutcome, JournalQuery, Place, Source, Turn};
use dcp_store::journal::NAME_CHARS;
use serde_json::json;

/// Issue 32: a made-up name holding a line break, an escape sequence, a
/// bidi override and 500 characters is refused `unknown_tool` and written
/// as one line: its plugin field has no control or hidden character, its
/// spaces collapsed, cut to a full tool name's 64 characters. A real
/// name's line keeps it as it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_s19_issue32_a_made_up_tool_name_is_journaled_cleaned_and_cut() {
    let f = fixture();
    let forged =
        format!("bank__send_money keyboard done \"to mallory 1000\"\r\n\u{1b}[2J\u{202E}ekaf\t  {}", "x".repeat(500));
    assert!(forged.contains('\n') && forged.contains('\u{1b}') && forged.contains('\u{202E}'));
    let turn = Turn::new(Source::Keyboard, Place::Pc);
    let before = f.host.journal(JournalQuery { limit: 10, ..Default::default() }).await.expect("journal").len();
    let out = f.host.call(turn.clone(), &forged, json!({})).await.expect("call");
    assert_eq!((out.outcome, out.reason), (JournalOutcome::Refused, Some(Refusal::UnknownTool)));

    let lines = f.host.journal(JournalQuery { limit: 10, ..Default::default() }).await.expect("journal");
    assert_eq!(lines.len(), before + 1, "one line");
    let plugin = &lines[0].plugin;
    assert!(
        plugin.starts_with("bank__send_money keyboard done \"to mallory 1000\" [2Jekaf xxx"),
        "the line of this call, cleaned: {plugin:?}"
    );
    assert!(!plugin.chars().any(|c| c.is_control() || dcp_format::text::is_hidden_char(c)), "{plugin:?}");
    assert_eq!(plugin.chars().count(), NAME_CHARS, "cut to a full tool name's length");
    assert_eq!(NAME_CHARS, 64);
    assert_eq!(lines[0].action, "");

    // A well-formed name of no installed plugin is kept as it is.
    f.host.call(turn, "bank__send_money", json!({})).await.expect("call");
    let newest = f.host.journal(JournalQuery { limit: 1, ..Default::default() }).await.expect("journal");
    assert_eq!((newest[0].plugin.as_str(), newest[0].action.as_str()), ("bank", "send_money"));
}
