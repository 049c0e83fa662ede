//! Issue 32, "Bounded turns, whatever the AI sends": an answer ends within
//! its limit even when the AI keeps the stream open with keep-alive
//! comments, keep-alives are no progress, and an answer of 100,000 tool
//! calls keeps [`CALLS_PER_ANSWER`] of them. Against the scripted server
//! (real HTTP, real server-sent events); the limits are made short instead
//! of waiting, and each test has a guard that fails it if the answer never
//! ends (what happened before the fix).

use std::time::Duration;

use dcp_ai::{judge_ai_url, AiError, ChatRequest, Connection, Limits, Message, Reply, StreamItem};
use dcp_format::limits::CALLS_PER_ANSWER;
use scripted_ai::{openai, Chunk, Script, ScriptedAi, Step, MODEL};

/// What fails a test whose answer never ends.
const GUARD: Duration = Duration::from_secs(60);

fn connect(ai: &ScriptedAi, limits: Limits) -> Connection {
    let url = judge_ai_url(&ai.url()).expect("the scripted server's URL");
    Connection::new(url, MODEL.to_owned(), None).with_limits(limits)
}

fn ask() -> ChatRequest {
    ChatRequest { messages: vec![Message::User { content: "hi".into() }], tools: vec![], one_tool_per_step: true }
}

/// The stream read to its end: the deltas, then the reply or the error.
async fn answer(connection: &Connection) -> (Vec<String>, Result<Reply, AiError>) {
    let read = async {
        let mut stream = connection.chat(&ask()).await?;
        let mut deltas = Vec::new();
        while let Some(item) = stream.next().await {
            match item? {
                StreamItem::Delta(text) => deltas.push(text),
                StreamItem::Done(reply) => return Ok((deltas, reply)),
            }
        }
        panic!("the stream ended without Done or an error")
    };
    match tokio::time::timeout(GUARD, read).await.expect("the answer ended") {
        Ok((deltas, reply)) => (deltas, Ok(reply)),
        Err(error) => (Vec::new(), Err(error)),
    }
}

/// The URL of a scripted AI sending a word, then `: ping` every 10 ms,
/// never `[DONE]`, and the error its answer ends with under `limits`.
async fn keep_alive_ends(limits: Limits) -> (String, AiError) {
    let mut chunks = openai::text_chunks(["Hel"]);
    chunks.push(Chunk::Comment("keep-alive".into()));
    chunks.push(Chunk::KeepAlive(10));
    let ai = ScriptedAi::start(Script::with_turns(vec![Step::Stream(chunks)])).await;
    let (_, result) = answer(&connect(&ai, limits)).await;
    (ai.url(), result.expect_err("a stream that never ends is no answer"))
}

/// Issue 32: a stream kept open by a comment every few milliseconds ends
/// at [`Limits::answer`] with `ai_turn_too_long`, though no gap between
/// two comments comes near the other limits.
#[tokio::test]
async fn issue_32_a_keep_alive_stream_ends_at_the_answer_limit() {
    let limit = Duration::from_millis(400);
    let (url, error) = keep_alive_ends(Limits { answer: limit, ..Limits::DEFAULT }).await;
    assert_eq!(error.code(), "ai_turn_too_long");
    assert_eq!(error, AiError::TurnTooLong { url, limit });
}

/// Issue 32: keep-alive comments are no progress: once the answer has
/// begun, a stream of comments alone ends at [`Limits::between_chunks`]
/// (`ai_timeout`), well before the answer's own limit.
#[tokio::test]
async fn issue_32_keep_alive_comments_do_not_reset_the_silence_limit() {
    let quiet = Duration::from_millis(300);
    let (url, error) = keep_alive_ends(Limits { between_chunks: quiet, ..Limits::DEFAULT }).await;
    assert_eq!(error, AiError::Timeout { url, waited: quiet });
}

/// Issue 32: 100,000 tool calls with ids in one answer (about 10 MB, under
/// the 16 MB cap): [`CALLS_PER_ANSWER`] are kept, in order, the others
/// only counted. (Its time is the bench's, `benches/assemble.rs`.)
#[tokio::test]
async fn issue_32_an_answer_of_100000_calls_keeps_the_first_32() {
    let count = 100_000;
    let calls = Chunk::Calls { count, name: "fx__convert".into(), arguments: r#"{"n":{n}}"#.into() };
    let ai = ScriptedAi::start(Script::with_turns(vec![Step::Stream(vec![calls])])).await;
    let (_, result) = answer(&connect(&ai, Limits::DEFAULT)).await;
    let reply = result.expect("an answer");
    assert_eq!(reply.tool_calls.len(), CALLS_PER_ANSWER);
    assert_eq!(reply.dropped_calls, count - CALLS_PER_ANSWER);
    let ids: Vec<String> = reply.tool_calls.iter().map(|c| c.id.clone()).collect();
    let first: Vec<String> = (0..CALLS_PER_ANSWER).map(|n| format!("call_{n}")).collect();
    assert_eq!(ids, first);
    assert_eq!(reply.tool_calls[31].arguments.parse(), Ok(serde_json::json!({"n": 31})));
}
