//! The server as a client sees it: each builder's wire shape, the stream
//! sent chunk by chunk, the error steps, the record of what was received.

use scripted_ai::pki::TestPki;
use scripted_ai::{llamacpp, ollama, openai, Chunk, ModelsReply, Options, Script, ScriptedAi, Step};
use serde_json::{json, Value};

mod support;
use support::{builder, chunks, client, deltas, json_of};

async fn chat(ai: &ScriptedAi, body: Value) -> reqwest::Response {
    let body = serde_json::to_vec(&body).expect("JSON");
    client(None)
        .post(format!("{}/chat/completions", ai.url()))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("an answer")
}

async fn chat_text(ai: &ScriptedAi) -> String {
    let answer = chat(ai, json!({"model": "m", "stream": true, "messages": []})).await;
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["content-type"], "text/event-stream");
    answer.text().await.expect("the stream")
}

/// Concatenated arguments of each tool call by `index`, with its id and name.
fn calls(deltas: &[&Value]) -> Vec<(Option<String>, String, String)> {
    let mut calls: Vec<(Option<String>, String, String)> = Vec::new();
    for call in deltas.iter().filter_map(|delta| delta["tool_calls"].as_array()).flatten() {
        let index = call["index"].as_u64().expect("index") as usize;
        if index == calls.len() {
            calls.push((None, String::new(), String::new()));
        }
        let entry = &mut calls[index];
        if let Some(id) = call["id"].as_str() {
            entry.0 = Some(id.to_owned());
        }
        if let Some(name) = call["function"]["name"].as_str() {
            entry.1 = name.to_owned();
        }
        match &call["function"]["arguments"] {
            Value::String(piece) => entry.2.push_str(piece),
            Value::Null => {}
            other => entry.2.push_str(&other.to_string()),
        }
    }
    calls
}

#[tokio::test]
async fn openai_text_is_streamed_chunk_by_chunk_and_held_at_a_pause() {
    let ai = ScriptedAi::start(Script::with_turns(vec![openai::text(["Hel", "lo"]).pause_after(2)])).await;
    let mut answer = chat(&ai, json!({"stream": true})).await;
    let mut seen = String::new();
    while !seen.contains(r#""content":"Hel""#) {
        let piece = answer.chunk().await.expect("read").expect("more before the pause");
        seen.push_str(std::str::from_utf8(&piece).expect("UTF-8"));
    }
    // Held: the server cannot have sent what follows the pause.
    assert!(!seen.contains(r#""content":"lo""#) && !seen.contains("[DONE]"), "{seen}");
    ai.release();
    while let Some(piece) = answer.chunk().await.expect("read") {
        seen.push_str(std::str::from_utf8(&piece).expect("UTF-8"));
    }
    let chunks = chunks(&seen);
    assert_eq!(chunks[0]["object"], "chat.completion.chunk");
    let deltas = deltas(&chunks);
    assert_eq!(deltas[0]["role"], "assistant");
    let text: String = deltas.iter().filter_map(|delta| delta["content"].as_str()).collect();
    assert_eq!(text, "Hello");
    assert_eq!(chunks.last().expect("finish")["choices"][0]["finish_reason"], "stop");
}

#[tokio::test]
async fn openai_tool_calls_spread_arguments_over_chunks_by_index() {
    let calls_asked = [("call_a", "fx__convert", r#"{"amount":100,"to":"EUR"}"#), ("", "fx__rates", "")];
    let ai = ScriptedAi::start(Script::with_turns(vec![openai::tool_calls(&calls_asked, 4)])).await;
    let chunks = chunks(&chat_text(&ai).await);
    let deltas = deltas(&chunks);
    // The first call's arguments came in pieces of 4 characters.
    let pieces: Vec<&str> = deltas
        .iter()
        .filter_map(|delta| delta["tool_calls"][0]["function"]["arguments"].as_str())
        .filter(|piece| !piece.is_empty())
        .collect();
    assert_eq!(pieces[0], r#"{"am"#);
    assert!(pieces.iter().all(|piece| piece.chars().count() <= 4));
    assert_eq!(
        calls(&deltas),
        vec![
            (Some("call_a".into()), "fx__convert".into(), r#"{"amount":100,"to":"EUR"}"#.into()),
            (None, "fx__rates".into(), String::new()),
        ]
    );
    assert_eq!(chunks.last().expect("finish")["choices"][0]["finish_reason"], "tool_calls");
}

#[tokio::test]
async fn ollama_sends_each_call_whole_with_object_arguments() {
    let ai = ScriptedAi::start(Script::with_turns(vec![
        ollama::tool_calls(&[(Some("call_1"), "fx__convert", json!({"amount": 100})), (None, "fx__rates", json!({}))]),
        ollama::text(["Done", "."]),
    ]))
    .await;
    let chunks = chunks(&chat_text(&ai).await);
    assert_eq!(chunks.len(), 2, "all the calls in one chunk, then the finish");
    assert_eq!(chunks[0]["system_fingerprint"], "fp_ollama");
    let whole = &chunks[0]["choices"][0]["delta"]["tool_calls"];
    assert_eq!(whole[0]["id"], "call_1");
    assert_eq!(whole[0]["function"]["arguments"], json!({"amount": 100}));
    assert!(whole[1].get("id").is_none(), "no id: {whole}");
    assert_eq!(whole[1]["index"], 1);
    assert_eq!(chunks[1]["choices"][0]["finish_reason"], "stop");

    let text = chunks_text(&chat_text(&ai).await);
    assert_eq!(text, "Done.");
}

fn chunks_text(stream: &str) -> String {
    let chunks = chunks(stream);
    deltas(&chunks).iter().filter_map(|delta| delta["content"].as_str()).collect()
}

#[tokio::test]
async fn llamacpp_opens_calls_without_arguments_and_ends_with_a_chunk_of_no_choice() {
    let ai = ScriptedAi::start(Script::with_turns(vec![
        llamacpp::tool_calls(&[("abc", "pomodoro__start", r#"{"minutes":25}"#)], 5),
        llamacpp::text(["Started", "!"]),
    ]))
    .await;
    let chunks = chunks(&chat_text(&ai).await);
    let last = chunks.last().expect("timings");
    assert_eq!(last["choices"], json!([]));
    assert!(last["timings"].is_object());
    let deltas = deltas(&chunks);
    assert!(deltas[0]["content"].is_null());
    assert!(deltas[1]["tool_calls"][0]["function"].get("arguments").is_none(), "{}", deltas[1]);
    assert!(deltas[2]["content"].is_null());
    assert_eq!(calls(&deltas), vec![(Some("abc".into()), "pomodoro__start".into(), r#"{"minutes":25}"#.into())]);
    assert_eq!(chunks[chunks.len() - 2]["choices"][0]["finish_reason"], "tool_calls");

    assert_eq!(chunks_text(&chat_text(&ai).await), "Started!");
}

#[tokio::test]
async fn raw_and_data_chunks_go_out_verbatim_and_a_cut_ends_without_done() {
    let ai = ScriptedAi::start(Script::with_turns(vec![
        Step::Stream(vec![Chunk::Raw(json!({"odd": true})), Chunk::Data("not json".into())]),
        Step::Stream(vec![Chunk::Raw(json!({"first": 1})), Chunk::Cut]),
    ]))
    .await;
    assert_eq!(chat_text(&ai).await, "data: {\"odd\":true}\n\ndata: not json\n\ndata: [DONE]\n\n");

    let mut answer = chat(&ai, json!({})).await;
    let mut seen = Vec::new();
    let ended = loop {
        match answer.chunk().await {
            Ok(Some(piece)) => seen.extend_from_slice(&piece),
            Ok(None) => break Ok(()),
            Err(error) => break Err(error),
        }
    };
    assert!(ended.is_err(), "a cut stream is no clean end");
    assert_eq!(seen, b"data: {\"first\":1}\n\n");
}

#[tokio::test]
async fn status_redirect_and_the_builders_errors_are_answered_as_written() {
    let ai = ScriptedAi::start(Script::with_turns(vec![
        Step::Status(401, json!({"error": {"message": "bad key"}})),
        ollama::no_tools("gemma2:2b"),
        ollama::model_not_found("nope"),
        openai::error(429, "slow down"),
        Step::Redirect("https://elsewhere.example/v1/chat/completions".into()),
    ]))
    .await;
    let expect = [
        (401, "bad key"),
        (400, "registry.ollama.ai/library/gemma2:2b does not support tools"),
        (404, "model \"nope\" not found, try pulling it first"),
        (429, "slow down"),
    ];
    for (status, message) in expect {
        let answer = chat(&ai, json!({})).await;
        assert_eq!(answer.status(), status);
        let body: Value = answer.text().await.map(|t| json_of(&t)).expect("JSON");
        assert_eq!(body["error"]["message"], message);
    }
    let moved = chat(&ai, json!({})).await;
    assert_eq!(moved.status(), 302);
    assert_eq!(moved.headers()["location"], "https://elsewhere.example/v1/chat/completions");
}

#[tokio::test]
async fn an_exhausted_script_answers_500_naming_the_request() {
    let ai = ScriptedAi::start(Script::with_turns(vec![openai::text(["only"])])).await;
    chat_text(&ai).await;
    let answer = chat(&ai, json!({})).await;
    assert_eq!(answer.status(), 500);
    let body: Value = answer.text().await.map(|t| json_of(&t)).expect("JSON");
    let message = body["error"]["message"].as_str().expect("message");
    assert!(message.contains("exhausted") && message.contains("chat request 2"), "{message}");
}

#[tokio::test]
async fn a_repeating_script_starts_again_instead_of_running_out() {
    let script = Script::with_turns(vec![openai::text(["first"]), openai::text(["second"])]);
    let ai = ScriptedAi::launch(script, Options { repeat: true, ..Options::default() }).expect("starts");
    let mut seen = Vec::new();
    for _ in 0..5 {
        seen.push(chat_text(&ai).await);
    }
    let said: Vec<&str> = seen
        .iter()
        .map(|text| match (text.contains(r#""content":"first""#), text.contains(r#""content":"second""#)) {
            (true, false) => "first",
            (false, true) => "second",
            _ => "neither",
        })
        .collect();
    assert_eq!(said, ["first", "second", "first", "second", "first"]);
    assert_eq!(ai.received().len(), 5, "every replayed request is still recorded");
}

#[tokio::test]
async fn the_model_list_and_other_paths() {
    let listed = ScriptedAi::start(Script {
        models: ModelsReply::List(vec!["llama3.1".into(), "qwen2.5".into()]),
        turns: Vec::new(),
    })
    .await;
    let body: Value = client(None)
        .get(format!("{}/models", listed.url()))
        .send()
        .await
        .expect("answer")
        .text()
        .await
        .map(|t| json_of(&t))
        .expect("JSON");
    let ids: Vec<&str> = body["data"].as_array().expect("data").iter().filter_map(|m| m["id"].as_str()).collect();
    assert_eq!(ids, ["llama3.1", "qwen2.5"]);
    let nowhere = client(None).get(format!("{}/elsewhere", listed.url())).send().await.expect("answer");
    assert_eq!(nowhere.status(), 404);

    let refused = ScriptedAi::start(Script { models: ModelsReply::Status(401), turns: Vec::new() }).await;
    let answer = client(None).get(format!("{}/models", refused.url())).send().await.expect("answer");
    assert_eq!(answer.status(), 401);

    let ollama_shape = json!({"models": [{"name": "llama3.1:latest"}]});
    let other =
        ScriptedAi::start(Script { models: ModelsReply::Body(200, ollama_shape.clone()), turns: Vec::new() }).await;
    let answer = client(None).get(format!("{}/models", other.url())).send().await.expect("answer");
    assert_eq!(answer.text().await.map(|t| json_of(&t)).expect("JSON"), ollama_shape);
}

#[tokio::test]
async fn every_request_is_recorded_in_order_with_headers_and_json_body() {
    let ai = ScriptedAi::start(Script::with_turns(vec![openai::text(["a"]), openai::text(["b"])])).await;
    client(None).get(format!("{}/models", ai.url())).bearer_auth("sk-test").send().await.expect("models");
    let asked = json!({"model": "m", "stream": true, "tools": [{"type": "function", "function": {"name": "x"}}]});
    chat(&ai, asked.clone()).await.text().await.expect("stream");
    client(None).post(format!("{}/chat/completions", ai.url())).body("not json").send().await.expect("chat");
    ai.wait_for_requests(3).await;
    let received = ai.received();
    let seen: Vec<(&str, &str)> = received.iter().map(|r| (r.method.as_str(), r.path.as_str())).collect();
    assert_eq!(seen, [("GET", "/v1/models"), ("POST", "/v1/chat/completions"), ("POST", "/v1/chat/completions")]);
    assert_eq!(received[0].header("authorization"), Some("Bearer sk-test"));
    assert_eq!(received[0].body, Value::Null);
    assert_eq!(received[1].header("authorization"), None);
    assert_eq!(received[1].body, asked);
    assert_eq!(received[2].body, json!("not json"));
}

#[tokio::test]
async fn a_hung_request_is_recorded_and_never_answered_until_the_server_stops() {
    let ai = ScriptedAi::start(Script { models: ModelsReply::Hang, turns: vec![Step::Hang] }).await;
    let url = ai.url();
    let waiting = tokio::spawn(async move { client(None).post(format!("{url}/chat/completions")).send().await });
    ai.wait_for_requests(1).await;
    assert!(!waiting.is_finished(), "no answer while the server runs");
    drop(ai);
    let ended = waiting.await.expect("the request task");
    assert!(ended.is_err(), "the connection closed with no answer");
}

#[tokio::test]
async fn tls_with_a_test_ca_for_an_online_name() {
    let pki = TestPki::new(&["ai.example.com"]).expect("test PKI");
    let ai = ScriptedAi::start_tls(
        Script { models: ModelsReply::List(vec!["gpt-4o-mini".into()]), turns: Vec::new() },
        &pki.cert_pem,
        &pki.key_pem,
    )
    .await;
    assert!(ai.url().starts_with("https://127.0.0.1:"));
    let port = ai.addr().port();
    let models = format!("https://ai.example.com:{port}/v1/models");
    let trusting = builder(Some(&pki.ca_pem)).resolve("ai.example.com", ai.addr()).build().expect("client");
    let body: Value =
        trusting.get(&models).send().await.expect("TLS answer").text().await.map(|t| json_of(&t)).expect("JSON");
    assert_eq!(body["data"][0]["id"], "gpt-4o-mini");
    // A client that does not trust the test CA gets no answer.
    let untrusting = builder(None).resolve("ai.example.com", ai.addr()).build().expect("client");
    assert!(untrusting.get(&models).send().await.is_err());
    assert_eq!(ai.received().len(), 1, "only the trusted request got through");
}

#[test]
fn the_script_reads_from_json_as_documented() {
    let text = r#"{"models": {"list": ["llama3.1"]}, "turns": [
        {"stream": [{"raw": {"a": 1}}, {"data": "x"}, "pause", {"delay_ms": 20}, "cut"]},
        {"stream": [{"comment": "ping"}, {"calls": {"count": 200, "name": "x__y", "arguments": "{\"n\":{n}}"}}, {"keep_alive": 1000}]},
        {"status": [400, {"error": {"message": "no"}}]},
        {"redirect": "https://elsewhere/v1"},
        "hang"]}"#;
    let script: Script = serde_json::from_str(text).expect("a script");
    assert!(matches!(&script.models, ModelsReply::List(ids) if ids == &["llama3.1"]));
    assert!(matches!(&script.turns[0], Step::Stream(chunks) if matches!(chunks[..],
        [Chunk::Raw(_), Chunk::Data(_), Chunk::Pause, Chunk::DelayMs(20), Chunk::Cut])));
    assert!(matches!(&script.turns[1], Step::Stream(chunks) if matches!(&chunks[..],
        [Chunk::Comment(c), Chunk::Calls { count: 200, name, arguments }, Chunk::KeepAlive(1000)]
            if c == "ping" && name == "x__y" && arguments == r#"{"n":{n}}"#)));
    assert!(matches!(&script.turns[2], Step::Status(400, _)));
    assert!(matches!(&script.turns[3], Step::Redirect(url) if url == "https://elsewhere/v1"));
    assert!(matches!(&script.turns[4], Step::Hang));
    // A built step is written back in the same spelling.
    let built = serde_json::to_value(openai::text(["x"])).expect("serializes");
    assert!(built["stream"][1]["raw"]["choices"][0]["delta"]["content"] == "x");
    let empty: Script = serde_json::from_str("{}").expect("all optional");
    assert!(matches!(empty.models, ModelsReply::List(ids) if ids.is_empty()));
}
