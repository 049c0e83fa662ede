//! Issue 34, "Bounded answers": every request carries `max_tokens` (the
//! default, or the player's setting), and an answer the server ended at
//! that limit (`finish_reason: "length"`) comes back marked cut. Against
//! the scripted server (real HTTP, real server-sent events).

use dcp_ai::{judge_ai_url, ChatRequest, Connection, Message, Reply, StreamItem};
use scripted_ai::{openai, Script, ScriptedAi, Step, MODEL};

async fn ask(ai: &ScriptedAi, connection: Connection) -> Reply {
    let request =
        ChatRequest { messages: vec![Message::User { content: "hi".into() }], tools: vec![], one_tool_per_step: true };
    let mut stream = connection.chat(&request).await.expect("the answer starts");
    while let Some(item) = stream.next().await {
        if let StreamItem::Done(reply) = item.expect("the answer streams") {
            return reply;
        }
    }
    panic!("no answer from {}", ai.url())
}

fn connect(ai: &ScriptedAi) -> Connection {
    Connection::new(judge_ai_url(&ai.url()).expect("the scripted server's URL"), MODEL.to_owned(), None)
}

/// The request of each turn carries `max_tokens`: the default, then the
/// player's setting.
#[tokio::test]
async fn issue_34_every_request_carries_max_tokens() {
    let ai = ScriptedAi::start(Script::with_turns(vec![openai::text(["a"]), openai::text(["b"])])).await;
    ask(&ai, connect(&ai)).await;
    ask(&ai, connect(&ai).with_max_tokens(300)).await;
    let sent: Vec<_> = ai.received().into_iter().map(|r| r.body["max_tokens"].clone()).collect();
    assert_eq!(sent, [serde_json::json!(Connection::MAX_TOKENS), serde_json::json!(300)]);
}

/// An answer finished with `length` is cut; one finished with `stop` is not.
#[tokio::test]
async fn issue_34_a_length_finish_is_a_cut_answer() {
    let turns: Vec<Step> = vec![openai::cut_text(["Once upon a ti"]), openai::text(["Done."])];
    let ai = ScriptedAi::start(Script::with_turns(turns)).await;
    let cut = ask(&ai, connect(&ai)).await;
    assert_eq!((cut.text.as_str(), cut.cut), ("Once upon a ti", true));
    let whole = ask(&ai, connect(&ai)).await;
    assert_eq!((whole.text.as_str(), whole.cut), ("Done.", false));
}
