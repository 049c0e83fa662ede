//! The player's Twitch chat through the real binary (issue 36, §12):
//! `dcplugin twitch-chat connect|disconnect|status` and `dcplugin chat
//! --twitch CHANNEL`, against the Twitch-like IRC server on loopback
//! (`twitch_like`, TLS for Twitch's real name and port through the
//! `test-net` hooks), the scripted AI, and an R0 plugin whose HTTPS server
//! runs on loopback too (the network filter's test server, reached through
//! the same hooks: one CA file holds both test CAs).
//!
//! Built only with `--features dcplugin/test-net` (see Cargo.toml).

#[path = "../../dcp-net/tests/common/mod.rs"]
mod common;
mod support;

use common::{https_server, pki, Reply, Server};
use scripted_ai::openai;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use support::chat::{ai, my_tasks_in, profile_with_ai};
use support::{free_port, json_of, text, Profile, Running};
use twitch_like::TwitchLike;

/// The channel the tests connect.
const CHANNEL: &str = "streamer";

/// The R0 plugin's public address, sent to its loopback server.
const RATES_IP: &str = "93.184.216.50";

/// The loopback servers and the test hooks that reach them.
struct Net {
    twitch: TwitchLike,
    rates: Server,
    runtime: tokio::runtime::Runtime,
    env: Vec<(String, String)>,
    _ca: tempfile::TempDir,
}

impl Net {
    fn start() -> Net {
        let twitch = TwitchLike::launch(None).expect("twitch-like starts");
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        let rates = runtime.block_on(https_server(|_| Reply::json(r#"{"amount":20,"rates":{"JPY":3512.4}}"#)));
        let ca = tempfile::tempdir().expect("temp dir");
        let ca_file = ca.path().join("both.pem");
        std::fs::write(&ca_file, format!("{}\n{}", twitch.ca_pem(), pki().ca_pem)).expect("CA file");
        let mut env = twitch.env();
        for (name, value) in &mut env {
            match name.as_str() {
                "DCPLUGIN_TEST_DNS" => value.push_str(&format!(",api.example.com={RATES_IP}")),
                "DCPLUGIN_TEST_CONNECT" => value.push_str(&format!(",{RATES_IP}:443={}", rates.addr)),
                _ => *value = ca_file.display().to_string(),
            }
        }
        Net { twitch, rates, runtime, env, _ca: ca }
    }

    fn vars(&self) -> Vec<(&str, &str)> {
        self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
    }

    /// Waits until `#channel` was joined `n` times.
    fn joined(&self, n: usize) {
        self.runtime.block_on(self.twitch.joined_times(CHANNEL, n));
    }
}

/// An R0 action (a GET of public data on the web): the only kind the chat may use.
fn rates_manifest() -> Value {
    json!({
        "name": "rates", "version": "1.0.0", "display_name": "Public rates",
        "_meta": { "com.desktopaicompanion": {
            "apiVersion": 1, "kind": "declarative", "slug": "rates",
            "permissions": { "network": { "hosts": ["api.example.com"] } },
            "tools": { "yen": {
                "description": "Convert 20 euros to yen with today's public rate.",
                "hint": { "en": "convert euros to yen" },
                "inputSchema": { "type": "object", "properties": {} },
                "request": { "url": "https://api.example.com/rates" }
            } }
        } }
    })
}

/// `p` with the R0 plugin and my-tasks (an R1 action, list_tasks) installed.
fn with_plugins(p: &Profile) {
    let path = p.dir.path().join("rates.json");
    std::fs::write(&path, rates_manifest().to_string()).expect("manifest");
    let out = p.run(&["import", path.to_str().expect("utf-8"), "--yes", "--json"]);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    my_tasks_in(p, "allow");
}

fn twitch_chat(p: &Profile, net: &Net, args: &[&str]) -> Output {
    let mut all = vec!["twitch-chat"];
    all.extend_from_slice(args);
    p.run_with(&all, None, &net.vars())
}

/// Every key of the status object, in order: the public contract.
fn assert_status_shape(status: &Value) {
    let keys: Vec<&str> = status.as_object().expect("an object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "channel",
            "state",
            "code",
            "retry_in_secs",
            "stream_mode",
            "settings",
            "waiting",
            "said",
            "dropped",
            "host",
            "port"
        ],
        "{status}"
    );
    let settings: Vec<&str> = status["settings"].as_object().expect("settings").keys().map(String::as_str).collect();
    assert_eq!(settings, ["channel", "prefix", "paused", "ignored"], "{status}");
    let dropped: Vec<&str> = status["dropped"].as_object().expect("dropped").keys().map(String::as_str).collect();
    assert_eq!(
        dropped,
        [
            "paused",
            "ignored",
            "empty",
            "cooldown",
            "queue_full",
            "waited_too_long",
            "deleted",
            "viewer_cleared",
            "chat_cleared"
        ],
        "{status}"
    );
    assert_eq!((status["host"].as_str(), status["port"].as_u64()), (Some("irc.chat.twitch.tv"), Some(6697)));
}

/// connect saves and checks (connected, exit 0), status says the saved
/// settings and checks again, disconnect forgets; --json is the status
/// object, every key pinned.
#[test]
fn twitch_chat_connect_status_disconnect() {
    let net = Net::start();
    let p = Profile::new();

    let none = twitch_chat(&p, &net, &["status", "--json"]);
    assert_eq!(none.status.code(), Some(0), "{}", text(&none.stderr));
    let status = json_of(&none);
    assert_status_shape(&status);
    assert_eq!((status["state"].as_str(), &status["settings"]["channel"]), (Some("off"), &Value::Null));
    assert_eq!((status["settings"]["prefix"].as_str(), status["stream_mode"].as_bool()), (Some("!ask"), Some(false)));
    assert_eq!(net.twitch.connections(), 0, "nothing saved: nothing connects");

    let connected = twitch_chat(&p, &net, &["connect", "#Streamer", "--json"]);
    assert_eq!(connected.status.code(), Some(0), "{}", text(&connected.stderr));
    let status = json_of(&connected);
    assert_status_shape(&status);
    assert_eq!(
        (status["state"].as_str(), status["channel"].as_str(), status["settings"]["channel"].as_str()),
        (Some("connected"), Some(CHANNEL), Some(CHANNEL))
    );
    assert_eq!(status["stream_mode"], json!(true));
    net.joined(1);

    let checked = twitch_chat(&p, &net, &["status", "--json"]);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
    let status = json_of(&checked);
    assert_status_shape(&status);
    assert_eq!((status["state"].as_str(), status["settings"]["channel"].as_str()), (Some("connected"), Some(CHANNEL)));
    net.joined(2);

    let readable = twitch_chat(&p, &net, &["status"]);
    assert_eq!(readable.status.code(), Some(0), "{}", text(&readable.stderr));
    let said = text(&readable.stdout);
    assert!(said.contains("channel: #streamer (saved)\nstate: connected to #streamer\n"), "{said}");
    assert!(said.contains("chat turns: messages starting with !ask\n"), "{said}");
    assert!(said.contains("connects to: irc.chat.twitch.tv:6697\n"), "{said}");

    let gone = twitch_chat(&p, &net, &["disconnect", "--json"]);
    assert_eq!(gone.status.code(), Some(0), "{}", text(&gone.stderr));
    let status = json_of(&gone);
    assert_status_shape(&status);
    assert_eq!((status["state"].as_str(), &status["settings"]["channel"]), (Some("off"), &Value::Null));
    let joins = net.twitch.joins();
    let after = json_of(&twitch_chat(&p, &net, &["status", "--json"]));
    assert_eq!((after["state"].as_str(), &after["settings"]["channel"]), (Some("off"), &Value::Null));
    assert_eq!(net.twitch.joins(), joins, "forgotten: status no longer connects");
}

/// A name that is no Twitch login is refused (bad_input, exit 1) before
/// anything is saved; a chat that cannot be reached is said in the
/// player's words with its code (exit 1), the channel still saved.
#[test]
fn twitch_chat_refusals_and_an_unreachable_chat() {
    let net = Net::start();
    let p = Profile::new();
    let bad = twitch_chat(&p, &net, &["connect", "not a login!", "--json"]);
    assert_eq!(bad.status.code(), Some(1));
    let refused = json_of(&bad);
    assert_eq!((refused["ok"].as_bool(), refused["code"].as_str()), (Some(false), Some("bad_input")), "{refused}");
    let readable = twitch_chat(&p, &net, &["connect", "not a login!"]);
    assert_eq!(readable.status.code(), Some(1));
    assert!(text(&readable.stderr).starts_with("bad_input: "), "{}", text(&readable.stderr));
    let status = json_of(&twitch_chat(&p, &net, &["status", "--json"]));
    assert_eq!(status["settings"]["channel"], Value::Null, "nothing saved");

    // Twitch's address answers nothing: the connection is refused at once.
    let closed = format!("93.184.216.34:6697=127.0.0.1:{}", free_port());
    let mut env = net.vars();
    env.retain(|(k, _)| *k != "DCPLUGIN_TEST_CONNECT");
    env.push(("DCPLUGIN_TEST_CONNECT", &closed));
    let down = p.run_with(&["twitch-chat", "connect", CHANNEL, "--json"], None, &env);
    assert_eq!(down.status.code(), Some(1), "{}", text(&down.stderr));
    let status = json_of(&down);
    assert_eq!(
        (status["state"].as_str(), status["code"].as_str()),
        (Some("reconnecting"), Some("network")),
        "{status}"
    );
    assert_eq!(status["settings"]["channel"].as_str(), Some(CHANNEL), "saved all the same");
    let readable = p.run_with(&["twitch-chat", "status"], None, &env);
    assert_eq!(readable.status.code(), Some(1));
    assert!(text(&readable.stderr).contains("could not reach Twitch's chat (network)"), "{}", text(&readable.stderr));
}

/// `chat --twitch` as a script reads it: stdout's lines, and stdin kept open.
struct TwitchChat {
    input: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    child: Running,
}

impl TwitchChat {
    fn start(p: &Profile, net: &Net, json: bool) -> TwitchChat {
        let door = free_port().to_string();
        let mut args = vec!["chat", "--door-port", &door, "--twitch", CHANNEL];
        if json {
            args.push("--json");
        }
        let mut command = p.command(&args);
        command.envs(net.vars()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = support::spawn(&mut command);
        let input = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        TwitchChat { input, lines, child: Running(child) }
    }

    fn line(&self) -> String {
        self.lines.recv_timeout(Duration::from_secs(40)).expect("chat said a line")
    }

    /// The lines up to the next `end` line, parsed.
    fn turn(&self) -> Vec<Value> {
        let mut lines: Vec<Value> = Vec::new();
        while !lines.last().is_some_and(|l| l["type"] == "end") {
            lines.push(serde_json::from_str(&self.line()).expect("a JSON line"));
        }
        lines
    }

    fn type_in(&mut self, line: &str) {
        self.input.as_mut().expect("stdin").write_all(line.as_bytes()).expect("typed");
    }

    /// Ends standard input: chat's exit code, and what it said after.
    fn close(mut self) -> (Option<i32>, Vec<String>) {
        drop(self.input.take());
        let code = self.child.0.wait().expect("chat ends").code();
        (code, self.lines.try_iter().collect())
    }
}

fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

/// A viewer's `!ask` while chat --twitch --json runs: a `viewer` line, the
/// turn (source twitch, the viewer's words), the R0 action offered alone
/// and run once (its server reached once), the R1 action refused
/// (twitch_level), a second call refused (twitch_quota); a message a
/// moderator deleted while it waited is never said, the next one is, its
/// control and bidi characters cleaned; the journal says who = twitch; the
/// player's own turn is live (stream mode) while the chat is connected.
#[test]
fn chat_twitch_says_a_viewers_turn_with_r0_once() {
    let ai = ai(vec![
        openai::tool_calls(&[("v1", "rates__yen", "{}")], 0),
        openai::tool_calls(&[("v2", "mytasks__list_tasks", "{}")], 0),
        // Not the same call again (the engine refuses a repeat itself): the chat's quota refuses it.
        openai::tool_calls(&[("v3", "rates__yen", r#"{"again":true}"#)], 0),
        openai::text(["About 3,512 yen, chat!"]),
        openai::text(["Hello again."]),
        openai::tool_calls(&[("k1", "mytasks__list_tasks", "{}")], 0),
        openai::text(["Not while live."]),
    ]);
    let p = profile_with_ai(&ai);
    with_plugins(&p);
    let net = Net::start();
    let mut chat = TwitchChat::start(&p, &net, true);
    net.joined(1);

    net.twitch.say(CHANNEL, "kappa_fan", "Kappa_Fan", "!ask what's 20 euros in yen?");
    let first = chat.turn();
    assert_eq!(first[0], json!({"type": "viewer", "name": "Kappa_Fan", "text": "what's 20 euros in yen?"}));
    assert_eq!((first[1]["type"].as_str(), first[1]["source"].as_str()), (Some("turn"), Some("twitch")));
    assert_eq!(first[1]["text"], "what's 20 euros in yen?");
    let tools: Vec<(&str, &str, &str)> = of_type(&first, "tool")
        .iter()
        .map(|t| {
            (t["tool"].as_str().unwrap_or(""), t["outcome"].as_str().unwrap_or(""), t["reason"].as_str().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        tools,
        [
            ("rates__yen", "done", ""),
            ("mytasks__list_tasks", "refused", "twitch_level"),
            ("rates__yen", "refused", "twitch_quota")
        ]
    );
    assert_eq!(net.rates.hits(), 1, "the R0 server was reached once");
    assert_eq!(of_type(&first, "reply")[0]["text"], "About 3,512 yen, chat!");
    let sent = ai.chats();
    assert_eq!(sent[0].tool_names(), ["rates__yen"], "the chat is offered R0 only");
    let framed = sent[0].body["messages"][1]["content"].as_str().unwrap_or_default();
    assert!(framed.contains("a viewer of the user's Twitch chat, \"Kappa_Fan\", wrote: \"what's 20 euros in yen?\""));
    assert!(!framed.contains("!ask"), "the prefix is not the viewer's words: {framed}");

    // One waits for the chat's gap between turns; a moderator deletes it; the next one is said.
    let deleted = net.twitch.say(CHANNEL, "troll", "Troll", "!ask repeat after me: deleted words");
    net.twitch.delete(CHANNEL, &deleted);
    net.twitch.say(CHANNEL, "bidi_fan", "Bidi_Fan", "!ask hi\u{202e}dlrow\u{200b} \u{7}there");
    let second = chat.turn();
    assert_eq!(second[0]["type"], "viewer", "{second:?}");
    assert_eq!(second[0]["name"], "Bidi_Fan");
    let words = second[0]["text"].as_str().unwrap_or_default();
    assert!(words.starts_with("hi") && words.ends_with("there"), "{words}");
    assert!(!words.contains(['\u{202e}', '\u{200b}', '\u{7}']), "cleaned: {words:?}");

    // The player's own turn while the chat is connected: stream mode pauses R1.
    chat.type_in("my tasks?\n");
    let mine = chat.turn();
    assert_eq!(mine[0]["source"], "keyboard");
    assert_eq!(of_type(&mine, "tool")[0]["reason"], "stream_private", "{mine:?}");

    let (code, rest) = chat.close();
    assert_eq!(code, Some(0));
    let all: Vec<String> = first.iter().chain(&second).chain(&mine).map(Value::to_string).chain(rest).collect();
    assert!(!all.iter().any(|l| l.contains("deleted words")), "a deleted message is never said: {all:?}");
    assert!(!ai.received().iter().any(|r| r.body.to_string().contains("deleted words")), "nor sent to the AI");

    let journal = json_of(&p.run(&["journal", "--json", "--plugin", "rates"]));
    let entries = journal.as_array().cloned().unwrap_or_default();
    let whos: Vec<&str> = entries.iter().map(|e| e["who"].as_str().unwrap_or("")).collect();
    assert_eq!(whos, ["twitch", "twitch"], "{journal}");
}

/// The readable chat: `NAME (Twitch chat): TEXT`, then the answer, a
/// viewer's hidden and control characters never printed; a name that is
/// no Twitch login is refused before chat starts.
#[test]
fn chat_twitch_prints_a_viewers_words_cleaned() {
    let ai = ai(vec![openai::text(["Hi there!"])]);
    let p = profile_with_ai(&ai);
    let net = Net::start();
    let chat = TwitchChat::start(&p, &net, false);
    net.joined(1);
    net.twitch.say(CHANNEL, "kappa_fan", "Kappa_Fan", "!ask hi\u{202e}\u{1b}[2J you\u{2066}");
    let said = chat.line();
    assert!(said.starts_with("Kappa_Fan (Twitch chat): hi"), "{said:?}");
    assert!(!said.contains(['\u{202e}', '\u{1b}', '\u{2066}']), "{said:?}");
    assert_eq!(chat.line(), "Hi there!");
    let (code, _) = chat.close();
    assert_eq!(code, Some(0));

    let refused = p.run_with(&["chat", "--json", "--twitch", "no such login!"], Some(""), &net.vars());
    assert_eq!(refused.status.code(), Some(1));
    let line = json_of(&refused);
    assert_eq!((line["type"].as_str(), line["code"].as_str()), (Some("error"), Some("bad_input")), "{line}");
}

/// A line the player typed and a chat turn both wait while the companion
/// answers: the player's goes first, then the viewer's.
#[test]
fn chat_twitch_takes_the_players_line_before_a_waiting_chat_turn() {
    let ai =
        ai(vec![openai::text(["Hold ", "on"]).pause_after(2), openai::text(["Yours."]), openai::text(["Chat's."])]);
    let p = profile_with_ai(&ai);
    let net = Net::start();
    let mut chat = TwitchChat::start(&p, &net, true);
    net.joined(1);
    chat.type_in("first\n");
    let (turn, delta) = (chat.line(), chat.line());
    assert!(turn.contains(r#""type":"turn""#) && delta.contains(r#""type":"delta""#), "the answer started: {delta}");
    // While it waits, a viewer asks (the companion answers: the chat turn waits), then the player types.
    net.twitch.say(CHANNEL, "kappa_fan", "Kappa_Fan", "!ask me next");
    chat.type_in("second\n");
    ai.release();
    assert_eq!(of_type(&chat.turn(), "reply")[0]["text"], "Hold on", "the first turn ends");
    let next = chat.turn();
    assert_eq!((next[0]["type"].as_str(), next[0]["source"].as_str()), (Some("turn"), Some("keyboard")), "{next:?}");
    assert_eq!(next[0]["text"], "second");
    let after = chat.turn();
    assert_eq!(after[0]["type"], "viewer", "{after:?}");
    assert_eq!(of_type(&after, "reply")[0]["text"], "Chat's.");
    assert_eq!(chat.close().0, Some(0));
}

/// On a terminal, chat says the chat's connection as it changes: connected,
/// then reconnecting and why when the connection drops, then connected again.
#[cfg(unix)]
#[test]
fn chat_twitch_on_a_terminal_says_the_connection_as_it_changes() {
    let ai = ai(vec![openai::text(["Hi!"])]);
    let p = profile_with_ai(&ai);
    let net = Net::start();
    let mut command = p.command(&["chat", "--door-port", &free_port().to_string(), "--twitch", CHANNEL]);
    command.envs(net.vars());
    let mut chat = support::pty::Pty::spawn(command);
    chat.wait_for("twitch chat: connected to #streamer\r\n");
    net.twitch.drop_all();
    chat.wait_for("twitch chat: reconnecting in ");
    // Then the reason, its code last, and connected again.
    chat.wait_for(")\r\ntwitch chat: connected to #streamer\r\n");
    chat.type_in("\u{4}");
    assert!(chat.wait_exit().success(), "{}", chat.text());
    assert_eq!(chat.text().matches("twitch chat: connected to #streamer\r\n").count(), 2, "{}", chat.text());
}
