//! "Can this model use tools?" (issue 34) against the scripted server
//! speaking each server's own API beside the OpenAI-compatible one:
//! llama.cpp's `/props`, Ollama's `/api/show`, LM Studio's `/api/v0/models`;
//! a server that says nothing, an answer of the wrong shape or too large,
//! and an online AI are all "unknown", never an error.

use dcp_ai::{judge_ai_url, Connection, PcServer, Place, ToolSupport};
use dcp_vault::Sensitive;
use scripted_ai::{llamacpp, lmstudio, ollama, pki::TestPki, Options, Route, Script, ScriptedAi, MODEL};
use serde_json::json;

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
    assert_eq!(ai.received().len(), 1, "only the model list was asked");
}
