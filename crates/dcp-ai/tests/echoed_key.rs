//! Issue 32 "Echoed key printed" (§11, §13): an AI service that echoes the
//! API key it was sent, as written, in upper case, in base64 or in hex, cut
//! across the pieces of its stream, in an error, in the models it lists or
//! in a tool call. Nothing the connection gives (deltas, the reply, an
//! error's message, a model name, a call's arguments) holds any spelling of
//! the key: the vault's masker, the one a plugin's secrets go through, runs
//! over all of it, with the stream's carry-over between pieces.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use dcp_ai::{judge_ai_url, AiError, ChatRequest, Connection, Message, StreamItem};
use dcp_vault::mask::MASK;
use dcp_vault::Sensitive;
use scripted_ai::{openai, Chunk, ModelsReply, Script, ScriptedAi, Step, MODEL};
use serde_json::json;

const KEY: &str = "sk-or-v1-3f9c0a7d5e1b42c8a6d9";

/// The spellings of the key a service commonly echoes.
fn spellings() -> Vec<(&'static str, String)> {
    vec![
        ("plain", KEY.to_owned()),
        ("upper case", KEY.to_uppercase()),
        ("base64", STANDARD.encode(KEY)),
        ("base64 of an echoed header", STANDARD.encode(format!("Bearer {KEY}"))),
        ("hex", hex::encode(KEY)),
        ("upper hex", hex::encode_upper(KEY)),
    ]
}

/// The spelling of the key `text` shows, if any: the key in any case, or
/// a run of base64 or hex that decodes (from any of its first characters)
/// to bytes holding it.
fn shown(text: &str) -> Option<String> {
    if text.to_lowercase().contains(KEY) {
        return Some(format!("the key in {text:?}"));
    }
    let holds_key = |bytes: &[u8]| bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes());
    let sextet = |c: u8| STANDARD_ALPHABET.iter().position(|&a| a == c).map(|v| v as u32);
    let base64 = |run: &[u8]| {
        (0..4.min(run.len())).any(|skip| {
            let (mut bits, mut count, mut out) = (0u32, 0, Vec::new());
            for &c in &run[skip..] {
                bits = (bits << 6) | sextet(c).unwrap_or(0);
                count += 6;
                if count >= 8 {
                    count -= 8;
                    out.push((bits >> count) as u8);
                }
            }
            holds_key(&out)
        })
    };
    let hex = |run: &[u8]| {
        (0..2.min(run.len())).any(|skip| {
            let part = &run[skip..];
            hex::decode(&part[..part.len() / 2 * 2]).is_ok_and(|bytes| holds_key(&bytes))
        })
    };
    let runs = text.as_bytes().split(|&c| sextet(c).is_none());
    runs.filter(|run| !run.is_empty()).any(|run| base64(run) || hex(run)).then(|| format!("an encoded key in {text:?}"))
}

const STANDARD_ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn connect(ai: &ScriptedAi) -> Connection {
    let url = judge_ai_url(&ai.url()).expect("the scripted server's URL");
    Connection::new(url, MODEL.to_owned(), Some(Sensitive::from(KEY)))
}

fn ask() -> ChatRequest {
    ChatRequest { messages: vec![Message::User { content: "hello".into() }], tools: vec![], one_tool_per_step: true }
}

/// `text` in pieces of `size` characters.
fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|piece| piece.iter().collect()).collect()
}

/// Issue 32: each spelling of the key, cut across the stream's pieces at
/// every size from one character to seven, is never in a delta nor in the
/// reply, whose text is still exactly the deltas joined, with `[secret]`
/// where the key was.
#[tokio::test]
async fn s11_issue32_a_key_echoed_across_stream_pieces_is_masked_in_every_delta_and_the_reply() {
    let mut turns = Vec::new();
    let mut cases = Vec::new();
    for (name, spelled) in spellings() {
        let said = format!("Your key is {spelled}, keep it safe.");
        assert!(shown(&said).is_some(), "the check sees the {name} echo");
        for size in 1..=7 {
            turns.push(openai::text(pieces(&said, size)));
            cases.push((name, size));
        }
    }
    let ai = ScriptedAi::start(Script::with_turns(turns)).await;
    let connection = connect(&ai);
    for (name, size) in cases {
        let mut stream = connection.chat(&ask()).await.expect("the chat request");
        let mut deltas = String::new();
        let reply = loop {
            match stream.next().await.expect("an item") {
                Ok(StreamItem::Delta(delta)) => {
                    assert_eq!(shown(&delta), None, "{name} in pieces of {size}");
                    deltas.push_str(&delta);
                }
                Ok(StreamItem::Done(reply)) => break reply,
                Err(e) => panic!("{name}: {e}"),
            }
        };
        assert_eq!(shown(&deltas), None, "{name} in pieces of {size}: the deltas joined");
        assert_eq!(reply.text, deltas, "the reply's text is the deltas joined");
        assert!(reply.text.starts_with("Your key is ") && reply.text.contains(MASK), "{name}: {}", reply.text);
        assert!(reply.text.ends_with(", keep it safe."), "{name}: what is held is given at the end");
    }
}

/// Issue 32: a service's error (an HTTP error's body, an error inside the
/// stream, a model it does not know), the models it lists and a tool call's
/// name and arguments echo the key: none of them shows it.
#[tokio::test]
async fn s11_issue32_a_key_echoed_in_errors_models_and_tool_calls_is_masked() {
    let all: Vec<String> = spellings().into_iter().map(|(_, spelled)| spelled).collect();
    let echo = format!("Incorrect API key provided: {}", all.join(" / "));
    assert!(shown(&echo).is_some(), "the check sees the echo");
    let arguments = json!({"note": format!("remember {}", all.join(" "))}).to_string();
    let mut in_stream = openai::text_chunks(["Hel", "lo"]);
    in_stream.push(Chunk::Raw(json!({"error": {"message": echo}})));
    let ai = ScriptedAi::start(Script {
        models: ModelsReply::List(vec![MODEL.into(), format!("{}-{}", MODEL, KEY.to_uppercase())]),
        turns: vec![
            openai::error(500, &echo),
            Step::Stream(in_stream),
            openai::error(404, &format!("The model `{MODEL}` does not exist for key {}", hex::encode(KEY))),
            openai::tool_calls(&[("call_1", &format!("notes__add_{KEY}"), &arguments)], 5),
        ],
    })
    .await;
    let connection = connect(&ai);

    let errors = [
        connection.chat(&ask()).await.expect_err("HTTP 500"),
        drain_error(connection.chat(&ask()).await.expect("a stream")).await,
        connection.chat(&ask()).await.expect_err("HTTP 404"),
    ];
    assert!(matches!(errors[0], AiError::Http { status: 500, .. }), "{:?}", errors[0]);
    assert!(matches!(errors[2], AiError::ModelUnknown { .. }), "{:?}", errors[2]);
    for error in &errors {
        let message = error.to_string();
        assert_eq!(shown(&message), None, "{:?}", error.code());
        assert!(message.contains(MASK), "{message}");
    }

    let models = connection.models().await.expect("models");
    assert_eq!(models, [MODEL.to_owned(), format!("{MODEL}-{MASK}")]);

    let mut stream = connection.chat(&ask()).await.expect("the chat request");
    let reply = loop {
        match stream.next().await.expect("an item").expect("no error") {
            StreamItem::Done(reply) => break reply,
            StreamItem::Delta(_) => {}
        }
    };
    let call = &reply.tool_calls[0];
    assert_eq!(call.name, format!("notes__add_{MASK}"));
    let parsed = call.arguments.parse().expect("the arguments are still JSON");
    let note = parsed["note"].as_str().expect("the note");
    assert_eq!(shown(note), None);
    assert!(note.starts_with("remember ") && note.contains(MASK), "{note}");
}

async fn drain_error(mut stream: dcp_ai::ChatStream) -> AiError {
    loop {
        match stream.next().await.expect("an item") {
            Ok(StreamItem::Delta(delta)) => assert_eq!(shown(&delta), None),
            Ok(StreamItem::Done(reply)) => panic!("an error was expected, got {reply:?}"),
            Err(error) => return error,
        }
    }
}
