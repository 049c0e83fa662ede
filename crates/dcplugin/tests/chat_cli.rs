//! `dcplugin chat` end to end through the real binary (issue 22; §3, §12,
//! §13, §16): the scripted OpenAI-compatible server as the AI (no model
//! runs here), the local-server and pomodoro examples as the real plugin
//! servers (Python). Each test reads the `--json` lines and checks what the
//! AI server and the plugin's server received.

mod support;

use scripted_ai::{llamacpp, openai, pki::TestPki, Options, Received, Script, ScriptedAi, Step, MODEL};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdin, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::chat::{ai, my_tasks_in, pomodoro_with_an_event_on, profile_with_ai, PcServer, TASKS_TOKEN};
use support::{contains, examples, free_port, text, Profile, Running};

/// The AI service's key, given with `dcplugin ai key`.
const AI_KEY: &str = "sk-scripted-7c41e9d0b2";

/// `dcplugin chat --json ARGS` with `stdin`, its lines parsed.
fn chat(p: &Profile, args: &[&str], stdin: &str) -> (Output, Vec<Value>) {
    chat_with(p, args, stdin, &[])
}

/// [`chat`] with these environment variables.
fn chat_with(p: &Profile, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> (Output, Vec<Value>) {
    let port = free_port().to_string();
    let mut all = vec!["chat", "--json", "--door-port", &port];
    all.extend_from_slice(args);
    let out = p.run_with(&all, Some(stdin), env);
    let lines = lines_of(&out);
    (out, lines)
}

fn lines_of(out: &Output) -> Vec<Value> {
    text(&out.stdout)
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}{}", text(&out.stderr)))
        })
        .collect()
}

/// The lines of this type.
fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

/// The tool messages of a request: (call id, content).
fn tool_messages(request: &Received) -> Vec<(String, String)> {
    request.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| (m["tool_call_id"].as_str().unwrap_or("").to_owned(), m["content"].as_str().unwrap_or("").to_owned()))
        .collect()
}

/// No secret in the output, nor in the bodies the AI received; the AI key
/// only in its `Authorization` header.
fn no_secret(out: &Output, ai: &ScriptedAi, secrets: &[&str]) {
    for secret in secrets {
        assert!(!contains(&out.stdout, secret) && !contains(&out.stderr, secret), "{secret} printed");
        for request in ai.received() {
            assert!(!request.body.to_string().contains(secret), "{secret} sent to the AI: {}", request.body);
            for (name, value) in &request.headers {
                if value.contains(secret) {
                    assert_eq!((name.to_lowercase().as_str(), *secret), ("authorization", AI_KEY), "{name}");
                    assert_eq!(value, &format!("Bearer {AI_KEY}"));
                }
            }
        }
    }
}

#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s3_a_read_then_act_chain_of_two_steps_through_the_plugins_server() {
    let ai = ai(vec![
        openai::tool_calls(&[("call_a", "mypc__get_time", "{}")], 0),
        openai::tool_calls(&[("call_b", "mypc__add_note", r#"{"text":"tea at noon"}"#)], 3),
        openai::text(["Done: ", "noted."]),
    ]);
    let p = profile_with_ai(&ai);
    let key = p.run_with(&["ai", "key"], Some(AI_KEY), &[]);
    assert!(key.status.success(), "{}", text(&key.stderr));
    let pc = PcServer::start(&p, |_| {});
    let (out, lines) = chat(&p, &[], "note the time\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    assert_eq!(lines[0]["type"], "turn");
    assert_eq!((lines[0]["source"].as_str(), lines[0]["text"].as_str()), (Some("keyboard"), Some("note the time")));
    assert!(lines[0]["id"].as_str().is_some_and(|id| !id.is_empty()), "{}", lines[0]);
    let tools: Vec<_> = of_type(&lines, "tool")
        .iter()
        .map(|t| (t["step"].clone(), t["tool"].clone(), t["outcome"].clone(), t["code"].clone()))
        .collect();
    assert_eq!(
        tools,
        [
            (json!(1), json!("mypc__get_time"), json!("done"), Value::Null),
            (json!(2), json!("mypc__add_note"), json!("done"), Value::Null)
        ]
    );
    assert_eq!(of_type(&lines, "tool")[1]["args"], json!({"text": "tea at noon"}));
    // The pieces as the AI key's masker gives them (issue 32: it may hold a
    // tail that could begin the key back until the next piece): the
    // answer streams in two, whole once joined.
    let deltas: Vec<String> =
        of_type(&lines, "delta").iter().filter_map(|d| d["text"].as_str().map(str::to_owned)).collect();
    assert_eq!(deltas.len(), 2, "the answer streams: {deltas:?}");
    assert_eq!(deltas.concat(), "Done: noted.");
    assert_eq!(of_type(&lines, "reply"), [&json!({"type": "reply", "text": "Done: noted."})]);
    assert_eq!(lines.last(), Some(&json!({"type": "end", "steps": 2})));

    assert_eq!(pc.received(), ["GET /time", "POST /note"], "the plugin's server received both calls, in order");
    let notes = std::fs::read_to_string(pc.dir.join("notes.txt")).expect("notes");
    assert!(notes.contains("tea at noon"), "{notes}");

    let sent = ai.chats();
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0].body["stream"], json!(true));
    assert_eq!(sent[0].body["parallel_tool_calls"], json!(false), "an AI on the PC: one tool per step");
    assert_eq!(sent[0].tool_names(), ["mypc__get_time", "mypc__add_note"]);
    let results = tool_messages(&sent[2]);
    assert_eq!(results.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["call_a", "call_b"]);
    assert!(results[0].1.contains("\"time\"") && results[0].1.contains("trust=\"untrusted\""), "{results:?}");
    assert!(results[1].1.contains("\"saved\""), "{results:?}");
    assert_eq!(sent[0].header("authorization"), Some(format!("Bearer {AI_KEY}").as_str()));
    no_secret(&out, &ai, &[&pc.token, AI_KEY]);
}

#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s3_an_ai_on_the_pc_runs_one_tool_per_step_and_the_other_is_not_run() {
    let ai = ai(vec![
        openai::tool_calls(&[("c1", "mypc__get_time", "{}"), ("c2", "mypc__add_note", r#"{"text":"x"}"#)], 4),
        openai::text(["ok"]),
    ]);
    let p = profile_with_ai(&ai);
    let pc = PcServer::start(&p, |_| {});
    let (out, lines) = chat(&p, &[], "time and note\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tools = of_type(&lines, "tool");
    assert_eq!((tools[0]["tool"].as_str(), tools[0]["outcome"].as_str()), (Some("mypc__get_time"), Some("done")));
    assert_eq!(
        (tools[1]["step"].clone(), tools[1]["outcome"].clone(), tools[1]["reason"].clone()),
        (json!(1), json!("refused"), json!("one_action_per_step"))
    );
    assert_eq!(pc.received(), ["GET /time"], "only the first call reached the plugin's server");
    let sent = ai.chats();
    assert_eq!(sent[0].body["parallel_tool_calls"], json!(false));
    let results = tool_messages(&sent[1]);
    assert_eq!(results[1], ("c2".to_owned(), dcp_host::Refusal::OneActionPerStep.for_ai()));
    // Issue 33: the line keeps its keys, spelled and ordered as before, and
    // adds after them the family of its code, the plugin's name and the
    // action's hint (what the readable chat prints, no longer read again
    // per plugin).
    let keys: Vec<&str> = tools[1].as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    assert_eq!(
        keys,
        ["type", "step", "tool", "args", "outcome", "code", "reason", "sent", "for_ai", "family", "plugin", "hint"]
    );
    assert_eq!(
        (&tools[1]["family"], &tools[1]["plugin"], &tools[1]["hint"]),
        (&Value::Null, &json!("My PC (local server)"), &json!("write a note on your PC"))
    );
    assert_eq!(tools[0]["hint"], json!("tell the time on your PC"));
}

/// The terminal's chat (no --json): the answer streams, each call is one
/// line with the plugin, the action's hint and the outcome.
#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s3_the_terminal_chat_names_the_plugin_the_hint_and_the_outcome() {
    let ai = ai(vec![openai::tool_calls(&[("c1", "mypc__get_time", "{}")], 0), openai::text(["It is ", "noon."])]);
    let p = profile_with_ai(&ai);
    let _pc = PcServer::start(&p, |_| {});
    let out = p.run_with(&["chat", "--door-port", &free_port().to_string()], Some("what time is it\n"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "  [My PC (local server) (tell the time on your PC)] done\nIt is noon.\n");
}

/// Issue 33: a failed call reads in words from its code's family (the
/// engine's fact, not the code parsed back), the code beside them.
#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn issue_33_the_terminal_chat_words_a_failure_by_its_family() {
    let ai = ai(vec![openai::tool_calls(&[("c1", "mypc__get_time", "{}")], 0), openai::text(["Sorry."])]);
    let p = profile_with_ai(&ai);
    // Loaded, then stopped: nothing answers on its port.
    drop(PcServer::start(&p, |_| {}));
    let out = p.run_with(&["chat", "--door-port", &free_port().to_string()], Some("what time is it\n"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = "  [My PC (local server) (tell the time on your PC)] failed: the service could not be reached (NETWORK)";
    assert_eq!(text(&out.stdout), format!("{said}\nSorry.\n"));
}

#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s12_a_twitch_turn_is_offered_r0_tools_only() {
    let ai = ai(vec![openai::text(["hi chat"]), openai::text(["hello"])]);
    let p = profile_with_ai(&ai);
    let _pc = PcServer::start(&p, |_| {});
    let fx = examples().join("exchange-rates/manifest.json");
    let imported = p.run(&["import", fx.to_str().expect("utf-8"), "--yes", "--json"]);
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    let (out, lines) = chat(&p, &["--source", "twitch"], "!rates\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(lines[0]["source"], "twitch");
    let (out, _) = chat(&p, &[], "rates\n");
    assert_eq!(out.status.code(), Some(0));
    let sent = ai.chats();
    let twitch = sent[0].tool_names();
    assert!(!twitch.is_empty() && twitch.iter().all(|t| t.starts_with("fx__")), "R0 only: {twitch:?}");
    assert!(sent[1].tool_names().contains(&"mypc__add_note".to_owned()), "the keyboard's turn is offered more");
}

/// Stream mode (§12): live on Twitch, an action reading the player's data
/// is neither offered nor run until the plugin is allowed while live.
#[test]
fn s12_stream_mode_hides_what_reads_the_players_data_until_allowed_while_live() {
    let ai = ai(vec![
        openai::tool_calls(&[("l1", "mytasks__list_tasks", "{}")], 0),
        openai::text(["paused while live"]),
        openai::text(["allowed"]),
    ]);
    let p = profile_with_ai(&ai);
    my_tasks_in(&p, "allow");
    let (out, lines) = chat(&p, &["--live"], "my tasks?\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tool = of_type(&lines, "tool")[0];
    assert_eq!((tool["outcome"].as_str(), tool["reason"].as_str()), (Some("refused"), Some("stream_private")));
    assert!(tool_messages(&ai.chats()[1])[0].1.contains("stream_private"), "the AI is told why");
    assert!(p.run(&["twitch", "mytasks", "allow"]).status.success());
    let (out, _) = chat(&p, &["--live"], "my tasks?\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sent = ai.chats();
    assert!(!sent[0].tool_names().contains(&"mytasks__list_tasks".to_owned()), "live: {:?}", sent[0].tool_names());
    assert!(sent[0].tool_names().contains(&"mytasks__add_task".to_owned()), "only what reads data is hidden");
    assert!(sent[2].tool_names().contains(&"mytasks__list_tasks".to_owned()), "allowed while live: offered");
    no_secret(&out, &ai, &[TASKS_TOKEN]);
}

/// What an R3 turn left: the profile (its folder holds the plugin's
/// server), the AI, the server, chat's output and its lines.
type R3 = (Profile, ScriptedAi, PcServer, Output, Vec<Value>);

/// `mypc` with `add_note` made irreversible (R3), a turn asking for it;
/// `answer`, when given, typed once the question is asked.
fn r3_chat(confirm: &[&str], stdin: &str, answer: Option<&str>) -> R3 {
    let ai =
        ai(vec![openai::tool_calls(&[("n1", "mypc__add_note", r#"{"text":"pay rent"}"#)], 0), openai::text(["ok"])]);
    let p = profile_with_ai(&ai);
    let pc = PcServer::start_with_r3_note(&p);
    let (out, lines) = match answer {
        Some(answer) => chat_answering(&p, confirm, stdin, answer),
        None => chat(&p, confirm, stdin),
    };
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(ai.chats()[0].tool_names().contains(&"mypc__add_note".to_owned()), "R3 offered: someone answers");
    (p, ai, pc, out, lines)
}

fn confirm_line(lines: &[Value]) -> Value {
    let confirms = of_type(lines, "confirm");
    assert_eq!(confirms.len(), 1, "{lines:?}");
    let c = confirms[0].clone();
    assert_eq!((c["tool"].as_str(), c["method"].as_str()), (Some("mypc__add_note"), Some("POST")));
    // Issue 33: the question's line names the action as the player was shown it.
    assert_eq!(
        (c["plugin"].as_str(), c["hint"].as_str()),
        (Some("My PC (local server)"), Some("write a note on your PC"))
    );
    assert!(c["url"].as_str().is_some_and(|u| u.ends_with("/note")), "{c}");
    c
}

#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s12_r3_confirmed_in_advance_is_sent() {
    let (p, _ai, pc, _, lines) = r3_chat(&["--confirm", "yes"], "note: pay rent\n", None);
    assert_eq!(confirm_line(&lines)["decision"], "confirmed");
    assert_eq!(of_type(&lines, "tool")[0]["outcome"], "done");
    assert_eq!(pc.received(), ["POST /note"]);
    let journal = text(&p.run(&["journal"]).stdout);
    assert!(journal.contains("mypc__add_note  keyboard  done (confirmed)"), "the journal says it: {journal}");
}

#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s12_r3_declined_sends_nothing_and_the_ai_is_told() {
    for confirm in [&["--confirm", "no"][..], &[]] {
        let (p, ai, pc, _, lines) = r3_chat(confirm, "note: pay rent\n", None);
        assert_eq!(confirm_line(&lines)["decision"], "declined", "{confirm:?}");
        let tool = of_type(&lines, "tool")[0];
        assert_eq!((tool["outcome"].as_str(), tool["reason"].as_str()), (Some("refused"), Some("declined")));
        assert_eq!(pc.received(), Vec::<String>::new(), "nothing reaches the plugin's server on a no");
        assert!(!pc.dir.join("notes.txt").exists());
        assert!(tool_messages(&ai.chats()[1])[0].1.contains("declined"), "the AI is told");
        let journal = text(&p.run(&["journal"]).stdout);
        assert!(journal.contains("refused declined (declined)"), "the journal says it: {journal}");
    }
}

/// [`chat`], the answer written once the R3 question's prompt is on
/// standard error (issue 32: a line written before it is not its answer).
fn chat_answering(p: &Profile, args: &[&str], stdin: &str, answer: &str) -> (Output, Vec<Value>) {
    let port = free_port().to_string();
    let mut all = vec!["chat", "--json", "--door-port", &port];
    all.extend_from_slice(args);
    let mut child =
        p.command(&all).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("chat runs");
    let mut input = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let mut child = Running(child);
    let printed = std::thread::spawn(move || {
        let mut all = Vec::new();
        let _ = stdout.read_to_end(&mut all);
        all
    });
    let (send, pieces) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 1024];
        while let Ok(n @ 1..) = stderr.read(&mut buffer) {
            let _ = send.send(buffer[..n].to_vec());
        }
    });
    input.write_all(stdin.as_bytes()).expect("write stdin");
    let mut asked = Vec::new();
    while !contains(&asked, "Type yes to send it, anything else cancels: ") {
        let piece =
            pieces.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("never asked: {}", text(&asked)));
        asked.extend(piece);
    }
    input.write_all(answer.as_bytes()).expect("write the answer");
    drop(input);
    asked.extend(pieces.iter().flatten());
    let status = child.0.wait().expect("chat ends");
    let out = Output { status, stdout: printed.join().expect("stdout"), stderr: asked };
    let lines = lines_of(&out);
    (out, lines)
}

/// `--confirm ask`: the question shows exactly the request, the answer is
/// `yes` typed after it (issue 32).
#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s12_r3_asked_on_the_terminal_shows_the_request_and_a_yes_sends_it() {
    let (_p, _ai, pc, out, lines) = r3_chat(&["--confirm", "ask"], "note: pay rent\n", Some("yes\n"));
    assert_eq!(confirm_line(&lines)["decision"], "confirmed", "{}", text(&out.stderr));
    let asked = text(&out.stderr);
    assert!(asked.contains("write a note on your PC") && asked.contains("POST http://127.0.0.1:"), "{asked}");
    assert!(asked.contains(r#""text":"pay rent""#), "the body is shown: {asked}");
    assert_eq!(pc.received(), ["POST /note"]);
    assert_eq!(of_type(&lines, "turn").len(), 1, "the answer is no turn of its own");
}

/// `dcplugin chat --json ARGS` left running: its standard input, and its
/// lines as they come, read by a thread of their own.
struct LiveChat {
    input: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Standard error's pieces as they come.
    errors: mpsc::Receiver<Vec<u8>>,
    /// Standard error so far.
    said: Vec<u8>,
    child: Running,
}

impl LiveChat {
    fn start(p: &Profile, args: &[&str], env: &[(&str, &str)]) -> LiveChat {
        let mut all = vec!["chat", "--json"];
        all.extend_from_slice(args);
        let mut command = p.command(&all);
        command.envs(env.iter().copied()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("chat runs");
        let input = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let mut stderr = child.stderr.take().expect("stderr");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        let (send, errors) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 1024];
            while let Ok(n @ 1..) = stderr.read(&mut buffer) {
                let _ = send.send(buffer[..n].to_vec());
            }
        });
        LiveChat { input, lines, errors, said: Vec::new(), child: Running(child) }
    }

    /// Waits until standard error has said `needle` `times` times.
    fn wait_said(&mut self, needle: &str, times: usize) {
        while text(&self.said).matches(needle).count() < times {
            let piece = self.errors.recv_timeout(Duration::from_secs(30));
            self.said.extend(piece.unwrap_or_else(|_| panic!("never said {needle:?}: {}", text(&self.said))));
        }
    }

    fn type_in(&mut self, text: &str) {
        self.input.as_mut().expect("standard input open").write_all(text.as_bytes()).expect("write");
    }

    /// The lines up to the next `end` line, parsed.
    fn turn(&self) -> Vec<Value> {
        let mut lines: Vec<Value> = Vec::new();
        while !lines.last().is_some_and(|l| l["type"] == "end") {
            let line = self.lines.recv_timeout(Duration::from_secs(30)).expect("the turn's lines");
            lines.push(serde_json::from_str(&line).expect("JSON line"));
        }
        lines
    }

    /// Closes standard input: how chat ended, and what it said on standard error.
    fn close(mut self) -> (std::process::ExitStatus, String) {
        drop(self.input.take());
        let status = self.child.0.wait().expect("chat ends");
        self.said.extend(self.errors.iter().flatten());
        (status, text(&self.said))
    }
}

/// Posts one event to the door, retrying until it listens; the status.
fn post_event(port: u16, token: &str, event: &str, text: &str) -> u16 {
    let body = json!({"event": event, "text": text}).to_string();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            let request = format!(
                "POST /v1/events/pomodoro HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
                 Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(request.as_bytes()).expect("send");
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer);
            if let Some(status) = answer.split(' ').nth(1).and_then(|s| s.parse().ok()) {
                return status;
            }
        }
        assert!(Instant::now() < deadline, "the door never listened");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn s16_an_event_turn_while_idle_offers_no_tools() {
    let ai = ai(vec![openai::text(["Your focus session is over."])]);
    let p = profile_with_ai(&ai);
    pomodoro_with_an_event_on(&p);
    let token = text(&p.run(&["events", "pomodoro", "token"]).stdout).trim().to_owned();
    let door = free_port();
    let chat = LiveChat::start(&p, &["--door-port", &door.to_string()], &[]);
    assert_eq!(post_event(door, &token, "focus_done", "Session 2 of 4 done."), 202);
    let seen = chat.turn();
    assert_eq!((seen[0]["type"].as_str(), seen[0]["source"].as_str()), (Some("turn"), Some("event")));
    let event = of_type(&seen, "event");
    assert_eq!((event[0]["plugin"].as_str(), event[0]["event"].as_str()), (Some("pomodoro"), Some("focus_done")));
    // The player's view of the event: its title and the program's words (§16), beside what the AI read.
    assert_eq!(
        (event[0]["title"].as_str(), event[0]["details"].as_str()),
        (Some("Focus session finished"), Some("Session 2 of 4 done."))
    );
    let message = event[0]["text"].as_str().expect("text");
    assert!(message.starts_with("(Not a message from the user. The Pomodoro timer plugin reports:"), "{message}");
    assert!(message.contains("Session 2 of 4 done."), "{message}");
    assert_eq!(of_type(&seen, "reply")[0]["text"], "Your focus session is over.");
    let sent = ai.chats();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].body.get("tools").is_none(), "no tools in an event turn: {}", sent[0].body);
    let (status, stderr) = chat.close();
    assert_eq!(status.code(), Some(0), "standard input ended");
    assert!(!stderr.contains(&token) && !seen.iter().any(|l| l.to_string().contains(&token)), "no event token shown");
}

#[test]
fn s13_an_ai_not_listening_is_an_error_line_and_exit_1_with_once() {
    let p = Profile::new();
    let url = format!("http://127.0.0.1:{}/v1", free_port());
    assert!(p.run(&["ai", "--url", &url, "--model", MODEL]).status.success());
    let (out, lines) = chat(&p, &["--once", "hello"], "");
    assert_eq!(out.status.code(), Some(1));
    let errors = of_type(&lines, "error");
    assert_eq!(errors[0]["code"], "ai_not_listening", "{lines:?}");
    assert!(errors[0]["message"].as_str().is_some_and(|m| m.contains(&url)), "the URL is named: {}", errors[0]);
    assert_eq!(lines.last(), Some(&json!({"type": "end", "steps": 0})));
    // Each line of standard input: the error is printed, the chat goes on, exit 0.
    let (out, lines) = chat(&p, &[], "hello\nagain\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(of_type(&lines, "error").len(), 2);
    let human = p.run_with(&["chat", "--once", "hello"], None, &[]);
    assert_eq!(human.status.code(), Some(1));
    assert!(text(&human.stderr).contains("ai_not_listening"), "{}", text(&human.stderr));
}

/// Issue 34: a turn's failure is printed as `ai test` prints it, its code
/// then what fixes it on a `hint:` line; `--json`'s `error` line gains
/// `hint`, its other keys as before.
#[test]
fn issue34_a_turns_failure_says_its_code_and_its_hint_as_ai_test_does() {
    let p = Profile::new();
    let url = format!("http://127.0.0.1:{}/v1", free_port());
    assert!(p.run(&["ai", "--url", &url, "--model", MODEL]).status.success());
    let tested = text(&p.run(&["ai", "test"]).stderr);
    let human = p.run_with(&["chat", "--once", "hello"], None, &[]);
    assert_eq!(human.status.code(), Some(1));
    let said = text(&human.stderr);
    let lines: Vec<&str> = said.lines().collect();
    assert!(lines[0].starts_with(&format!("ai_not_listening: nothing answers at {url}")), "{said}");
    assert!(lines[1].starts_with("hint: start the AI server"), "{said}");
    assert_eq!(said, tested, "the same lines as ai test");
    let (_, json) = chat(&p, &["--once", "hello"], "");
    assert_eq!(lines_json_hint(&json).as_deref(), lines[1].strip_prefix("hint: "), "{json:?}");
}

#[test]
fn s13_no_ai_set_is_refused_with_what_to_run() {
    let p = Profile::new();
    let (out, lines) = chat(&p, &["--once", "hello"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["type"], "error");
    assert_eq!(lines[0]["code"], "ai_not_set");
    assert!(lines[0]["message"].as_str().is_some_and(|m| m.contains("ai --url")), "{}", lines[0]);
    let human = p.run_with(&["chat"], Some("hello\n"), &[]);
    assert_eq!(human.status.code(), Some(1));
    // Issue 34: the code, then the hint on its own line, as `ai test` prints them.
    let said = text(&human.stderr);
    let lines: Vec<&str> = said.lines().collect();
    assert!(lines[0].starts_with("ai_not_set: no AI is set"), "{said}");
    assert!(lines[1].starts_with("hint: ") && lines[1].contains(" ai --url URL --model NAME"), "{said}");
    assert_eq!(lines[0], text(&p.run(&["ai", "test"]).stderr).lines().next().unwrap_or_default(), "as ai test says it");
    assert_eq!(
        lines[1].strip_prefix("hint: "),
        lines_json_hint(&lines_of(&out)).as_deref(),
        "--json says the same hint"
    );
}

/// The `hint` of `--json`'s first `error` line.
fn lines_json_hint(lines: &[Value]) -> Option<String> {
    of_type(lines, "error").first().and_then(|e| e["hint"].as_str()).map(str::to_owned)
}

/// An online AI (§13): the scripted server over TLS, reached as
/// `https://ai.example.com/v1` through the network filter's test hooks (a
/// public address for the name, the connection rewritten to the server,
/// the test CA trusted), set as `p`'s AI with its key. The hooks' variables
/// are returned.
fn online_ai(p: &Profile, turns: Vec<Step>) -> (ScriptedAi, Vec<(&'static str, String)>) {
    let pki = TestPki::new(&["ai.example.com"]).expect("pki");
    let options = Options { tls: Some(pki.tls()), ..Options::default() };
    let ai = ScriptedAi::launch(Script::with_turns(turns), options).expect("scripted-ai starts");
    let ca = p.dir.path().join("ca.pem");
    std::fs::write(&ca, &pki.ca_pem).expect("ca");
    let set = p.run(&["ai", "--url", "https://ai.example.com/v1", "--model", MODEL]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    assert!(p.run_with(&["ai", "key"], Some(AI_KEY), &[]).status.success());
    let env = vec![
        ("DCPLUGIN_TEST_DNS", "ai.example.com=93.184.216.40".to_owned()),
        ("DCPLUGIN_TEST_CONNECT", format!("93.184.216.40:443={}", ai.addr())),
        ("DCPLUGIN_TEST_CA", ca.to_str().expect("path").to_owned()),
    ];
    (ai, env)
}

/// Online, several calls of one step all run (§3); a plugin kept on this
/// PC is neither offered to an online AI nor run for it, so its results
/// never reach it (§13).
#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s13_an_online_ai_runs_several_calls_per_step_and_a_plugin_kept_on_the_pc_is_absent() {
    let p = Profile::new();
    assert!(p.run(&["dev-mode", "on"]).status.success());
    let pc = PcServer::start(&p, |_| {});
    let (ai, env) = online_ai(
        &p,
        vec![
            openai::tool_calls(&[("p1", "mypc__get_time", "{}"), ("p2", "mypc__add_note", r#"{"text":"both"}"#)], 5),
            openai::text(["both done"]),
            openai::tool_calls(&[("k1", "mytasks__list_tasks", "{}")], 0),
            openai::text(["kept on the PC"]),
        ],
    );
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert!(p.run(&["cloud", "mypc", "allow"]).status.success());
    let (out, lines) = chat_with(&p, &[], "time and a note\n", &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tools: Vec<_> = of_type(&lines, "tool").iter().map(|t| (t["step"].clone(), t["outcome"].clone())).collect();
    assert_eq!(tools, [(json!(1), json!("done")), (json!(1), json!("done"))], "both calls of the step ran");
    let mut received = pc.received();
    received.sort();
    assert_eq!(received, ["GET /time", "POST /note"]);
    let sent = ai.chats();
    assert_ne!(sent[0].body.get("parallel_tool_calls"), Some(&json!(false)), "online: several at once");
    assert_eq!(sent[0].header("authorization"), Some(format!("Bearer {AI_KEY}").as_str()));
    no_secret(&out, &ai, &[&pc.token, AI_KEY]);

    // My tasks reads the player's data and is kept on this PC.
    my_tasks_in(&p, "local");
    let (out, lines) = chat_with(&p, &[], "my tasks?\n", &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sent = ai.chats();
    let tools = sent[2].tool_names();
    assert!(tools.iter().all(|t| !t.starts_with("mytasks__")), "kept on the PC: {tools:?}");
    assert!(tools.contains(&"mypc__get_time".to_owned()), "the plugin allowed online still is: {tools:?}");
    let tool = of_type(&lines, "tool")[0];
    assert_eq!((tool["outcome"].as_str(), tool["reason"].as_str()), (Some("refused"), Some("cloud_blocked")));
    assert!(tool_messages(&sent[3])[0].1.contains("cloud_blocked"), "the AI is told why");
    no_secret(&out, &ai, &[TASKS_TOKEN, AI_KEY]);
}

/// §3: up to 5 tool steps, then one last request with no tools for the answer.
#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s3_after_the_fifth_step_one_request_without_tools() {
    let mut turns: Vec<Step> = (1..=5)
        .map(|n| openai::tool_calls(&[("", "mypc__add_note", &format!(r#"{{"text":"note {n}"}}"#))], 4))
        .collect();
    turns.push(openai::text(["five notes"]));
    let ai = ai(turns);
    let p = profile_with_ai(&ai);
    let pc = PcServer::start(&p, |_| {});
    let (out, lines) = chat(&p, &[], "five notes\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let steps: Vec<_> = of_type(&lines, "tool").iter().map(|t| t["step"].clone()).collect();
    assert_eq!(steps, [json!(1), json!(2), json!(3), json!(4), json!(5)]);
    assert_eq!(lines.last(), Some(&json!({"type": "end", "steps": 5})));
    assert_eq!(pc.received(), vec!["POST /note"; 5]);
    let sent = ai.chats();
    assert_eq!(sent.len(), 6);
    assert!(sent[..5].iter().all(|r| !r.tool_names().is_empty()));
    assert!(sent[5].body.get("tools").is_none(), "no tools after the 5th step: {}", sent[5].body);
}

/// Each way the AI fails (§13, issue 22 "The AI connection") ends a
/// `--once` turn with its code and exit 1; nothing of it is kept.
#[test]
fn s13_each_error_of_the_ai_ends_a_once_turn_with_its_code() {
    let cases = [
        (openai::error(401, "Incorrect API key provided"), "ai_key_refused"),
        (scripted_ai::ollama::model_not_found(MODEL), "ai_model_unknown"),
        (scripted_ai::ollama::no_tools(MODEL), "ai_no_tools"),
        (Step::Redirect("https://elsewhere.example/v1".into()), "ai_redirect"),
    ];
    for (step, code) in cases {
        let ai = ai(vec![step]);
        let p = profile_with_ai(&ai);
        assert!(p.run_with(&["ai", "key"], Some(AI_KEY), &[]).status.success());
        let (out, lines) = chat(&p, &["--once", "hello"], "");
        assert_eq!(out.status.code(), Some(1), "{code}: {lines:?}");
        let errors = of_type(&lines, "error");
        assert_eq!(errors.len(), 1, "{code}: {lines:?}");
        assert_eq!(errors[0]["code"], code, "{lines:?}");
        assert!(of_type(&lines, "reply").is_empty(), "{code}: {lines:?}");
        assert_eq!(lines.last(), Some(&json!({"type": "end", "steps": 0})));
        assert_eq!(ai.chats().len(), 1, "{code}: one request");
        no_secret(&out, &ai, &[AI_KEY]);
    }
}

/// Issue 34: an answer the AI's server cut at its length limit is said to
/// be cut: a line after it on the terminal, `"cut": true` on the `reply`
/// line of `--json` (absent from a whole answer's line).
#[test]
fn issue_34_a_cut_answer_is_said_on_the_terminal_and_in_json() {
    let ai = ai(vec![openai::cut_text(["Once upon ", "a ti"]), openai::text(["Done."])]);
    let p = profile_with_ai(&ai);
    let out = p.run_with(&["chat", "--door-port", &free_port().to_string()], Some("tell me a story\n"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Once upon a ti\n(the answer was cut: it reached the length limit)\n");
    let (out, lines) = chat(&p, &["--once", "and then?"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(of_type(&lines, "reply"), [&json!({"type": "reply", "text": "Done."})]);
    let ai = self::ai(vec![openai::cut_text(["Once"])]);
    let p = profile_with_ai(&ai);
    let (_, lines) = chat(&p, &["--once", "a story"], "");
    assert_eq!(of_type(&lines, "reply"), [&json!({"type": "reply", "text": "Once", "cut": true})]);
    assert_eq!(ai.chats()[0].body["max_tokens"], json!(2048), "the default limit is asked for");
}

/// Issue 34: a tool line whose arguments were not JSON shows what the
/// model sent (`args_text`), `args` staying `null`.
#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn issue_34_the_tool_line_shows_arguments_that_are_not_json() {
    let ai = ai(vec![openai::tool_calls(&[("c1", "mypc__add_note", "text=tea")], 0), openai::text(["ok"])]);
    let p = profile_with_ai(&ai);
    let _pc = PcServer::start(&p, |_| {});
    let (out, lines) = chat(&p, &["--once", "note tea"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tool = of_type(&lines, "tool")[0];
    assert_eq!(
        (&tool["args"], &tool["args_text"], &tool["code"]),
        (&json!(null), &json!("text=tea"), &json!("INVALID_ARGUMENTS"))
    );
}

/// `mypc` with `add_note` made R3, the AI answering `turns`, and chat
/// asking R3 questions on standard input, each waiting `answer_ms` (the
/// test build's hook), once "note that I pay rent" was typed.
#[cfg(feature = "test-net")]
fn r3_asked_on_stdin(turns: Vec<Step>, answer_ms: &str) -> (Profile, ScriptedAi, PcServer, LiveChat) {
    let ai = ai(turns);
    let p = profile_with_ai(&ai);
    let pc = PcServer::start_with_r3_note(&p);
    let port = free_port().to_string();
    let args = ["--confirm", "ask", "--door-port", &port];
    let mut chat = LiveChat::start(&p, &args, &[("DCPLUGIN_TEST_ANSWER_MS", answer_ms)]);
    chat.type_in("note that I pay rent\n");
    (p, ai, pc, chat)
}

/// Issue 34: an R3 question nobody answered in time is said `expired`, in
/// the `confirm` line and as the tool line's reason (nobody declined), and
/// the AI is told so; nothing is sent. The `y` typed after it is answered
/// by chat and is no turn (the AI never gets it); the next line is a turn
/// again. The host's 60 s are shortened by a test build's hook
/// (`DCPLUGIN_TEST_ANSWER_MS`).
#[cfg(feature = "test-net")]
#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn issue34_an_expired_question_is_said_expired_and_a_late_y_is_not_sent_to_the_ai() {
    let (p, ai, pc, mut chat) = r3_asked_on_stdin(
        vec![
            openai::tool_calls(&[("n1", "mypc__add_note", r#"{"text":"pay rent"}"#)], 0),
            openai::text(["You did not answer."]),
            openai::text(["Hello."]),
        ],
        "300",
    );
    let mut lines = chat.turn();
    // Typed once the turn is over: a late answer, then a line for the AI.
    chat.type_in("y\nhello\n");
    lines.extend(chat.turn());
    let (status, stderr) = chat.close();
    assert_eq!(status.code(), Some(0));

    assert_eq!(confirm_line(&lines)["decision"], "expired");
    let tool = of_type(&lines, "tool")[0];
    assert_eq!(
        (tool["outcome"].as_str(), tool["code"].as_str(), tool["reason"].as_str()),
        (Some("refused"), Some("POLICY_DENIED"), Some("expired")),
        "{tool}"
    );
    assert_eq!(tool_messages(&ai.chats()[1])[0].1, tool["for_ai"].as_str().unwrap_or_default());
    assert!(tool["for_ai"].as_str().is_some_and(|t| t.starts_with("POLICY_DENIED (expired): ")), "{tool}");
    assert_eq!(pc.received(), Vec::<String>::new(), "nothing reached the plugin's server");
    let turns: Vec<&str> = of_type(&lines, "turn").iter().filter_map(|t| t["text"].as_str()).collect();
    assert_eq!(turns, ["note that I pay rent", "hello"], "the late y is no turn");
    let sent = ai.chats();
    assert_eq!(sent.len(), 3);
    assert!(!sent[2].body.to_string().contains(r#""content":"y""#), "the AI never got the y: {}", sent[2].body);
    assert!(stderr.contains("[dcplugin] No answer in time: the question expired, nothing was sent."), "{stderr}");
    assert!(stderr.contains("[dcplugin] That question had expired: nothing was sent"), "{stderr}");
    let journal = text(&p.run(&["journal"]).stdout);
    assert!(journal.contains("mypc__add_note  keyboard  refused expired (expired)"), "{journal}");
}

/// Issue 34: a new question supersedes an expired one. The AI asks again
/// in the same turn after the first question expired; the player answers
/// the second `yes` (sent); the next line, a `no`, is a turn of its own, no
/// late answer to the first.
#[cfg(feature = "test-net")]
#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn issue34_a_question_asked_after_an_expired_one_ends_the_late_answer_guard() {
    let (_p, _ai, pc, mut chat) = r3_asked_on_stdin(
        vec![
            openai::tool_calls(&[("n1", "mypc__add_note", r#"{"text":"pay rent"}"#)], 0),
            openai::tool_calls(&[("n2", "mypc__add_note", r#"{"text":"pay the rent"}"#)], 0),
            openai::text(["Noted."]),
            openai::text(["Fine."]),
        ],
        "2000",
    );
    chat.wait_said("No answer in time", 1);
    chat.wait_said("Type yes to send it, anything else cancels: ", 2);
    chat.type_in("yes\n");
    let mut lines = chat.turn();
    chat.type_in("no\n");
    lines.extend(chat.turn());
    let (status, stderr) = chat.close();
    assert_eq!(status.code(), Some(0));
    let decisions: Vec<&str> = of_type(&lines, "confirm").iter().filter_map(|c| c["decision"].as_str()).collect();
    assert_eq!(decisions, ["expired", "confirmed"], "{stderr}");
    assert_eq!(pc.received(), ["POST /note"], "the second question's yes sent it");
    let turns: Vec<&str> = of_type(&lines, "turn").iter().filter_map(|t| t["text"].as_str()).collect();
    assert_eq!(turns, ["note that I pay rent", "no"], "{stderr}");
    assert!(!stderr.contains("That question had expired"), "{stderr}");
}

/// The scripted AI on this PC, answering `turns`, whose `/props` says
/// whether its model can use tools, as llama.cpp's does.
fn llama_cpp(turns: Vec<Step>, supports_tools: bool) -> ScriptedAi {
    let options = Options { routes: vec![llamacpp::props(supports_tools)], ..Options::default() };
    ScriptedAi::launch(Script::with_turns(turns), options).expect("scripted-ai starts")
}

/// Issue 34: a model its server says cannot use tools is said so once in
/// the conversation, at its first turn offering plugins, before the
/// answer: `{"type":"no_tools","server":"llama_cpp"}`, and in words on the
/// terminal. A model that can says nothing; nor does an online AI, which
/// is not asked.
#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn issue34_a_model_that_cannot_use_tools_is_said_once_in_the_conversation() {
    let ai = llama_cpp(vec![openai::text(["Hi."]), openai::text(["Hi again."])], false);
    let p = profile_with_ai(&ai);
    let _pc = PcServer::start(&p, |_| {});
    let (out, lines) = chat(&p, &[], "hello\nagain\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let types: Vec<&str> = lines.iter().filter_map(|l| l["type"].as_str()).filter(|t| *t != "delta").collect();
    assert_eq!(types, ["turn", "no_tools", "reply", "end", "turn", "reply", "end"], "{lines:?}");
    assert_eq!(of_type(&lines, "no_tools"), [&json!({"type": "no_tools", "server": "llama_cpp"})]);
    let asked = ai.received().iter().filter(|r| r.path == "/props").count();
    assert_eq!(asked, 1, "the server is asked once in the conversation");

    let out = p.run_with(&["chat", "--door-port", &free_port().to_string()], Some("hello\n"), &[]);
    let said = text(&out.stdout);
    assert!(said.contains("\n  (llama.cpp uses tools only when the model's chat template supports them"), "{said}");
    assert!(
        said.contains(
            "  (llama.cpp says this model cannot use tools: your plugins will not be used; choose another model, e.g. "
        ),
        "{said}"
    );

    let ai = llama_cpp(vec![openai::text(["Hi."])], true);
    let p = profile_with_ai(&ai);
    let _pc = PcServer::start(&p, |_| {});
    let (_, lines) = chat(&p, &["--once", "hello"], "");
    assert!(of_type(&lines, "no_tools").is_empty(), "{lines:?}");
    assert!(ai.received().iter().any(|r| r.path == "/props"), "asked");

    let p = Profile::new();
    assert!(p.run(&["dev-mode", "on"]).status.success());
    let _pc = PcServer::start(&p, |_| {});
    let (ai, env) = online_ai(&p, vec![openai::text(["Hi."])]);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert!(p.run(&["cloud", "mypc", "allow"]).status.success());
    let (_, lines) = chat_with(&p, &["--once", "hello"], "", &env);
    assert!(of_type(&lines, "no_tools").is_empty(), "{lines:?}");
    assert!(ai.chats()[0].tool_names().contains(&"mypc__get_time".to_owned()), "plugins offered: {lines:?}");
    assert!(ai.received().iter().all(|r| r.path != "/props"), "an online AI is not asked");
}
