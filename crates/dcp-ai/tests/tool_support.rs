//! "Can this model use tools?" (issue 34) against the scripted server
//! speaking each server's own API beside the OpenAI-compatible one:
//! llama.cpp's `/props`, Ollama's `/api/show`, LM Studio's `/api/v0/models`;
//! a server that says nothing, an answer of the wrong shape or too large,
//! and an online AI are all "unknown", never an error. Then the probe, for a
//! server that does not say: one small chat request with a tool, read as a
//! yes (a call), a no (the server's "does not support tools") or unknown.

use dcp_ai::{judge_ai_url, Connection, Limits, PcServer, Place, ToolSupport, PROBE_TOKENS};
use dcp_vault::Sensitive;
use scripted_ai::{llamacpp, lmstudio, ollama, openai, pki::TestPki, Options, Route, Script, ScriptedAi, Step, MODEL};
use serde_json::json;
use std::time::Duration;

const KEY: &str = "sk-test-0123456789abcdef";

/// A scripted server of this PC answering these routes besides `/v1`.
fn serving(routes: Vec<Route>) -> ScriptedAi {
    ScriptedAi::launch(Script::with_turns(vec![]), Options { routes, ..Options::default() }).expect("scripted-ai")
}

async fn ask(ai: &ScriptedAi) -> Option<ToolSupport> {
    let url = judge_ai_url(&ai.url()).expect("the scripted server's URL");
    Connection::new(url, MODEL.to_owned(), Some(Sensitive::from(KEY))).tool_support().await
}

fn said(server: PcServer, tools: bool) -> Option<ToolSupport> {
    Some(ToolSupport { server, tools })
}

#[tokio::test]
async fn issue34_llamacpp_says_it_in_props_at_the_server_root() {
    let without = serving(vec![llamacpp::props(false)]);
    assert_eq!(ask(&without).await, said(PcServer::LlamaCpp, false), "a template without tools");
    let props = without.received().into_iter().find(|r| r.path == "/props").expect("asked /props, at the root");
    assert_eq!(props.method, "GET");
    assert_eq!(props.header("authorization"), Some(format!("Bearer {KEY}").as_str()), "same origin: its key");
    let with = serving(vec![llamacpp::props(true)]);
    assert_eq!(ask(&with).await, said(PcServer::LlamaCpp, true), "a template with tools");
}

#[tokio::test]
async fn issue34_ollama_says_it_in_api_show_for_the_model() {
    let without = serving(vec![ollama::show(&["completion"])]);
    assert_eq!(ask(&without).await, said(PcServer::Ollama, false));
    let show = without.received().into_iter().find(|r| r.path == "/api/show").expect("asked /api/show");
    assert_eq!((show.method.as_str(), show.body.clone()), ("POST", json!({"model": MODEL})));
    let with = serving(vec![ollama::show(&["completion", "tools"])]);
    assert_eq!(ask(&with).await, said(PcServer::Ollama, true));
}

/// LM Studio gives every model a default tool prompt: only "tool_use" is an answer.
#[tokio::test]
async fn issue34_lm_studio_says_yes_in_its_model_list_and_never_no() {
    let with = serving(vec![lmstudio::models(MODEL, Some(&["tool_use"]))]);
    assert_eq!(ask(&with).await, said(PcServer::LmStudio, true));
    let without = serving(vec![lmstudio::models(MODEL, Some(&[]))]);
    assert_eq!(ask(&without).await, None);
    let older = serving(vec![lmstudio::models(MODEL, None)]);
    assert_eq!(ask(&older).await, None);
    let other_model = serving(vec![lmstudio::models("another", Some(&["tool_use"]))]);
    assert_eq!(ask(&other_model).await, None, "another model's capabilities say nothing of this one");
}

#[tokio::test]
async fn issue34_a_server_that_does_not_say_is_unknown() {
    let openai_only = serving(vec![]);
    assert_eq!(ask(&openai_only).await, None);
    let asked: Vec<String> = openai_only.received().into_iter().map(|r| format!("{} {}", r.method, r.path)).collect();
    assert_eq!(asked, ["POST /api/show", "GET /api/v0/models", "GET /props"], "each server's question, in turn");
}

/// Hostile or odd answers: a wrong shape or a body over the limit is no answer.
#[tokio::test]
async fn issue34_a_wrong_shape_or_a_huge_answer_is_unknown() {
    let route = |path: &'static str, method: &'static str, body| Route { method, path, body };
    for (what, routes) in [
        (
            "supports_tools as text",
            vec![route("/props", "GET", json!({"chat_template_caps": {"supports_tools": "yes"}}))],
        ),
        ("no caps", vec![route("/props", "GET", json!({"chat_template": "x"}))]),
        ("props not an object", vec![route("/props", "GET", json!([1, 2]))]),
        ("capabilities not names", vec![route("/api/show", "POST", json!({"capabilities": [1, "tools"]}))]),
        ("capabilities as text", vec![route("/api/show", "POST", json!({"capabilities": "tools"}))]),
        ("data not a list", vec![route("/api/v0/models", "GET", json!({"data": {"id": MODEL}}))]),
        (
            "over 2 MB",
            vec![route(
                "/props",
                "GET",
                json!({"chat_template": "x".repeat(3 * 1024 * 1024), "chat_template_caps": {"supports_tools": true}}),
            )],
        ),
    ] {
        assert_eq!(ask(&serving(routes)).await, None, "{what}");
    }
}

/// On a port of no known server, each is asked in the table's order; the
/// first answer ends the questions and says which server it is.
#[tokio::test]
async fn issue34_the_server_that_answers_is_named() {
    let ai = serving(vec![llamacpp::props(false), lmstudio::models(MODEL, Some(&["tool_use"]))]);
    assert_eq!(ask(&ai).await, said(PcServer::LmStudio, true), "the table's order on an unknown port");
    assert_eq!(ai.received().len(), 2, "Ollama's question, then LM Studio's, which ends them");
}

/// An online AI is not asked: its own API is not known, and a question may cost.
#[tokio::test]
async fn issue34_an_online_ai_is_not_asked() {
    let pki = TestPki::new(&["ai.example.com"]).expect("pki");
    let ai = ScriptedAi::launch(
        Script::with_turns(vec![]),
        Options { tls: Some(pki.tls()), routes: vec![llamacpp::props(true)], ..Options::default() },
    )
    .expect("scripted-ai");
    let url = judge_ai_url("https://ai.example.com/v1").expect("online URL");
    assert_eq!(url.place(), Place::Online);
    let overrides = dcp_net::TestOverrides {
        dns: vec![("ai.example.com".into(), vec!["93.184.216.34".parse().expect("ip")])],
        connect: [("93.184.216.34:443".parse().expect("addr"), ai.addr())].into(),
        ca_pem: Some(pki.ca_pem.clone().into_bytes()),
    };
    let connection = Connection::new(url, MODEL.into(), None).with_test_overrides(overrides);
    assert_eq!(connection.models().await.expect("reached"), [MODEL], "the online AI answers");
    assert_eq!(connection.tool_support().await, None);
    assert_eq!(connection.probe_tools().await, None, "an online AI is never probed: it may cost the player");
    assert_eq!(ai.received().len(), 1, "only the model list was asked");
}

/// The scripted server of this PC answering these chat steps, and nothing
/// outside `/v1`; what the probe made of its first.
async fn probe(steps: Vec<Step>) -> (Option<bool>, ScriptedAi) {
    let ai = ScriptedAi::launch(Script::with_turns(steps), Options::default()).expect("scripted-ai");
    let url = judge_ai_url(&ai.url()).expect("the scripted server's URL");
    let quick = Duration::from_millis(300);
    let connection = Connection::new(url, MODEL.to_owned(), Some(Sensitive::from(KEY))).with_limits(Limits {
        first_byte: quick,
        between_chunks: quick,
        answer: quick,
    });
    (connection.probe_tools().await, ai)
}

/// A tool call answers yes; the request is one small, unstreamed chat
/// request naming its one tool in `tool_choice`, with the key of its origin.
#[tokio::test]
async fn issue34_the_probe_answered_with_a_tool_call_is_a_yes() {
    let (said, ai) = probe(vec![openai::completion(None, &[("call_1", "probe", "{}")])]).await;
    assert_eq!(said, Some(true));
    let sent = ai.chats();
    assert_eq!(sent.len(), 1, "one request");
    let body = &sent[0].body;
    assert_eq!(body["stream"], false);
    assert_eq!(body["max_tokens"], PROBE_TOKENS);
    assert_eq!(sent[0].tool_names(), ["probe"]);
    assert_eq!(body["tool_choice"], json!({"type": "function", "function": {"name": "probe"}}));
    assert_eq!(body["messages"].as_array().map(Vec::len), Some(1), "{body}");
    assert_eq!(sent[0].header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    // A server that streams although asked not to is read all the same.
    assert_eq!(probe(vec![openai::tool_calls(&[("c", "probe", "{}")], 1)]).await.0, Some(true), "streamed");
}

/// The server's own "does not support tools" (Ollama's 400) is a no.
#[tokio::test]
async fn issue34_the_probe_refused_for_tools_is_a_no() {
    assert_eq!(probe(vec![ollama::no_tools(MODEL)]).await.0, Some(false));
}

/// Text without a call is unknown: a server that dropped the tools and one
/// that ignored `tool_choice` answer alike (see dcp-ai's probe module).
#[tokio::test]
async fn issue34_the_probe_answered_with_text_is_unknown() {
    let (said, ai) = probe(vec![openai::completion(Some("Tools work!"), &[])]).await;
    assert_eq!((said, ai.chats().len()), (None, 1), "asked, and not told");
    assert_eq!(probe(vec![openai::text(["Tools ", "work!"])]).await.0, None, "streamed text");
}

/// Silence, a server error, an answer of the wrong shape: unknown, never an error.
#[tokio::test]
async fn issue34_the_probe_without_an_answer_is_unknown() {
    for (what, step) in [
        ("silence past the limit", Step::Hang),
        ("500", openai::error(500, "the model crashed")),
        ("a 400 of another kind", openai::error(400, "max_tokens is too large")),
        ("not JSON", Step::Status(200, json!("<html>"))),
        ("an error inside the answer", Step::Status(200, json!({"error": {"message": "slot unavailable"}}))),
    ] {
        let (said, ai) = probe(vec![step]).await;
        assert_eq!((said, ai.chats().len()), (None, 1), "{what}");
    }
}
