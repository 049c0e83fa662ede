//! The AI connection against the scripted OpenAI-compatible server (a real
//! HTTP server with real server-sent events): models, streamed chat in the
//! three wire shapes, every error of "The AI connection" (issue 22), the
//! key only as `Authorization: Bearer`, and an "online" AI reached on
//! loopback TLS through the network filter's test hooks.

use std::time::Duration;

use dcp_ai::{
    discover_at, judge_ai_url, AiError, ChatRequest, ChatStream, Connection, Limits, Message, Place, RawArgs, Reply,
    StreamItem, ToolSpec,
};
use dcp_vault::Sensitive;
use scripted_ai::{llamacpp, ollama, openai, pki::TestPki, Chunk, ModelsReply, Script, ScriptedAi, Step, MODEL};
use serde_json::{json, Value};

const KEY: &str = "sk-test-0123456789abcdef";

fn connect(ai: &ScriptedAi, key: Option<&str>) -> Connection {
    let url = judge_ai_url(&ai.url()).expect("the scripted server's URL");
    Connection::new(url, MODEL.to_owned(), key.map(Sensitive::from))
}

fn short(connection: Connection) -> Connection {
    connection.with_limits(Limits {
        first_byte: Duration::from_millis(300),
        between_chunks: Duration::from_millis(300),
        ..Limits::DEFAULT
    })
}

fn ask(text: &str) -> ChatRequest {
    ChatRequest { messages: vec![Message::User { content: text.to_owned() }], tools: vec![], one_tool_per_step: true }
}

fn with_tool(text: &str) -> ChatRequest {
    ChatRequest {
        tools: vec![ToolSpec {
            name: "fx__convert".into(),
            description: "Converts an amount between currencies.".into(),
            parameters: json!({"type": "object", "properties": {"amount": {"type": "number"}}}),
        }],
        ..ask(text)
    }
}

/// Reads a stream to its end: the deltas, then the reply or the error.
async fn drain(mut stream: ChatStream) -> (Vec<String>, Result<Reply, AiError>) {
    let mut deltas = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(StreamItem::Delta(text)) => deltas.push(text),
            Ok(StreamItem::Done(reply)) => {
                assert!(stream.next().await.is_none(), "nothing after Done");
                return (deltas, Ok(reply));
            }
            Err(error) => {
                assert!(stream.next().await.is_none(), "nothing after an error");
                return (deltas, Err(error));
            }
        }
    }
    panic!("the stream ended without Done or an error")
}

async fn reply(connection: &Connection, req: &ChatRequest) -> (Vec<String>, Reply) {
    let stream = connection.chat(req).await.expect("the chat request");
    let (deltas, reply) = drain(stream).await;
    (deltas, reply.expect("a whole reply"))
}

async fn chat_error(connection: &Connection, req: &ChatRequest) -> AiError {
    match connection.chat(req).await {
        Err(error) => error,
        Ok(stream) => drain(stream).await.1.expect_err("an error"),
    }
}

#[tokio::test]
async fn s13_models_in_openai_and_ollama_shapes() {
    let ai = ScriptedAi::start(Script {
        models: ModelsReply::List(vec!["llama3.1".into(), "qwen2.5".into()]),
        turns: vec![],
    })
    .await;
    assert_eq!(connect(&ai, None).models().await.expect("models"), ["llama3.1", "qwen2.5"]);
    let received = ai.received();
    assert_eq!((received[0].method.as_str(), received[0].path.as_str()), ("GET", "/v1/models"));

    let body = json!({"models": [{"name": "llama3.1:latest", "model": "llama3.1:latest"}]});
    let ollama = ScriptedAi::start(Script { models: ModelsReply::Body(200, body), turns: vec![] }).await;
    assert_eq!(connect(&ollama, None).models().await.expect("models"), ["llama3.1:latest"]);

    let broken = ScriptedAi::start(Script { models: ModelsReply::Body(200, json!({"x": 1})), turns: vec![] }).await;
    assert_eq!(connect(&broken, None).models().await.expect_err("no list").code(), "ai_bad_answer");
}

#[tokio::test]
async fn s3_text_is_streamed_and_the_request_is_the_wire_shape() {
    let ai = ScriptedAi::start(Script::with_turns(vec![openai::text(["Hel", "lo", "!"])])).await;
    let (deltas, reply) = reply(&connect(&ai, None), &ask("hi")).await;
    assert_eq!(deltas, ["Hel", "lo", "!"]);
    assert_eq!(reply, Reply { text: "Hello!".into(), ..Reply::default() });
    let sent = &ai.received()[0];
    assert_eq!((sent.method.as_str(), sent.path.as_str()), ("POST", "/v1/chat/completions"));
    let messages = json!([{"role": "user", "content": "hi"}]);
    // Issue 34: every request bounds its answer.
    let max_tokens = Connection::MAX_TOKENS;
    assert_eq!(sent.body, json!({"model": MODEL, "stream": true, "messages": messages, "max_tokens": max_tokens}));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert!(sent.header("authorization").is_none(), "no key, no Authorization");
}

#[tokio::test]
async fn s3_words_arrive_before_the_answer_ends() {
    let ai = ScriptedAi::start(Script::with_turns(vec![openai::text(["Hel", "lo"]).pause_after(2)])).await;
    let connection = connect(&ai, None);
    let mut stream = connection.chat(&ask("hi")).await.expect("chat");
    assert_eq!(stream.next().await.expect("an item").expect("ok"), StreamItem::Delta("Hel".into()));
    ai.release();
    let (deltas, reply) = drain(stream).await;
    assert_eq!(deltas, ["lo"]);
    assert_eq!(reply.expect("reply").text, "Hello");
}

#[tokio::test]
async fn s17_tool_calls_in_the_three_wire_shapes() {
    let args = r#"{"amount":100,"from":"USD","to":"EUR"}"#;
    let ai = ScriptedAi::start(Script::with_turns(vec![
        openai::tool_calls(&[("call_a", "fx__convert", args), ("call_b", "fx__rates", "")], 3),
        ollama::tool_calls(&[(None, "fx__convert", json!({"amount": 100})), (Some("oc_2"), "fx__rates", json!({}))]),
        llamacpp::tool_calls(&[("", "fx__convert", args)], 5),
    ]))
    .await;
    let connection = connect(&ai, None);

    let (deltas, openai) = reply(&connection, &with_tool("100 dollars in euros?")).await;
    assert!(deltas.is_empty());
    assert_eq!(openai.text, "");
    let calls: Vec<(&str, &str, Value)> = openai
        .tool_calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.parse().expect("JSON")))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_a", "fx__convert", json!({"amount": 100, "from": "USD", "to": "EUR"})),
            ("call_b", "fx__rates", json!({}))
        ]
    );

    let (_, ollama) = reply(&connection, &with_tool("again")).await;
    assert_eq!(ollama.tool_calls[0].id, "call_1", "a missing id is made");
    assert_eq!(ollama.tool_calls[0].arguments, RawArgs::Value(json!({"amount": 100})));
    assert_eq!(ollama.tool_calls[1].id, "oc_2");

    let (_, llama) = reply(&connection, &with_tool("again")).await;
    assert_eq!(llama.tool_calls.len(), 1);
    assert_eq!(llama.tool_calls[0].arguments.parse().expect("JSON")["to"], "EUR");

    let sent = &ai.received()[0].body;
    assert_eq!(
        sent["tools"][0],
        json!({"type": "function", "function": {
            "name": "fx__convert",
            "description": "Converts an amount between currencies.",
            "parameters": {"type": "object", "properties": {"amount": {"type": "number"}}},
        }})
    );
    assert_eq!(sent["parallel_tool_calls"], json!(false));
}

#[tokio::test]
async fn s17_what_small_models_send_oddly() {
    let raw = |delta: Value| openai::envelope(delta, None);
    let ai = ScriptedAi::start(Script::with_turns(vec![
        Step::Stream(vec![raw(
            json!({"tool_calls": [{"index": 0, "function": {"name": "fx__convert", "arguments": "amount=100"}}]}),
        )]),
        Step::Stream(vec![raw(json!({"role": "assistant", "content": ""}))]),
        Step::Stream(vec![Chunk::Data("this is not JSON".into())]),
    ]))
    .await;
    let connection = connect(&ai, None);
    let (_, not_json) = reply(&connection, &with_tool("x")).await;
    assert_eq!(not_json.tool_calls[0].id, "call_1");
    assert!(not_json.tool_calls[0].arguments.parse().is_err(), "arguments that are not JSON stay an error to report");
    let (_, empty) = reply(&connection, &with_tool("x")).await;
    assert_eq!(empty, Reply::default(), "a reply with no text is text \"\"");
    assert_eq!(chat_error(&connection, &with_tool("x")).await.code(), "ai_bad_answer");
}

#[tokio::test]
async fn s13_nothing_listening_names_the_url_and_what_to_start() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let url = judge_ai_url(&format!("http://127.0.0.1:{port}/v1")).expect("url");
    let connection = Connection::new(url, "m".into(), None);
    let error = connection.models().await.expect_err("nothing there");
    assert_eq!(error.code(), "ai_not_listening");
    let message = error.to_string();
    assert!(message.contains(&format!("http://127.0.0.1:{port}/v1")) && message.contains("Ollama"), "{message}");
    assert_eq!(chat_error(&connection, &ask("hi")).await.code(), "ai_not_listening");
}

#[tokio::test]
async fn s13_each_refusal_of_the_service_has_its_code() {
    let ai = ScriptedAi::start(Script::with_turns(vec![
        openai::error(401, "Incorrect API key provided"),
        Step::Status(403, json!({"error": {"message": "forbidden"}})),
        ollama::model_not_found("llama9"),
        Step::Status(
            400,
            json!({"error": {"message": "The model `llama9` does not exist or you do not have access to it."}}),
        ),
        ollama::no_tools("gemma:2b"),
        Step::Status(500, json!({"error": {"message": "out of memory"}})),
    ]))
    .await;
    let connection = connect(&ai, Some(KEY));
    let mut codes = Vec::new();
    for _ in 0..6 {
        codes.push(chat_error(&connection, &with_tool("x")).await);
    }
    let names: Vec<&str> = codes.iter().map(AiError::code).collect();
    assert_eq!(
        names,
        ["ai_key_refused", "ai_key_refused", "ai_model_unknown", "ai_model_unknown", "ai_no_tools", "ai_http"]
    );
    assert!(codes[5].to_string().contains("out of memory"), "{}", codes[5]);
    for error in &codes {
        assert!(error.to_string().contains(&ai.url()), "{error}");
    }

    let refused = ScriptedAi::start(Script { models: ModelsReply::Status(401), turns: vec![] }).await;
    assert_eq!(connect(&refused, None).models().await.expect_err("401").code(), "ai_key_refused");
}

#[tokio::test]
async fn s13_no_answer_in_time_is_a_timeout() {
    let ai = ScriptedAi::start(Script {
        models: ModelsReply::Hang,
        turns: vec![Step::Hang, openai::text(["a", "b"]).pause_after(2)],
    })
    .await;
    let connection = short(connect(&ai, None));
    let error = connection.models().await.expect_err("hangs");
    assert_eq!(error.code(), "ai_timeout");
    assert_eq!(chat_error(&connection, &ask("hi")).await.code(), "ai_timeout");
    // Silent in the middle of the answer: the limit between pieces.
    let mut stream = connection.chat(&ask("hi")).await.expect("answer starts");
    assert_eq!(stream.next().await.expect("item").expect("ok"), StreamItem::Delta("a".into()));
    let (_, rest) = drain(stream).await;
    assert_eq!(rest.expect_err("silent").code(), "ai_timeout");
    ai.release();
}

#[tokio::test]
async fn s13_a_redirect_is_never_followed() {
    let ai =
        ScriptedAi::start(Script::with_turns(vec![Step::Redirect("/v1/elsewhere".into()), openai::text(["x"])])).await;
    let connection = connect(&ai, Some(KEY));
    let error = chat_error(&connection, &ask("hi")).await;
    assert_eq!(error.code(), "ai_redirect");
    assert_eq!(ai.received().len(), 1, "the redirect was not followed");
}

#[tokio::test]
async fn s13_the_key_goes_only_in_authorization_and_never_comes_back_out() {
    let echo = format!("Incorrect API key provided: {KEY}");
    let ai = ScriptedAi::start(Script::with_turns(vec![
        openai::text(["ok"]),
        Step::Status(400, json!({"error": {"message": echo}})),
        Step::Stream(vec![Chunk::Raw(json!({"error": {"message": echo}}))]),
    ]))
    .await;
    let connection = connect(&ai, Some(KEY));
    reply(&connection, &ask("hi")).await;
    connection.models().await.expect("models");
    let in_body = chat_error(&connection, &ask("hi")).await;
    let in_stream = chat_error(&connection, &ask("hi")).await;
    for error in [&in_body, &in_stream] {
        assert_eq!(error.code(), "ai_http");
        let shown = format!("{error} {error:?}");
        assert!(!shown.contains(KEY) && shown.contains("[secret]"), "{shown}");
    }
    assert!(!format!("{connection:?}").contains(KEY));
    for request in ai.received() {
        assert_eq!(request.header("authorization"), Some(format!("Bearer {KEY}").as_str()), "{}", request.path);
        let elsewhere: Vec<&(String, String)> = request.headers.iter().filter(|(n, _)| n != "authorization").collect();
        assert!(!format!("{elsewhere:?} {}", request.body).contains(KEY), "the key only in Authorization");
    }
}

fn online(ai: &ScriptedAi, pki: &TestPki, answer: &str) -> Connection {
    let url = judge_ai_url("https://ai.example.com/v1").expect("online URL");
    assert_eq!(url.place(), Place::Online);
    let overrides = dcp_net::TestOverrides {
        dns: vec![("ai.example.com".into(), vec![answer.parse().expect("ip")])],
        connect: [(format!("{answer}:443").parse().expect("addr"), ai.addr())].into(),
        ca_pem: Some(pki.ca_pem.clone().into_bytes()),
    };
    Connection::new(url, MODEL.into(), Some(Sensitive::from(KEY))).with_test_overrides(overrides)
}

#[tokio::test]
async fn s13_an_online_ai_over_tls_on_a_public_address() {
    let pki = TestPki::new(&["ai.example.com"]).expect("pki");
    let ai =
        ScriptedAi::start_tls(Script::with_turns(vec![openai::text(["Bonjour"])]), &pki.cert_pem, &pki.key_pem).await;
    let connection = online(&ai, &pki, "93.184.216.34");
    assert_eq!(connection.models().await.expect("models"), [MODEL]);
    let (_, answer) = reply(&connection, &ask("salut")).await;
    assert_eq!(answer.text, "Bonjour");
    let received = ai.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].header("authorization"), Some(format!("Bearer {KEY}").as_str()));
}

#[tokio::test]
async fn s13_an_online_name_that_points_home_is_refused() {
    let pki = TestPki::new(&["ai.example.com"]).expect("pki");
    let ai = ScriptedAi::start_tls(Script::with_turns(vec![openai::text(["x"])]), &pki.cert_pem, &pki.key_pem).await;
    for private in ["10.0.0.7", "127.0.0.1", "169.254.169.254"] {
        let connection = online(&ai, &pki, private);
        assert_eq!(connection.models().await.expect_err(private).code(), "ai_private_address");
        assert_eq!(chat_error(&connection, &ask("hi")).await.code(), "ai_private_address");
    }
    assert!(ai.received().is_empty(), "nothing reached the server");
}

#[tokio::test]
async fn s13_discovery_proposes_what_answers() {
    let ai = ScriptedAi::start(Script { models: ModelsReply::List(vec!["llama3.1".into()]), turns: vec![] }).await;
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://127.0.0.1:{}/v1", listener.local_addr().expect("addr").port())
    };
    let hang = ScriptedAi::start(Script { models: ModelsReply::Hang, turns: vec![] }).await;
    let bases = [dead.as_str(), hang.url().as_str(), ai.url().as_str()].map(str::to_owned);
    let bases: Vec<&str> = bases.iter().map(String::as_str).collect();
    let found = discover_at(&bases, Duration::from_millis(500)).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].url.as_str(), found[0].models.as_slice()),
        (ai.url().as_str(), ["llama3.1".to_owned()].as_slice())
    );
}

#[tokio::test]
async fn s13_localhost_is_the_pc_and_is_pinned_to_loopback() {
    let ai = ScriptedAi::start(Script::with_turns(vec![openai::text(["hi"])])).await;
    let url = judge_ai_url(&format!("http://localhost:{}/v1/", ai.addr().port())).expect("localhost");
    assert_eq!(url.place(), Place::Pc);
    let connection = Connection::new(url, MODEL.into(), None);
    assert_eq!(connection.models().await.expect("models"), [MODEL]);
    assert_eq!(reply(&connection, &ask("hi")).await.1.text, "hi");
}

#[tokio::test]
async fn s17_a_server_that_ignores_stream_and_one_that_cuts_the_answer() {
    let whole = json!({"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Checking.",
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fx__convert", "arguments": "{\"amount\":1}"}}],
    }}]});
    let mut cut = openai::text_chunks(["Hel"]);
    cut.push(Chunk::Cut);
    let ai = ScriptedAi::start(Script::with_turns(vec![Step::Status(200, whole), Step::Stream(cut)])).await;
    let connection = connect(&ai, None);
    let (deltas, answer) = reply(&connection, &with_tool("x")).await;
    assert_eq!(deltas, ["Checking."]);
    assert_eq!((answer.tool_calls[0].id.as_str(), answer.tool_calls[0].name.as_str()), ("c1", "fx__convert"));
    let (deltas, rest) = drain(connection.chat(&ask("x")).await.expect("starts")).await;
    assert_eq!(deltas, ["Hel"]);
    assert_eq!(rest.expect_err("cut").code(), "ai_bad_answer", "a cut answer is not a whole one");
}
