//! Ctrl-C in `dcplugin chat` (issue 33): it stops the running turn, whose
//! words so far stay, marked `(stopped)` (`--json`: the `end` line says
//! `"stopped":true`); chat goes on with the next line; a Ctrl-C while no
//! turn runs quits, exit 0. An R3 question open in the stopped turn is
//! withdrawn, and said: nothing is sent. The scripted AI streams a first
//! word then holds its stream open (`Chunk::Pause`, never released), as a
//! model still writing.
#![cfg(target_os = "linux")]

mod support;

use scripted_ai::{openai, Chunk, Step};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;
use support::chat::{ai, profile_with_ai, PcServer};
use support::pty::Pty;
use support::{free_port, text, Running};

/// The interrupt character: the terminal sends SIGINT to the program.
const CTRL_C: &str = "\u{3}";

/// "Once upon", then the stream is held open.
fn rambling() -> Step {
    let mut chunks = openai::text_chunks(["Once upon"]);
    chunks.push(Chunk::Pause);
    chunks.extend(openai::text_chunks([" a time"]).into_iter().skip(1));
    chunks.push(openai::finish("stop"));
    Step::Stream(chunks)
}

#[test]
fn issue33_ctrl_c_stops_the_turn_then_the_next_line_is_answered_and_ctrl_c_while_idle_quits() {
    let ai = ai(vec![rambling(), openai::text(["Hello again."])]);
    let p = profile_with_ai(&ai);
    let mut chat = Pty::spawn_in_session(p.command(&["chat", "--door-port", &free_port().to_string()]));
    chat.type_in("tell me a story\n");
    chat.wait_for("Once upon");
    chat.type_in(CTRL_C);
    // The words so far stay, "(stopped)" ends their line (after the terminal's echo, "^C").
    chat.wait_for("Once upon^C (stopped)\r\n");
    chat.type_in("hello\n");
    chat.wait_for("Hello again.\r\n");
    chat.type_in(CTRL_C);
    let status = chat.wait_exit();
    assert_eq!(status.code(), Some(0), "{}", chat.text());
    let printed = chat.text();
    assert!(!printed.contains("a time"), "nothing after the stop: {printed}");
    assert!(!printed.contains("error"), "a stop is no error: {printed}");
}

/// The R3 question of the stopped turn is withdrawn: said, nothing sent,
/// and the next line is a turn again, not the question's answer.
#[test]
fn issue33_ctrl_c_withdraws_the_open_r3_question_and_sends_nothing() {
    let call = openai::tool_calls(&[("n1", "mypc__add_note", r#"{"text":"pay rent"}"#)], 0);
    let ai = ai(vec![call, openai::text(["ok"])]);
    let p = profile_with_ai(&ai);
    let pc = PcServer::start_with_r3_note(&p);
    let mut chat = Pty::spawn_in_session(p.command(&["chat", "--door-port", &free_port().to_string()]));
    chat.type_in("note that I pay rent\n");
    chat.wait_for("[dcplugin] Type yes to send it, anything else cancels: ");
    chat.type_in(CTRL_C);
    chat.wait_for("[dcplugin] Question withdrawn: nothing was sent.\r\n");
    chat.wait_for("(stopped)\r\n");
    chat.type_in("yes\n");
    chat.wait_for("ok\r\n");
    chat.type_in("\u{4}");
    let status = chat.wait_exit();
    assert_eq!(status.code(), Some(0), "{}", chat.text());
    assert_eq!(pc.received(), Vec::<String>::new(), "nothing reached the plugin's server");
    let journal = text(&p.run(&["journal"]).stdout);
    assert!(!journal.contains("mypc__add_note  keyboard  done"), "{journal}");
}

/// `--json` (standard input is a pipe, so the test sends SIGINT itself):
/// the stopped turn's last lines are `error` `stopped` and `end` with
/// `"stopped":true`; the next turn's `end` is as before issue 33.
#[test]
fn issue33_sigint_ends_the_json_turn_with_stopped_true_and_chat_goes_on() {
    let ai = ai(vec![rambling(), openai::text(["Hello again."])]);
    let p = profile_with_ai(&ai);
    let mut command = p.command(&["chat", "--json", "--door-port", &free_port().to_string()]);
    let child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("runs");
    let mut chat = Running(child);
    let mut stdin = chat.0.stdin.take().expect("stdin");
    let lines = lines_of(chat.0.stdout.take().expect("stdout"));
    writeln!(stdin, "tell me a story").expect("write");
    until(&lines, |l| l["type"] == "delta" && l["text"] == "Once upon");
    let pid = rustix::process::Pid::from_child(&chat.0);
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
    let error = until(&lines, |l| l["type"] == "error");
    assert_eq!(error["code"], "stopped", "{error}");
    let end = until(&lines, |l| l["type"] == "end");
    assert_eq!(end, json!({"type": "end", "steps": 0, "stopped": true}));
    writeln!(stdin, "hello").expect("write");
    let reply = until(&lines, |l| l["type"] == "reply");
    assert_eq!(reply["text"], "Hello again.");
    assert_eq!(until(&lines, |l| l["type"] == "end"), json!({"type": "end", "steps": 0}));
    drop(stdin);
    let status = chat.0.wait().expect("ends");
    assert_eq!(status.code(), Some(0));
}

/// The program's standard output, line by line as JSON, read by a thread.
fn lines_of(stdout: impl std::io::Read + Send + 'static) -> mpsc::Receiver<Value> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if send.send(value).is_err() {
                break;
            }
        }
    });
    receive
}

/// The first line from now on that `wanted` accepts; panics after 20 s.
fn until(lines: &mpsc::Receiver<Value>, wanted: impl Fn(&Value) -> bool) -> Value {
    loop {
        let line = lines.recv_timeout(Duration::from_secs(20)).expect("the line came");
        if wanted(&line) {
            return line;
        }
    }
}
