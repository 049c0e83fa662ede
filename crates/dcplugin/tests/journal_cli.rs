//! The journal reads back every line it holds (§3, §19, §22), through the
//! host (`Host::journal`, what the window's Actions tab reads) and through
//! `dcplugin journal --json` (the real binary): every outcome × code ×
//! source a line can hold, a line this version cannot read shown as it
//! is beside the others, and a call of an event (or auto) turn, refused
//! `not_requested`, that once made the whole journal unreadable.
//!
//! The lines are written in the profile's own SQLite file, as the store
//! writes them: this crate reaches the store only through the host, and
//! the host writes a line only at the end of a real call or event, which
//! cannot produce every code. What the store writes is read back by the
//! store's own tests and by the calls below.

mod support;

use dcp_format::codes::{CallCode, EventReason, Refusal, SpecCode, ToolCode};
use dcp_host::{Host, HostOptions, JournalKind, JournalLine, JournalOutcome, JournalQuery, JournalValue, Source};
use dcp_vault::testing::MemoryKeyStore;
use serde_json::Value;
use std::sync::Arc;
use support::{examples, json_of, text, Profile};

/// One line as the journal table holds it.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    who: String,
    kind: String,
    outcome: String,
    code: Option<String>,
}

/// Every status a service's error answer can have: the call fails from
/// 400 on, and a status has three digits (§22 `HTTP_<status>`).
const HTTP_STATUSES: std::ops::RangeInclusive<u16> = 400..=999;

/// The codes a line of this kind and outcome is written with (§22): a
/// failed call's every tool-result code, a refused call's every reason, a
/// refused or dropped event's every door reason; none for done and
/// received. A kind that never has this outcome: nothing.
fn codes(kind: JournalKind, outcome: JournalOutcome) -> Vec<Option<SpecCode>> {
    let tool_codes = CallCode::ALL.iter().map(|c| ToolCode::Call(*c)).chain(HTTP_STATUSES.map(ToolCode::Http));
    let event_reasons = || EventReason::ALL.iter().map(|r| Some(SpecCode::Event(*r))).collect();
    match (kind, outcome) {
        (JournalKind::Call, JournalOutcome::Done) | (JournalKind::Event, JournalOutcome::Received) => vec![None],
        (JournalKind::Call, JournalOutcome::Failed) => tool_codes.map(|c| Some(SpecCode::Tool(c))).collect(),
        (JournalKind::Call, JournalOutcome::Refused) => {
            Refusal::ALL.iter().map(|r| Some(SpecCode::Refusal(*r))).collect()
        }
        (JournalKind::Event, JournalOutcome::Refused | JournalOutcome::Dropped) => event_reasons(),
        (JournalKind::Call, JournalOutcome::Received | JournalOutcome::Dropped)
        | (JournalKind::Event, JournalOutcome::Done | JournalOutcome::Failed) => Vec::new(),
    }
}

/// Who asks for a line of this kind: any source of §12 for a call (an
/// event or auto turn's call is refused, and journaled all the same);
/// the door for an event.
fn sources(kind: JournalKind) -> Vec<&'static str> {
    match kind {
        JournalKind::Call => Source::ALL.iter().map(|s| s.as_str()).collect(),
        JournalKind::Event => vec!["event"],
    }
}

/// Every line the host can write, oldest first, each with what the host
/// must read back.
fn every_line() -> Vec<(Line, Expected)> {
    let mut lines = Vec::new();
    for kind in JournalKind::ALL {
        for outcome in JournalOutcome::ALL {
            for code in codes(kind, outcome) {
                for who in sources(kind) {
                    let line = Line {
                        who: who.to_owned(),
                        kind: kind.as_str().to_owned(),
                        outcome: outcome.as_str().to_owned(),
                        code: code.map(|c| c.to_string()),
                    };
                    let expected = Expected {
                        kind: JournalValue::Known(kind),
                        outcome: JournalValue::Known(outcome),
                        code: code.map(JournalValue::Known),
                    };
                    lines.push((line, expected));
                }
            }
        }
    }
    lines
}

/// How the host reads a line back: known values, or the text as stored.
#[derive(Debug, Clone, PartialEq)]
struct Expected {
    kind: JournalValue<JournalKind>,
    outcome: JournalValue<JournalOutcome>,
    code: Option<JournalValue<SpecCode>>,
}

fn read_back(line: &JournalLine) -> (Line, Expected) {
    let written = Line {
        who: line.who.to_string(),
        kind: line.kind.to_string(),
        outcome: line.outcome.to_string(),
        code: line.code.as_ref().map(ToString::to_string),
    };
    (written, Expected { kind: line.kind.clone(), outcome: line.outcome.clone(), code: line.code.clone() })
}

/// A profile made by the host, holding `lines` (oldest first) in its
/// journal, each subject its index; and the host on it.
fn profile_holding(p: &Profile, lines: &[Line]) -> Host {
    let host = Host::open(HostOptions {
        profile: Some(p.root()),
        key_store: Some(Arc::new(MemoryKeyStore::new())),
        door_port: None,
        ..Default::default()
    })
    .expect("host opens");
    let mut db = rusqlite::Connection::open(p.root().join("host.sqlite")).expect("db");
    let tx = db.transaction().expect("tx");
    for (i, l) in lines.iter().enumerate() {
        tx.execute(
            "INSERT INTO journal (at, slug, action, who, kind, outcome, code, subject)
             VALUES (?1, 'fx', 'convert', ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![1_796_000_000_000_i64 + i as i64, l.who, l.kind, l.outcome, l.code, i.to_string()],
        )
        .expect("insert");
    }
    tx.commit().expect("commit");
    host
}

/// The journal's newest `limit` lines through the host, oldest first.
fn through_host(host: &Host, limit: usize) -> Vec<JournalLine> {
    let query = JournalQuery { limit, ..Default::default() };
    let mut lines = host.block_on(host.journal(query)).expect("the host reads the journal");
    lines.reverse();
    lines
}

/// The journal's newest `limit` lines through `dcplugin journal --json`,
/// oldest first, each as the table holds it.
fn through_cli(p: &Profile, limit: usize) -> Vec<Line> {
    let out = p.run(&["journal", "--limit", &limit.to_string(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    let listed = json_of(&out);
    let mut lines: Vec<Line> = listed.as_array().expect("an array").iter().map(line_of_json).collect();
    lines.reverse();
    lines
}

/// A stored text this version does not know.
fn unknown<T>(text: &str) -> JournalValue<T> {
    JournalValue::Unknown(text.to_owned())
}

fn line_of_json(v: &Value) -> Line {
    let spelled = |key: &str| v[key].as_str().unwrap_or_else(|| panic!("{key} is a string: {v}")).to_owned();
    let code = match &v["code"] {
        Value::Null => None,
        Value::String(code) => Some(code.clone()),
        other => panic!("code is a string or null: {other}"),
    };
    Line { who: spelled("who"), kind: spelled("kind"), outcome: spelled("outcome"), code }
}

/// §3, §19, §22: one line of every outcome × code × source the host can
/// write (every tool-result code, `HTTP_<status>` included, every
/// refusal, every door reason; for every source of §12) reads back as it
/// was written, known, through the host and through `journal --json`.
#[test]
fn s3_s19_s22_every_outcome_code_and_source_a_line_can_hold_reads_back_through_the_host_and_the_cli() {
    let p = Profile::new();
    let (lines, expected): (Vec<Line>, Vec<Expected>) = every_line().into_iter().unzip();
    let host = profile_holding(&p, &lines);
    let (read, known): (Vec<Line>, Vec<Expected>) = through_host(&host, lines.len()).iter().map(read_back).unzip();
    assert_eq!(read.len(), lines.len(), "every line is listed");
    for (i, (got, want)) in known.iter().zip(&expected).enumerate() {
        assert_eq!((&read[i], got), (&lines[i], want), "line {i} reads back as written, known");
    }
    drop(host);
    assert_eq!(through_cli(&p, lines.len()), lines, "journal --json lists every line as written");
}

/// §3, §19: a line with a code, an outcome or a kind this version does not
/// know is listed with its text as stored, and the lines around it still
/// appear, through the host and the CLI (its text lines too).
#[test]
fn s3_s19_a_line_this_version_cannot_read_is_shown_as_it_is_beside_the_others() {
    let p = Profile::new();
    let line = |who: &str, kind: &str, outcome: &str, code: Option<&str>| Line {
        who: who.into(),
        kind: kind.into(),
        outcome: outcome.into(),
        code: code.map(str::to_owned),
    };
    let lines = [
        line("voice", "call", "done", None),
        line("voice", "call", "refused", Some("some_future_reason")),
        line("keyboard", "call", "postponed", Some("HTTP_500")),
        line("event", "reminder", "refused", Some("plugin_off")),
        line("event", "event", "refused", Some("NOT_HTTPS")),
        line("voice", "call", "failed", Some("HTTP_5000")),
        line("event", "event", "received", None),
    ];
    let host = profile_holding(&p, &lines);
    let read: Vec<Expected> = through_host(&host, 50).iter().map(|l| read_back(l).1).collect();
    let expected = [
        Expected {
            kind: JournalValue::Known(JournalKind::Call),
            outcome: JournalValue::Known(JournalOutcome::Done),
            code: None,
        },
        Expected {
            kind: JournalValue::Known(JournalKind::Call),
            outcome: JournalValue::Known(JournalOutcome::Refused),
            code: Some(unknown("some_future_reason")),
        },
        Expected {
            kind: JournalValue::Known(JournalKind::Call),
            outcome: unknown("postponed"),
            code: Some(JournalValue::Known(SpecCode::Tool(ToolCode::Http(500)))),
        },
        Expected {
            kind: unknown("reminder"),
            outcome: JournalValue::Known(JournalOutcome::Refused),
            code: Some(unknown("plugin_off")),
        },
        Expected {
            kind: JournalValue::Known(JournalKind::Event),
            outcome: JournalValue::Known(JournalOutcome::Refused),
            code: Some(unknown("NOT_HTTPS")),
        },
        Expected {
            kind: JournalValue::Known(JournalKind::Call),
            outcome: JournalValue::Known(JournalOutcome::Failed),
            code: Some(unknown("HTTP_5000")),
        },
        Expected {
            kind: JournalValue::Known(JournalKind::Event),
            outcome: JournalValue::Known(JournalOutcome::Received),
            code: None,
        },
    ];
    assert_eq!(read, expected);
    drop(host);
    assert_eq!(through_cli(&p, 50), lines, "journal --json lists each as stored");
    let out = p.run(&["journal"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    for shown in ["refused some_future_reason", "keyboard  postponed HTTP_500", "failed HTTP_5000", "received"] {
        assert!(printed.contains(shown), "{shown:?} in\n{printed}");
    }
}

/// §3, §12, §22 (the reproduction of issue 20): a call of an event turn,
/// and of an auto turn, is refused `not_requested` and journaled as a
/// call; the journal then still reads, through the CLI (its Kind filter
/// included) and through the host, with no warning from the call itself.
#[test]
fn s3_s22_a_call_of_an_event_or_auto_turn_is_journaled_as_a_refused_call_and_the_journal_still_reads() {
    let p = Profile::new();
    let manifest = examples().join("exchange-rates/manifest.json");
    let imported = p.run(&["import", manifest.to_str().expect("utf-8"), "--yes", "--json"]);
    assert_eq!(imported.status.code(), Some(0), "{}{}", text(&imported.stdout), text(&imported.stderr));
    for source in ["event", "auto"] {
        let out = p.run(&["call", "fx__convert", "--source", source, "--json"]);
        assert_eq!(out.status.code(), Some(1), "refused");
        assert_eq!(json_of(&out)["reason"], "not_requested");
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("warning"), "the call's line reads back: {stderr}");
    }
    let refused = |who: &str| Line {
        who: who.into(),
        kind: "call".into(),
        outcome: "refused".into(),
        code: Some("not_requested".into()),
    };
    assert_eq!(through_cli(&p, 50), [refused("event"), refused("auto")]);
    let calls = json_of(&p.run(&["journal", "--kind", "call", "--json"]));
    assert_eq!(calls.as_array().map(Vec::len), Some(2), "both are calls: {calls}");
    let events = json_of(&p.run(&["journal", "--kind", "event", "--json"]));
    assert_eq!(events, serde_json::json!([]), "no event was sent");
    let printed = text(&p.run(&["journal"]).stdout);
    assert!(printed.contains("fx__convert  event  refused not_requested"), "{printed}");

    let host = Host::open(HostOptions {
        profile: Some(p.root()),
        key_store: Some(Arc::new(MemoryKeyStore::new())),
        door_port: None,
        ..Default::default()
    })
    .expect("host opens");
    let read: Vec<Expected> = through_host(&host, 50).iter().map(|l| read_back(l).1).collect();
    let not_requested = Expected {
        kind: JournalValue::Known(JournalKind::Call),
        outcome: JournalValue::Known(JournalOutcome::Refused),
        code: Some(JournalValue::Known(SpecCode::Refusal(Refusal::NotRequested))),
    };
    assert_eq!(read, [not_requested.clone(), not_requested]);
}

/// Issue 32, §3, §12, §14: where a confirmed call's request was redirected
/// (the journal's `ended_at`, a server's URL) is printed by `dcplugin
/// journal` on its line, safely (an escape the file holds is shown, not
/// obeyed), and `--json` has `ended_at` only on the lines that hold one
/// (the contract extended: every other line keeps its shape).
#[test]
fn s12_s14_issue32_journal_prints_where_a_confirmed_call_was_redirected() {
    let p = Profile::new();
    let line = |outcome: &str, code: Option<&str>| Line {
        who: "voice".into(),
        kind: "call".into(),
        outcome: outcome.into(),
        code: code.map(str::to_owned),
    };
    let lines = [line("failed", Some("BAD_URL")), line("done", None), line("done", None)];
    let host = profile_holding(&p, &lines);
    drop(host);
    let db = rusqlite::Connection::open(p.root().join("host.sqlite")).expect("db");
    let ended = [(1, "http://127.0.0.1:5001/send_all/[secret]"), (2, "http://127.0.0.1:5001/sent/1\u{1b}[8m")];
    for (id, url) in ended {
        db.execute(
            "UPDATE journal SET confirmation = 'confirmed', ended_at = ?2 WHERE id = ?1",
            rusqlite::params![id, url],
        )
        .expect("a confirmed call's line");
    }
    drop(db);
    let listed = json_of(&p.run(&["journal", "--json"]));
    let urls: Vec<Option<&str>> = listed.as_array().expect("an array").iter().map(|l| l["ended_at"].as_str()).collect();
    assert_eq!(urls, [None, Some(ended[1].1), Some(ended[0].1)], "{listed}");
    assert!(listed[0].get("ended_at").is_none(), "absent, not null, where none: {}", listed[0]);
    let out = p.run(&["journal"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    let shown: Vec<&str> = printed.lines().collect();
    assert!(!shown[0].contains("redirected"), "{printed}");
    assert!(
        shown[1].ends_with("done (confirmed) redirected to http://127.0.0.1:5001/sent/1\\u{1b}[8m  \"1\""),
        "{printed}"
    );
    assert!(
        shown[2].ends_with("failed BAD_URL (confirmed) redirected to http://127.0.0.1:5001/send_all/[secret]  \"0\""),
        "{printed}"
    );
    assert!(!printed.contains('\u{1b}'), "no escape reaches the terminal: {printed:?}");
}
