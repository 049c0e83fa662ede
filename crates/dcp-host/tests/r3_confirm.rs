//! R3, serious actions confirmed every time (§12, issue 22), through the
//! host with a real profile and a real program on the PC: an R3 action is
//! offered only where the player can be asked on a voice or keyboard turn;
//! before its request is sent the player sees exactly that request
//! (secrets as `[secret]`); only a yes sends it, and a no or no answer
//! sends nothing and is refused `declined`; the journal line says which.

mod common;

use common::*;
use dcp_format::codes::{CallCode, Refusal, SpecCode, ToolCode};
use dcp_host::{
    Answer, Ask, Decision, Host, JournalOutcome, JournalValue, Model, Question, Source, TriedAction, Turn,
    ANSWER_WITHIN,
};
use serde_json::{json, Value};
use std::io::Write;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const NOTE: &str = "feed the cat";

fn turn(source: Source, can_confirm: bool) -> Turn {
    Turn { can_confirm, ..Turn::new(source, Model::Local) }
}

/// Every request a program on the PC received, as its request line, its
/// `Authorization` header and its body, each answered `{"saved":true}`.
type Seen = Arc<Mutex<Vec<(String, Option<String>, String)>>>;

fn recording_server() -> (u16, Seen) {
    let (listener, port) = loop {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        if dcp_format::hosts::reserved_port(port).is_none() {
            break (listener, port);
        }
    };
    let seen: Seen = Arc::default();
    let kept = seen.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let request = read_request(&stream);
            kept.lock().expect("seen").push((request.line, request.authorization, request.body));
            let answer = r#"{"saved":true,"notes":1}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    (port, seen)
}

/// The local-server example with one more action, R3 by its side effects.
fn manifest(port: u16) -> Value {
    let mut m = example_on_port("local-server", port);
    m["_meta"]["com.desktopaicompanion"]["tools"]["send_note"] = json!({
        "description": "Send a note from the user's computer to their family, through a small program running on it.",
        "hint": {"en": "send a note to your family", "fr": "envoyer un mot à votre famille"},
        "sideEffects": "irreversible",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Text of the note", "maxLength": 500}},
            "required": ["text"]
        },
        "request": {"method": "POST", "url": format!("http://127.0.0.1:{port}/send"), "body": {"text": "{{text}}"}},
        "response": {"pick": ["saved"]}
    });
    m
}

async fn setup() -> (Fixture, Seen, u16) {
    let f = fixture();
    dev_mode(&f.host, true).await;
    let (port, seen) = recording_server();
    install_manifest(&f.host, f.dir.path(), "mypc", &manifest(port), with_token()).await;
    (f, seen, port)
}

/// A player who answers `decision` at once, or never (`None`), within
/// `within`; every question asked is kept.
struct Player {
    decision: Option<Decision>,
    within: Duration,
    asked: Mutex<Vec<Question>>,
}

impl Player {
    fn answering(decision: Option<Decision>) -> Arc<Player> {
        Arc::new(Player { decision, within: Duration::from_millis(200), asked: Mutex::default() })
    }

    fn asked(&self) -> Vec<Question> {
        self.asked.lock().expect("asked").clone()
    }
}

impl Ask for Player {
    fn confirm(&self, question: Question) -> Answer<'_> {
        self.asked.lock().expect("asked").push(question);
        let decision = self.decision;
        Box::pin(async move {
            match decision {
                Some(decision) => decision,
                None => std::future::pending().await,
            }
        })
    }

    fn within(&self) -> Duration {
        self.within
    }
}

async fn send_note(host: &Host, player: Arc<Player>) -> TriedAction {
    host.call_asking(turn(Source::Voice, true), "mypc__send_note", json!({"text": NOTE}), player).await.expect("call")
}

/// The latest journal line.
async fn last_line(host: &Host) -> dcp_host::JournalLine {
    host.journal(dcp_host::JournalQuery { limit: 1, ..Default::default() }).await.expect("journal").remove(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_r3_is_offered_only_where_the_player_can_be_asked_on_their_own_turn() {
    let (f, _seen, _) = setup().await;
    let offered = |t: Turn| {
        let host = f.host.clone();
        async move {
            let offer = host.offer(t).await.expect("offer");
            let on = offer.tools.iter().any(|t| t.name == "mypc__send_note");
            let why = offer.left_out.iter().find(|l| l.tool.as_deref() == Some("send_note")).map(|l| l.reason);
            (on, why)
        }
    };
    for source in [Source::Voice, Source::Keyboard] {
        assert_eq!(offered(turn(source, true)).await, (true, None), "{source}: asked, so offered");
        assert_eq!(offered(turn(source, false)).await, (false, Some("needs_confirmation")), "{source}: no one to ask");
    }
    assert_eq!(offered(turn(Source::Twitch, true)).await, (false, Some("needs_confirmation")));
    for source in [Source::Auto, Source::Event] {
        assert!(!offered(turn(source, true)).await.0, "{source}: never reaches R3");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_a_yes_sends_exactly_the_request_the_player_saw_secrets_as_secret() {
    let (f, seen, port) = setup().await;
    f.host
        .set_switches(dcp_host::SwitchesPatch { language: Some("fr".into()), ..Default::default() })
        .await
        .expect("language");
    let player = Player::answering(Some(Decision::Confirmed));
    let tried = send_note(&f.host, player.clone()).await;
    assert_eq!(tried.outcome.outcome, JournalOutcome::Done, "{}", tried.outcome.for_ai);
    assert_eq!(tried.confirmation, Some(Decision::Confirmed));

    let asked = player.asked();
    assert_eq!(asked.len(), 1, "asked once");
    let q = &asked[0];
    assert_eq!(
        (q.plugin.as_str(), q.plugin_name.as_str(), q.tool.as_str()),
        ("mypc", "My PC (local server)", "send_note")
    );
    assert_eq!(q.hint, "envoyer un mot à votre famille", "in the player's language");
    assert_eq!((q.request.method, q.request.url.as_str()), ("POST", format!("http://127.0.0.1:{port}/send").as_str()));
    let body: Value = serde_json::from_str(q.request.body.as_deref().expect("a body")).expect("JSON");
    assert_eq!(body, json!({"text": NOTE}));
    let shown_auth = q.request.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("authorization")).map(|(_, v)| v);
    assert_eq!(shown_auth.map(String::as_str), Some("[secret]"), "the credential as sent, hidden whole");
    assert!(!serde_json::to_string(q).expect("JSON").contains(TOKEN), "no secret in the question");

    let seen = seen.lock().expect("seen").clone();
    assert_eq!(seen.len(), 1, "sent once");
    let (line, authorization, sent_body) = &seen[0];
    assert_eq!(line, "POST /send HTTP/1.1");
    assert_eq!(authorization.as_deref(), Some(format!("Bearer {TOKEN}").as_str()));
    assert_eq!(serde_json::from_str::<Value>(sent_body).expect("JSON"), body, "the body shown is the body sent");

    let line = last_line(&f.host).await;
    assert_eq!(line.confirmation, Some(JournalValue::Known(Decision::Confirmed)));
    assert_eq!(line.outcome, JournalValue::Known(JournalOutcome::Done));
}

/// A no, or no answer in time, sends nothing; the same server does see the
/// next call, so nothing was lost on the way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_a_no_or_no_answer_sends_nothing_and_is_refused_declined() {
    assert_eq!(ANSWER_WITHIN, Duration::from_secs(60), "the issue's limit");
    let (f, seen, _) = setup().await;
    for decision in [Some(Decision::Declined), None] {
        let player = Player::answering(decision);
        let tried = send_note(&f.host, player.clone()).await;
        let expected = decision.unwrap_or(Decision::Expired);
        let o = &tried.outcome;
        assert_eq!(
            (o.outcome, o.code, o.reason, tried.confirmation),
            (
                JournalOutcome::Refused,
                Some(ToolCode::Call(CallCode::PolicyDenied)),
                Some(Refusal::Declined),
                Some(expected)
            )
        );
        assert!(o.for_ai.starts_with("POLICY_DENIED (declined): "), "{}", o.for_ai);
        assert!(tried.sent.is_none(), "nothing sent");
        assert_eq!(player.asked().len(), 1, "{expected}: asked");
        let line = last_line(&f.host).await;
        assert_eq!(
            (line.code, line.confirmation),
            (Some(JournalValue::Known(SpecCode::Refusal(Refusal::Declined))), Some(JournalValue::Known(expected)))
        );
    }
    assert!(seen.lock().expect("seen").is_empty(), "nothing reached the server");
    let done = f.host.call(turn(Source::Voice, false), "mypc__get_time", json!({})).await.expect("call");
    assert_eq!(done.outcome, JournalOutcome::Done, "{}", done.for_ai);
    assert_eq!(seen.lock().expect("seen").len(), 1, "the server would have seen a request");
}

/// `Host::call` asks no one: an R3 action stays refused, whatever the turn says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_a_call_with_no_one_to_ask_is_refused_needs_confirmation() {
    let (f, seen, _) = setup().await;
    let o = f.host.call(turn(Source::Voice, true), "mypc__send_note", json!({"text": NOTE})).await.expect("call");
    assert_eq!((o.outcome, o.reason), (JournalOutcome::Refused, Some(Refusal::NeedsConfirmation)));
    assert!(seen.lock().expect("seen").is_empty());
    assert_eq!(last_line(&f.host).await.confirmation, None);
}
