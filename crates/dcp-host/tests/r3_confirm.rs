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
    Answer, Ask, Decision, Host, JournalOutcome, JournalValue, Place, Question, Source, TriedAction, Turn,
    ANSWER_WITHIN,
};
use serde_json::{json, Value};
use std::io::Write;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const NOTE: &str = "feed the cat";

fn turn(source: Source, can_confirm: bool) -> Turn {
    Turn { can_confirm, ..Turn::new(source, Place::Pc) }
}

/// Every request a program on the PC received, as its request line, its
/// `Authorization` header and its body, each answered `{"saved":true}`.
type Seen = Arc<Mutex<Vec<(String, Option<String>, String)>>>;

fn recording_server() -> (u16, Seen) {
    recording_server_redirecting(None)
}

/// [`recording_server`], answering `POST /send` with the redirect
/// `(status, location)` when one is given.
fn recording_server_redirecting(redirect: Option<(u16, String)>) -> (u16, Seen) {
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
            let redirected = redirect.as_ref().filter(|_| request.line.starts_with("POST /send "));
            kept.lock().expect("seen").push((request.line, request.authorization, request.body));
            if let Some((status, location)) = redirected {
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                continue;
            }
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

async fn send_note(host: &Host, player: Arc<impl Ask + 'static>) -> TriedAction {
    host.call_asking(turn(Source::Voice, true), "mypc__send_note", json!({"text": NOTE}), Some(player))
        .await
        .expect("call")
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
            let why = offer.left_out.iter().find(|l| l.tool.as_deref() == Some("send_note")).map(|l| l.reason.as_str());
            (on, why)
        }
    };
    for source in [Source::Voice, Source::Keyboard] {
        assert_eq!(offered(turn(source, true)).await, (true, None), "{source}: asked, so offered");
        assert_eq!(offered(turn(source, false)).await, (false, Some("needs_confirmation")), "{source}: no one to ask");
    }
    // Issue 36: the chat hears its own rule.
    assert_eq!(offered(turn(Source::Twitch, true)).await, (false, Some("twitch_level")));
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
/// next call, so nothing was lost on the way. No answer is refused
/// `expired`, not `declined`: nobody declined (issue 34).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_a_no_or_no_answer_sends_nothing_and_is_refused_declined_or_expired() {
    assert_eq!(ANSWER_WITHIN, Duration::from_secs(60), "the issue's limit");
    let (f, seen, _) = setup().await;
    for decision in [Some(Decision::Declined), None] {
        let player = Player::answering(decision);
        let tried = send_note(&f.host, player.clone()).await;
        let expected = decision.unwrap_or(Decision::Expired);
        let reason = if decision.is_some() { Refusal::Declined } else { Refusal::Expired };
        let o = &tried.outcome;
        assert_eq!(
            (o.outcome, o.code, o.reason, tried.confirmation),
            (JournalOutcome::Refused, Some(ToolCode::Call(CallCode::PolicyDenied)), Some(reason), Some(expected))
        );
        assert_eq!(o.for_ai, format!("POLICY_DENIED ({reason}): {}", reason.for_ai()));
        assert!(tried.sent.is_none(), "nothing sent");
        assert_eq!(player.asked().len(), 1, "{expected}: asked");
        let line = last_line(&f.host).await;
        assert_eq!(
            (line.code, line.confirmation),
            (Some(JournalValue::Known(SpecCode::Refusal(reason))), Some(JournalValue::Known(expected)))
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

// ------------------------------------------------------------ judged again (issue 32)

/// The R3 manifest with a setting in its action's URL (`/send/{{config.box}}`,
/// `family` by default), so that a setting can change what a yes would send.
fn manifest_with_box(port: u16) -> Value {
    let mut m = manifest(port);
    m["user_config"]["box"] = json!({
        "type": "string", "title": "Box", "description": "Where the notes go.", "default": "family", "maxLength": 20
    });
    m["_meta"]["com.desktopaicompanion"]["tools"]["send_note"]["request"]["url"] =
        json!(format!("http://127.0.0.1:{port}/send/{{{{config.box}}}}"));
    m
}

/// Two hosts on one profile, as the window and `dcplugin` in two
/// processes: a change made through `other` reaches `host` only by the
/// profile (no event on `host`'s stream). The R3 plugin installed, its
/// program on the PC recording what it receives.
struct TwoHosts {
    _dir: tempfile::TempDir,
    host: Host,
    other: Host,
    seen: Seen,
}

async fn two_hosts() -> TwoHosts {
    let dir = tempfile::tempdir().expect("temp dir");
    let keys: Arc<dyn dcp_vault::KeyStore> = Arc::new(dcp_vault::testing::MemoryKeyStore::new());
    let open = || {
        Host::open(dcp_host::HostOptions {
            profile: Some(dir.path().join("profile")),
            key_store: Some(keys.clone()),
            door_port: Some(free_port()),
            ..Default::default()
        })
        .expect("host opens")
    };
    let (host, other) = (open(), open());
    dev_mode(&host, true).await;
    let (port, seen) = recording_server();
    install_manifest(&host, dir.path(), "mypc", &manifest_with_box(port), with_token()).await;
    TwoHosts { _dir: dir, host, other, seen }
}

/// What changes while the question waits.
#[derive(Debug, Clone, Copy)]
enum Flip {
    /// The same setting saved again: the card changes, the question does not.
    SameSetting,
    PluginOff,
    ActionOff,
    ToolsOff,
    DevModeOff,
    Uninstall,
    /// The box setting: the URL a yes would send to is another.
    Setting,
}

impl Flip {
    const ALL: [Flip; 7] = [
        Flip::SameSetting,
        Flip::PluginOff,
        Flip::ActionOff,
        Flip::ToolsOff,
        Flip::DevModeOff,
        Flip::Uninstall,
        Flip::Setting,
    ];

    async fn on(self, host: &Host) {
        let patch = |p: dcp_host::SwitchesPatch| async move { host.set_switches(p).await.expect("switches") };
        let box_to = |to: &str| host.save_settings("mypc", vec![("box".into(), json!(to))]);
        match self {
            Flip::SameSetting => drop(box_to("family").await.expect("saved")),
            Flip::PluginOff => drop(host.set_enabled("mypc", false).await.expect("off")),
            Flip::ActionOff => drop(host.set_action_enabled("mypc", "send_note", false).await.expect("off")),
            Flip::ToolsOff => {
                let _ = patch(dcp_host::SwitchesPatch { tools_enabled: Some(false), ..Default::default() }).await;
            }
            Flip::DevModeOff => dev_mode(host, false).await,
            Flip::Uninstall => host.uninstall("mypc").await.expect("uninstalled"),
            Flip::Setting => drop(box_to("everyone").await.expect("saved")),
        }
    }

    /// The refusal a call asked before this change gets after it; none:
    /// it still sends.
    fn refusal(self) -> Option<Refusal> {
        match self {
            Flip::SameSetting => None,
            Flip::PluginOff | Flip::ActionOff => Some(Refusal::PluginOff),
            Flip::ToolsOff => Some(Refusal::ToolsOff),
            Flip::DevModeOff => Some(Refusal::DevModeOff),
            Flip::Uninstall => Some(Refusal::UnknownTool),
            Flip::Setting => Some(Refusal::Changed),
        }
    }
}

/// A player the test answers for: it learns when the question is shown
/// (`shown`), answers when it chooses (`answer`), and learns when the host
/// stopped waiting, answered or not (`over`: the asker's future dropped,
/// which is when the window tells its page `Over`).
struct Waiting {
    shown: Mutex<Option<tokio::sync::oneshot::Sender<Question>>>,
    answer: Mutex<Option<tokio::sync::oneshot::Receiver<Decision>>>,
    over: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

struct Handles {
    shown: tokio::sync::oneshot::Receiver<Question>,
    answer: tokio::sync::oneshot::Sender<Decision>,
    over: tokio::sync::oneshot::Receiver<()>,
}

impl Waiting {
    fn new() -> (Arc<Waiting>, Handles) {
        let (shown_tx, shown) = tokio::sync::oneshot::channel();
        let (answer, answer_rx) = tokio::sync::oneshot::channel();
        let (over_tx, over) = tokio::sync::oneshot::channel();
        let player = Waiting {
            shown: Mutex::new(Some(shown_tx)),
            answer: Mutex::new(Some(answer_rx)),
            over: Mutex::new(Some(over_tx)),
        };
        (Arc::new(player), Handles { shown, answer, over })
    }
}

/// Tells `over` when dropped: the host no longer waits for the answer.
struct Over(Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for Over {
    fn drop(&mut self) {
        if let Some(over) = self.0.take() {
            let _ = over.send(());
        }
    }
}

impl Ask for Waiting {
    fn confirm(&self, question: Question) -> Answer<'_> {
        let _ = self.shown.lock().expect("shown").take().expect("asked once").send(question);
        let answer = self.answer.lock().expect("answer").take().expect("asked once");
        let over = Over(self.over.lock().expect("over").take());
        Box::pin(async move {
            let _over = over;
            answer.await.unwrap_or(Decision::Declined)
        })
    }

    fn within(&self) -> Duration {
        Duration::from_secs(30)
    }
}

const WAIT: Duration = Duration::from_secs(10);

/// The R3 call of `host` running, its question shown to `player`.
async fn asked(
    host: &Host,
    player: Arc<Waiting>,
    shown: tokio::sync::oneshot::Receiver<Question>,
) -> tokio::task::JoinHandle<TriedAction> {
    let host = host.clone();
    let call = tokio::spawn(async move { send_note(&host, player).await });
    let question = tokio::time::timeout(WAIT, shown).await.expect("asked in time").expect("asked");
    assert!(question.request.url.ends_with("/send/family"), "{}", question.request.url);
    call
}

/// Issue 32, §12 "confirmed every time": a yes counts for the question the
/// player saw. Changed by another process while they were asked (no event
/// reaches this host: only judging the call again after the yes sees it),
/// the plugin off, its action off, tools off, developer mode off (a plugin
/// on the PC), the plugin uninstalled (its secret deleted), or a setting
/// that changes the URL: the yes sends nothing, the call is refused with
/// the reason the courtier gives now (`changed` for another URL), and the
/// journal line says the yes and the refusal. The control (the same
/// setting saved again) proves the server counts what a yes sends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_issue32_a_yes_is_judged_again_and_sends_nothing_once_the_plugin_changed() {
    for flip in Flip::ALL {
        let t = two_hosts().await;
        let (player, handles) = Waiting::new();
        let call = asked(&t.host, player, handles.shown).await;
        flip.on(&t.other).await;
        handles.answer.send(Decision::Confirmed).expect("still asked");
        let tried = tokio::time::timeout(WAIT, call).await.expect("ends").expect("call");
        let o = &tried.outcome;
        assert_eq!(tried.confirmation, Some(Decision::Confirmed), "{flip:?}");
        let line = last_line(&t.host).await;
        assert_eq!(line.confirmation, Some(JournalValue::Known(Decision::Confirmed)), "{flip:?}");
        let seen = t.seen.lock().expect("seen").clone();
        match flip.refusal() {
            None => {
                assert_eq!(o.outcome, JournalOutcome::Done, "{flip:?}: {}", o.for_ai);
                assert_eq!(seen.len(), 1, "{flip:?}: the server counts what a yes sends");
                assert_eq!(seen[0].0, "POST /send/family HTTP/1.1");
            }
            Some(reason) => {
                assert_eq!(
                    (o.outcome, o.code, o.reason),
                    (JournalOutcome::Refused, Some(ToolCode::Call(CallCode::PolicyDenied)), Some(reason)),
                    "{flip:?}: {}",
                    o.for_ai
                );
                assert!(tried.sent.is_none(), "{flip:?}");
                assert!(seen.is_empty(), "{flip:?}: nothing reached the server: {seen:?}");
                assert_eq!(line.code, Some(JournalValue::Known(SpecCode::Refusal(reason))), "{flip:?}");
                assert_eq!(line.outcome, JournalValue::Known(JournalOutcome::Refused), "{flip:?}");
            }
        }
    }
}

/// Issue 32: a change of the plugin made through the host while its
/// question waits withdraws the question at once, before any answer: the
/// host stops waiting (the asker's future is dropped, so the window closes
/// its dialog), the call is refused with the courtier's reason (or
/// `changed`), with no answer in its outcome or journal line, and nothing
/// is sent. The control: the same setting saved again is judged again and
/// leaves the question open (a later yes sends it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_issue32_a_change_while_the_question_waits_withdraws_it() {
    for flip in Flip::ALL {
        let t = two_hosts().await;
        let (player, handles) = Waiting::new();
        let call = asked(&t.host, player, handles.shown).await;
        flip.on(&t.host).await;
        let Some(reason) = flip.refusal() else {
            handles.answer.send(Decision::Confirmed).expect("the question is still open");
            let tried = tokio::time::timeout(WAIT, call).await.expect("ends").expect("call");
            assert_eq!(tried.outcome.outcome, JournalOutcome::Done, "{}", tried.outcome.for_ai);
            assert_eq!(t.seen.lock().expect("seen").len(), 1, "sent once");
            continue;
        };
        tokio::time::timeout(WAIT, handles.over).await.expect("withdrawn in time").expect("over told");
        let tried = tokio::time::timeout(WAIT, call).await.expect("ends").expect("call");
        let o = &tried.outcome;
        assert_eq!(
            (o.outcome, o.reason, tried.confirmation),
            (JournalOutcome::Refused, Some(reason), None),
            "{flip:?}: {}",
            o.for_ai
        );
        assert!(handles.answer.send(Decision::Confirmed).is_err(), "{flip:?}: no one waits for an answer");
        assert!(t.seen.lock().expect("seen").is_empty(), "{flip:?}: nothing reached the server");
        let line = last_line(&t.host).await;
        assert_eq!(
            (line.code, line.confirmation),
            (Some(JournalValue::Known(SpecCode::Refusal(reason))), None),
            "{flip:?}"
        );
    }
}

// ------------------------------------------------------------ redirects after a yes (issue 32)

/// Issue 32, §12, §14: a confirmed request goes only where it was shown. A
/// yes to `POST /send` answered `307` or `308` towards `/send_all?to=…`
/// is not sent again: the program received exactly one POST, the call
/// failed BAD_URL and nothing was re-sent. A `303` to a GET on the same
/// program is the result being read: followed (the server counts it).
/// The journal line says where each ended, not having ended where it was
/// shown: where the refused redirect pointed, where the result was read;
/// origin and path, the query dropped, the plugin's secret masked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_s14_issue32_a_confirmed_post_is_not_resent_by_a_redirect() {
    for status in [307, 308] {
        let f = fixture();
        dev_mode(&f.host, true).await;
        let (port, seen) = recording_server_redirecting(Some((status, format!("/send_all/{TOKEN}?to=mallory"))));
        install_manifest(&f.host, f.dir.path(), "mypc", &manifest(port), with_token()).await;
        let tried = send_note(&f.host, Player::answering(Some(Decision::Confirmed))).await;
        let o = &tried.outcome;
        assert_eq!(
            (o.outcome, o.code),
            (JournalOutcome::Failed, Some(ToolCode::Call(CallCode::BadUrl))),
            "{}",
            o.for_ai
        );
        assert!(!o.for_ai.contains("mallory"), "the AI does not read the server's URL: {}", o.for_ai);
        let lines: Vec<String> = seen.lock().expect("seen").iter().map(|(line, _, _)| line.clone()).collect();
        assert_eq!(lines, ["POST /send HTTP/1.1"], "{status}: one POST, where it was shown");
        let line = last_line(&f.host).await;
        assert_eq!(line.code, Some(JournalValue::Known(SpecCode::Tool(ToolCode::Call(CallCode::BadUrl)))));
        assert_eq!(line.confirmation, Some(JournalValue::Known(Decision::Confirmed)));
        let pointed = format!("http://127.0.0.1:{port}/send_all/[secret]");
        assert_eq!(line.ended_at, Some(pointed), "{status}: where it pointed, not followed");
    }
    let f = fixture();
    dev_mode(&f.host, true).await;
    let (port, seen) = recording_server_redirecting(Some((303, "/sent/1?id=1".into())));
    install_manifest(&f.host, f.dir.path(), "mypc", &manifest(port), with_token()).await;
    let tried = send_note(&f.host, Player::answering(Some(Decision::Confirmed))).await;
    assert_eq!(tried.outcome.outcome, JournalOutcome::Done, "{}", tried.outcome.for_ai);
    let lines: Vec<String> = seen.lock().expect("seen").iter().map(|(line, _, _)| line.clone()).collect();
    assert_eq!(lines, ["POST /send HTTP/1.1", "GET /sent/1?id=1 HTTP/1.1"], "303: the result read on the same program");
    let line = last_line(&f.host).await;
    assert_eq!(line.ended_at, Some(format!("http://127.0.0.1:{port}/sent/1")), "303: where the result was read");
}

/// Issue 32, §12: a confirmed request that ended where it was shown (no
/// redirect) says nowhere else: its line has no `ended_at`, as every line
/// before migration 13. The same server redirecting fills it (above), so
/// an empty field here is seen, not missed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_issue32_a_confirmed_post_that_ended_where_it_was_shown_says_nowhere_else() {
    let (f, seen, _) = setup().await;
    let tried = send_note(&f.host, Player::answering(Some(Decision::Confirmed))).await;
    assert_eq!(tried.outcome.outcome, JournalOutcome::Done, "{}", tried.outcome.for_ai);
    assert_eq!(seen.lock().expect("seen").len(), 1, "sent once, answered there");
    let line = last_line(&f.host).await;
    assert_eq!((line.confirmation, line.ended_at), (Some(JournalValue::Known(Decision::Confirmed)), None));
}
