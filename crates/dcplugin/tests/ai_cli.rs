//! `dcplugin ai`, `ai key`, `ai test` (issue 22, §13): where the AI runs is
//! decided by its URL; the key is read from standard input, never printed,
//! sent only as `Authorization: Bearer …` to the URL's host and forgotten
//! when the URL moves to another host; each way reaching the AI fails has
//! its code. The AI is the scripted OpenAI-compatible server on loopback
//! (no model runs here); an online AI is reached over TLS through the
//! network filter's test hooks.

mod support;

use scripted_ai::{llamacpp, ollama, openai, pki::TestPki, ModelsReply, Options, Route, Script, ScriptedAi, MODEL};
use serde_json::Value;
use std::process::Output;
use support::{contains, json_of, text, Profile};

const KEY: &str = "sk-test-5e3b1c9d8f7a6e4d";

fn json(out: &Output) -> Value {
    json_of(out)
}

fn models(list: &[&str]) -> ScriptedAi {
    let script = Script { models: ModelsReply::List(list.iter().map(|m| (*m).to_owned()).collect()), turns: vec![] };
    ScriptedAi::launch(script, Options::default()).expect("scripted-ai")
}

/// §13: loopback http is this PC, https on a public name is online; the
/// rest is refused with its code, a hint, exit 1, and nothing kept.
#[test]
fn s13_where_the_ai_runs_is_decided_by_its_url() {
    let p = Profile::new();
    let pc = p.run(&["ai", "--url", "http://127.0.0.1:11434/v1", "--model", "llama3.2", "--json"]);
    assert!(pc.status.success(), "{}", text(&pc.stderr));
    assert_eq!(
        json(&pc),
        serde_json::json!({"url": "http://127.0.0.1:11434/v1", "model": "llama3.2", "where": "pc", "key_set": false,
            "server": {"server": "ollama", "name": "Ollama", "port": 11434, "ports": [11434]},
            "max_tokens": 2048, "max_tokens_bounds": {"min": 16, "max": 32768, "default": 2048}})
    );
    let online = json(&p.run(&["ai", "--url", "https://openrouter.ai/api/v1", "--json"]));
    assert_eq!((online["where"].as_str(), online["model"].as_str()), (Some("online"), Some("llama3.2")));

    for (url, code) in [
        ("http://10.0.0.1:11434/v1", "ai_private_address"),
        ("https://192.168.1.20/v1", "ai_private_address"),
        ("http://api.example.com/v1", "ai_bad_url"),
        ("ftp://127.0.0.1/v1", "ai_bad_url"),
        ("not a url", "ai_bad_url"),
    ] {
        let out = p.run(&["ai", "--url", url, "--json"]);
        assert_eq!(out.status.code(), Some(1), "{url}");
        let refused = json(&out);
        assert_eq!((refused["ok"].as_bool(), refused["code"].as_str()), (Some(false), Some(code)), "{url}");
        assert!(refused["hint"].as_str().is_some_and(|h| h.contains("ai --url")), "{url}: {refused}");
        let human = p.run(&["ai", "--url", url]);
        assert!(text(&human.stderr).starts_with(code), "{url}: {}", text(&human.stderr));
    }
    let kept = json(&p.run(&["ai", "--json"]));
    assert_eq!(kept["url"], "https://openrouter.ai/api/v1", "a refused URL changes nothing");
}

/// The key comes from standard input, is never printed, goes only as a
/// bearer header to the AI, and is forgotten for another host.
#[test]
fn s11_the_ai_key_is_never_printed_and_sent_only_as_a_bearer_header() {
    let p = Profile::new();
    let ai = models(&[MODEL]);
    let set = p.run(&["ai", "--url", &ai.url(), "--model", MODEL]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    let keyed = p.run_with(&["ai", "key", "--json"], Some(&format!("{KEY}\n")), &[]);
    assert!(keyed.status.success(), "{}", text(&keyed.stderr));
    assert_eq!(json(&keyed)["key_set"], true);

    let tested = p.run(&["ai", "test", "--json"]);
    assert!(tested.status.success(), "{}", text(&tested.stderr));
    assert_eq!(json(&tested), serde_json::json!({"ok": true, "where": "pc", "models": [MODEL], "tools": null}));
    let received = ai.received();
    assert_eq!(received[0].path, "/v1/models");
    // Then whether the model can use tools, asked of the same origin (issue
    // 34): each server's own question, then, none answering, the probe.
    let asked: Vec<&str> = received[1..].iter().map(|r| r.path.as_str()).collect();
    assert_eq!(asked, ["/api/show", "/api/v0/models", "/props", "/v1/chat/completions"]);
    for request in &received {
        assert_eq!(request.header("authorization"), Some(format!("Bearer {KEY}").as_str()), "{}", request.path);
    }

    for out in [&set, &keyed, &tested, &p.run(&["ai"]), &p.run(&["ai", "--json"])] {
        assert!(!contains(&out.stdout, KEY) && !contains(&out.stderr, KEY), "the key printed");
    }
    for file in support::files(&p.root()) {
        assert!(!contains(&std::fs::read(&file).expect("read"), KEY), "in clear in {}", file.display());
    }

    // Another host: the key was not given for it.
    let moved = json(&p.run(&["ai", "--url", "http://localhost:9/v1", "--json"]));
    assert_eq!(moved["key_set"], false);
    assert_eq!(moved["key_forgotten"], true, "the player is told (issue 32)");
    let back = p.run(&["ai", "--url", &ai.url()]);
    assert!(text(&back.stdout).contains("API key: not set"), "{}", text(&back.stdout));
    let back = json(&p.run(&["ai", "--url", &ai.url(), "--json"]));
    assert_eq!(back["key_set"], false, "forgotten, not hidden");

    // Issue 32: another port of this PC is another program: the key is
    // bound to scheme, host and port, and the player is told it is gone.
    let again = p.run_with(&["ai", "key"], Some(KEY), &[]);
    assert!(again.status.success());
    let port = ai.url().rsplit_once(':').and_then(|(_, rest)| rest.split('/').next()?.parse::<u16>().ok());
    let other = ai.url().replace(&format!(":{}", port.expect("a port")), ":9");
    let moved = p.run(&["ai", "--url", &other]);
    let said = text(&moved.stdout);
    assert!(said.contains("API key: not set") && said.contains("the API key was forgotten"), "{said}");

    let again = p.run_with(&["ai", "key"], Some(KEY), &[]);
    assert!(again.status.success());
    let cleared = p.run(&["ai", "key", "--clear", "--json"]);
    assert!(cleared.status.success());
    assert_eq!(json(&cleared)["key_set"], false);
    assert_eq!(p.run_with(&["ai", "key"], Some(""), &[]).status.code(), Some(2), "an empty key is a usage error");
}

/// Each way `ai test` fails: its code, exit 1, and `ok: false`.
#[test]
fn issue22_ai_test_names_each_failure() {
    let p = Profile::new();
    let not_set = p.run(&["ai", "test", "--json"]);
    assert_eq!(not_set.status.code(), Some(1));
    assert_eq!(json(&not_set)["code"], "ai_not_set");

    let ai = models(&["qwen2.5:7b", "llama3.2"]);
    p.run(&["ai", "--url", &ai.url(), "--model", "mistral"]);
    let unknown = p.run(&["ai", "test", "--json"]);
    assert_eq!(unknown.status.code(), Some(1));
    let unknown = json(&unknown);
    assert_eq!((unknown["ok"].as_bool(), unknown["code"].as_str()), (Some(false), Some("ai_model_unknown")));
    assert_eq!(unknown["models"], serde_json::json!(["qwen2.5:7b", "llama3.2"]));
    p.run(&["ai", "--model", "llama3.2"]);
    let known = p.run(&["ai", "test"]);
    assert!(known.status.success());
    assert!(text(&known.stdout).contains("Connected (on this PC): 2 models: "), "{}", text(&known.stdout));

    let empty = models(&[]);
    p.run(&["ai", "--url", &empty.url()]);
    let none = p.run(&["ai", "test"]);
    assert!(none.status.success(), "reached: ok, whatever the model");
    assert!(text(&none.stdout).contains("lists no model yet"), "{}", text(&none.stdout));

    let refusing = ScriptedAi::launch(Script { models: ModelsReply::Status(401), turns: vec![] }, Options::default())
        .expect("scripted-ai");
    p.run(&["ai", "--url", &refusing.url()]);
    let refused = p.run(&["ai", "test", "--json"]);
    assert_eq!((refused.status.code(), json(&refused)["code"].as_str()), (Some(1), Some("ai_key_refused")));

    let port = refusing.addr().port();
    drop(refusing);
    p.run(&["ai", "--url", &format!("http://127.0.0.1:{port}/v1")]);
    let silent = p.run(&["ai", "test"]);
    assert_eq!(silent.status.code(), Some(1));
    let said = text(&silent.stderr);
    assert!(said.starts_with("ai_not_listening") && said.contains(&format!("port {port}")), "{said}");
}

/// Issue 34: `ai test` says whether the model can use tools, as the server
/// of this PC says: `"tools": false` for a llama.cpp template without tools
/// (with a model to choose instead), `true` with, and no chat request sent;
/// for a server with neither endpoint, what one small chat request with a
/// tool shows (`"probed": true`), `null` when it shows nothing; the test is
/// ok and exits 0 in every case.
#[test]
fn issue34_ai_test_says_whether_the_model_can_use_tools() {
    let p = Profile::new();
    let serving = |routes: Vec<Route>| {
        ScriptedAi::launch(Script::with_turns(vec![]), Options { routes, ..Options::default() }).expect("scripted-ai")
    };
    let test = |ai: &ScriptedAi| {
        p.run(&["ai", "--url", &ai.url(), "--model", MODEL]);
        let (json_out, human) = (p.run(&["ai", "test", "--json"]), p.run(&["ai", "test"]));
        assert!(json_out.status.success() && human.status.success(), "{}", text(&human.stderr));
        let said = json(&json_out);
        if said["tools"].is_boolean() && said.get("probed").is_none() {
            assert_eq!(ai.chats().len(), 0, "the server said it: no chat request: {said}");
        }
        (said, text(&human.stdout))
    };

    let (without, said) = test(&serving(vec![llamacpp::props(false)]));
    assert_eq!((without["ok"].as_bool(), without["tools"].as_bool()), (Some(true), Some(false)), "{without}");
    assert_eq!(without["server"]["server"], "llama_cpp", "{without}");
    assert_eq!(without["tool_model"], "Qwen2.5-7B-Instruct-GGUF", "{without}");
    assert!(said.contains("this model cannot use tools: your plugins will not be used"), "{said}");
    assert!(said.contains("e.g. Qwen2.5-7B-Instruct-GGUF") && said.contains("--chat-template-file"), "{said}");

    let (with, said) = test(&serving(vec![llamacpp::props(true)]));
    assert_eq!(with["tools"], true, "{with}");
    assert!(with.get("tool_model").is_none(), "no other model to name: {with}");
    assert!(said.contains("tools: this model can use your plugins"), "{said}");

    let (ollama_no, said) = test(&serving(vec![ollama::show(&["completion"])]));
    assert_eq!((ollama_no["tools"].as_bool(), ollama_no["tool_model"].as_str()), (Some(false), Some("qwen2.5")));
    assert!(!said.contains("--chat-template-file"), "llama.cpp's advice only for llama.cpp: {said}");

    let silent = serving(vec![]);
    let (neither, said) = test(&silent);
    assert!(neither["tools"].is_null() && neither.get("tools").is_some(), "null, not absent: {neither}");
    assert!(neither.get("server").is_none(), "no server said, none on this port: {neither}");
    assert!(neither.get("probed").is_none(), "the probe showed nothing (the script answers 500): {neither}");
    assert_eq!(silent.chats().len(), 2, "one probe for each of the two tests");
    assert!(said.contains("tools: unknown"), "{said}");

    // A server that does not say, whose model calls the probe's tool.
    let call = || openai::completion(None, &[("call_1", "probe", "{}")]);
    let probed = ScriptedAi::launch(Script::with_turns(vec![call(), call()]), Options::default()).expect("scripted-ai");
    let (yes, said) = test(&probed);
    assert_eq!(
        (yes["ok"].as_bool(), yes["tools"].as_bool(), yes["probed"].as_bool()),
        (Some(true), Some(true), Some(true)),
        "{yes}"
    );
    assert!(yes.get("server").is_none(), "no server said: {yes}");
    assert_eq!(probed.chats()[0].tool_names(), ["probe"]);
    assert!(said.contains("tools: this model can use your plugins"), "{said}");
}

/// An online AI over TLS, reached through the network filter's test hooks
/// (a public-looking name answered with a public address, the connection
/// rewritten to the local server): `where` is online, the key goes there.
#[test]
fn s13_an_online_ai_is_reached_over_https_on_a_public_address() {
    let pki = TestPki::new(&["ai.example.com"]).expect("pki");
    let ai = ScriptedAi::launch(
        Script { models: ModelsReply::List(vec![MODEL.into()]), turns: vec![] },
        Options { tls: Some(pki.tls()), ..Options::default() },
    )
    .expect("scripted-ai");
    let p = Profile::new();
    let ca = p.dir.path().join("ca.pem");
    std::fs::write(&ca, &pki.ca_pem).expect("ca");
    let connect = format!("93.184.216.40:443={}", ai.addr());
    let env = [
        ("DCPLUGIN_TEST_DNS", "ai.example.com=93.184.216.40"),
        ("DCPLUGIN_TEST_CONNECT", connect.as_str()),
        ("DCPLUGIN_TEST_CA", ca.to_str().expect("path")),
    ];
    p.run(&["ai", "--url", "https://ai.example.com/v1", "--model", MODEL]);
    p.run_with(&["ai", "key"], Some(KEY), &[]);
    let tested = p.run_with(&["ai", "test", "--json"], None, &env);
    assert!(tested.status.success(), "{}{}", text(&tested.stdout), text(&tested.stderr));
    assert_eq!(json(&tested)["where"], "online");
    assert_eq!(ai.received()[0].header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert!(ai.chats().is_empty(), "an online AI is never probed (issue 34): a request may cost the player");

    // The same name answered with a private address: refused before any byte is sent.
    let private = [("DCPLUGIN_TEST_DNS", "ai.example.com=10.1.2.3"), env[1], env[2]];
    let refused = p.run_with(&["ai", "test", "--json"], None, &private);
    assert_eq!((refused.status.code(), json(&refused)["code"].as_str()), (Some(1), Some("ai_private_address")));
    assert_eq!(ai.received().len(), 1, "nothing more reached the server");
}

/// Issue 34: the most tokens one answer may have is the player's: `ai
/// --max-tokens N` keeps it (shown by `ai`, `"max_tokens"` in `--json`),
/// every turn's request carries it, `default` goes back to 2048; a value
/// that is no whole number from 16 to 32768 is `bad_input`, exit 1, and
/// changes nothing; with --url or --model it is a usage error (exit 2).
#[test]
fn issue34_the_answer_length_is_set_shown_and_sent_with_every_turn() {
    let p = Profile::new();
    // `ai test`'s probe first (this server does not say whether its model can use tools), then two turns.
    let script = vec![openai::completion(Some("Tools work."), &[]), openai::text(["hi"]), openai::text(["again"])];
    let ai = ScriptedAi::launch(Script::with_turns(script), Options::default()).expect("scripted-ai");
    p.run(&["ai", "--url", &ai.url(), "--model", MODEL]);
    // One model, one word: no "1 models" (issue 34).
    let tested = text(&p.run(&["ai", "test"]).stdout);
    assert!(tested.starts_with(&format!("Connected (on this PC): 1 model: {MODEL}\n")), "{tested}");
    let shown = p.run(&["ai"]);
    assert!(text(&shown.stdout).contains("answer length: at most 2048 tokens, the default"), "{}", text(&shown.stdout));

    let set = p.run(&["ai", "--max-tokens", "300", "--json"]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    assert_eq!((json(&set)["max_tokens"].as_u64(), json(&set)["model"].as_str()), (Some(300), Some(MODEL)));
    assert_eq!(json(&p.run(&["ai", "--json"]))["max_tokens"], 300);
    assert!(text(&p.run(&["ai"]).stdout).contains("answer length: at most 300 tokens (from 16 to 32768"));
    let turn = p.run(&["chat", "--once", "hello", "--json"]);
    assert!(turn.status.success(), "{}", text(&turn.stderr));

    for bad in ["15", "32769", "0", "-5", "many", "2.5", ""] {
        // `=`: "-5" is a value, not a flag.
        let flag = format!("--max-tokens={bad}");
        let out = p.run(&["ai", &flag, "--json"]);
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        let refused = json(&out);
        assert_eq!((refused["ok"].as_bool(), refused["code"].as_str()), (Some(false), Some("bad_input")), "{bad:?}");
        let message = refused["message"].as_str().unwrap_or_default();
        assert!(message.contains("from 16 to 32768"), "{bad:?}: {message}");
        let human = p.run(&["ai", &flag]);
        assert_eq!(human.status.code(), Some(1), "{bad:?}");
        assert!(text(&human.stderr).starts_with("bad_input: the answer length"), "{bad:?}: {}", text(&human.stderr));
    }
    assert_eq!(json(&p.run(&["ai", "--json"]))["max_tokens"], 300, "a refused value changes nothing");
    let mixed = p.run(&["ai", "--max-tokens", "500", "--model", "other"]);
    assert_eq!(mixed.status.code(), Some(2), "set alone: {}", text(&mixed.stderr));

    let back = p.run(&["ai", "--max-tokens", "default", "--json"]);
    assert!(back.status.success(), "{}", text(&back.stderr));
    assert_eq!(json(&back)["max_tokens"], 2048);
    let turn = p.run(&["chat", "--once", "hello", "--json"]);
    assert!(turn.status.success(), "{}", text(&turn.stderr));
    let received = ai.received();
    let sent: Vec<&Value> = received
        .iter()
        .filter(|r| r.path == "/v1/chat/completions" && r.body["stream"] == true)
        .map(|r| &r.body["max_tokens"])
        .collect();
    assert_eq!(sent, [&serde_json::json!(300), &serde_json::json!(2048)], "each turn carries the setting of its time");
}
