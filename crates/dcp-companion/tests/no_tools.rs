//! "This model cannot use tools" said once in a conversation (issue 34):
//! the AI's server on this PC (the scripted AI with llama.cpp's `/props`)
//! says its model cannot use tools; the first turn offering plugins gets
//! one `no_tools` line, later turns none, and a new conversation or another
//! AI asks and says it again. A turn offering no plugin asks nothing.

#[path = "../../dcp-host/tests/common/mod.rs"]
mod common;

use common::{dev_mode, example_on_port, fixture, free_port, install_manifest, pc_server, with_token};
use dcp_ai::{judge_ai_url, Connection, PcServer};
use dcp_companion::{CancellationToken, Companion, Said, TurnEvent};
use dcp_host::Source;
use scripted_ai::{llamacpp, openai, Options, Script, ScriptedAi, MODEL};

/// The scripted AI on this PC answering `replies` plain answers, its
/// `/props` saying whether the model can use tools.
fn llama_cpp(replies: usize, supports_tools: bool) -> ScriptedAi {
    let turns = (0..replies).map(|_| openai::text(["Hi."])).collect();
    let options = Options { routes: vec![llamacpp::props(supports_tools)], ..Options::default() };
    ScriptedAi::launch(Script::with_turns(turns), options).expect("scripted-ai starts")
}

fn connection(ai: &ScriptedAi) -> Connection {
    Connection::new(judge_ai_url(&ai.url()).expect("on this PC"), MODEL.into(), None)
}

/// The `no_tools` lines of one turn.
async fn no_tools_lines(companion: &mut Companion) -> Vec<TurnEvent> {
    let said = Said { source: Source::Keyboard, live: false, text: "hello".into() };
    let mut lines = Vec::new();
    let ended = companion.say(said, None, CancellationToken::new()).finish(|e| lines.push(e)).await;
    assert!(ended.is_ok(), "{ended:?}");
    lines.retain(|l| matches!(l, TurnEvent::NoTools { .. }));
    lines
}

fn props_asked(ai: &ScriptedAi) -> usize {
    ai.received().iter().filter(|r| r.path == "/props").count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue34_said_once_and_again_after_a_new_conversation_or_another_ai() {
    let f = fixture();
    dev_mode(&f.host, true).await;
    let ai = llama_cpp(5, false);
    let mut companion = Companion::new(f.host.clone(), connection(&ai));
    assert_eq!(no_tools_lines(&mut companion).await, [], "no plugin offered: nothing said, nothing asked");
    assert_eq!(props_asked(&ai), 0);

    let pc = pc_server(free_port(), "{}");
    install_manifest(&f.host, f.dir.path(), "mypc", &example_on_port("local-server", pc.port), with_token()).await;
    let said = [TurnEvent::NoTools { server: PcServer::LlamaCpp }];
    assert_eq!(no_tools_lines(&mut companion).await, said, "the first turn offering plugins");
    assert_eq!(no_tools_lines(&mut companion).await, [], "said once");
    assert_eq!(props_asked(&ai), 1, "asked once");
    companion.new_conversation();
    assert_eq!(no_tools_lines(&mut companion).await, said, "a new conversation is told again");
    assert_eq!(props_asked(&ai), 2);

    let other = llama_cpp(1, false);
    companion.set_connection(connection(&other));
    assert_eq!(no_tools_lines(&mut companion).await, said, "another AI is asked, and said");
    assert_eq!(props_asked(&other), 1);
}

/// A server of this PC that does not say whether its model can use tools:
/// the turn asks the server's own API only, and sends no probe (the
/// player's test of the AI does, `Connection::probe_tools`): the chat
/// requests it received are the turn's alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue34_a_turn_sends_no_probe_to_a_server_that_does_not_say() {
    let f = fixture();
    dev_mode(&f.host, true).await;
    let pc = pc_server(free_port(), "{}");
    install_manifest(&f.host, f.dir.path(), "mypc", &example_on_port("local-server", pc.port), with_token()).await;
    let ai = ScriptedAi::launch(Script::with_turns(vec![openai::text(["Hi."])]), Options::default())
        .expect("scripted-ai starts");
    let mut companion = Companion::new(f.host.clone(), connection(&ai));
    assert_eq!(no_tools_lines(&mut companion).await, [], "unknown: nothing said");
    let chats = ai.chats();
    assert_eq!(
        chats.len(),
        1,
        "the turn's request only: {:?}",
        chats.iter().map(|c| c.tool_names()).collect::<Vec<_>>()
    );
    assert_eq!(chats[0].body["stream"], true);
    assert!(chats[0].tool_names().iter().all(|name| name.starts_with("mypc__")), "{:?}", chats[0].tool_names());
    assert!(ai.received().iter().any(|r| r.path == "/props"), "the server's own API was asked");
}

/// The window's own look as its AI settings open (`ai_test(false)`) sends no
/// probe, as it may load the model; the player's Test (`ai_test(true)`) does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue34_only_the_players_test_sends_the_probe() {
    let f = fixture();
    let call = openai::completion(None, &[("call_1", "probe", "{}")]);
    let ai = ScriptedAi::launch(Script::with_turns(vec![call]), Options::default()).expect("scripted-ai starts");
    f.host.set_ai(Some(ai.url()), Some(MODEL.into())).await.expect("the AI is set");

    let look = f.host.ai_test(false).await.expect("the look");
    assert!(look.ok, "{look:?}");
    assert_eq!((look.tools, look.probed), (None, false), "{look:?}");
    assert!(ai.received().iter().any(|r| r.path == "/props"), "the server's own API was asked");
    assert_eq!(ai.chats().len(), 0, "no chat request for the look");

    let test = f.host.ai_test(true).await.expect("the Test");
    assert_eq!((test.tools, test.probed), (Some(true), true), "{test:?}");
    assert_eq!(ai.chats().len(), 1, "one probe");
}
