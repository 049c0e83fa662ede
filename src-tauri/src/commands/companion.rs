//! The Companion tab (issue 23): the player's typed words become one turn of
//! the companion's engine ([`dcp_companion::Companion`], the same one
//! `dcplugin chat` runs), each [`TurnEvent`] reaching the window as the
//! Tauri event [`COMPANION_EVENT`] as it happens: the answer streams, and
//! the page learns each tool call's outcome.
//!
//! The conversation is owned by one task ([`Talk`], issue 33): a message
//! sent while a turn runs waits and runs next, Stop ends the running turn,
//! New conversation works at any time. The player is there to be asked:
//! R3 actions are offered, and their question goes to the window's dialog
//! ([`crate::asking`]).
//!
//! Events are said here too (§16): the door hands an event turn over when
//! the window's companion listens ([`crate::listening::Listening`]: not
//! during a turn, not while the player types), the same conversation says
//! it, and its lines reach the page like a typed turn's. When the window
//! is not in front, a desktop notification says the answer.
//!
//! The Twitch chat's turns are said here too (§12, issue 36): a viewer's
//! message the chat hands over (only while the companion listens) is a
//! turn of the same conversation, its `viewer` line first. While the chat
//! is connected every turn is live (stream mode), whatever the Live on
//! Twitch switch says.
//!
//! The answers' links (issue 34): each answer is kept as it reaches the
//! page ([`Answered`]), and a link the page asks to open goes to the system
//! browser only if an answer of this conversation has it.

use super::{host, open_with_os};
use crate::answered::Answered;
use crate::asking::{Asking, ASK_EVENT};
use crate::talk::{Lines, Talk, Words};
use dcp_companion::{Said, TurnEvent};
use dcp_host::events::HostEvent;
use dcp_host::{
    ApiError, Ask, ChatNotice, ErrorCode, Host, HostCode, NotOffered, Notice, Place, Refusal, Source, Turn,
    ANSWER_WITHIN,
};
use std::future::Future;
use std::sync::Arc;
use tauri::{AppHandle, Emitter, Manager};
use tokio::sync::broadcast::{error::RecvError, Receiver};

/// The Tauri event carrying one `TurnEvent` as JSON (a `dcplugin chat --json` line).
pub const COMPANION_EVENT: &str = "companion-turn";

/// Why an answer to an R3 question is refused once the host stopped waiting.
const NOT_ASKED: &str = "this question is no longer asked: it ran out of time or its action is over";

/// Where a turn's lines go: the page, as [`COMPANION_EVENT`]s, its answer kept first.
fn to_window(app: &AppHandle) -> Lines {
    let window = app.clone();
    app.state::<Answered>().keep(Box::new(move |event: TurnEvent| {
        // A window that is closing cannot take it: the turn still ends.
        let _ = window.emit(COMPANION_EVENT, &event);
    }))
}

/// One keyboard turn, its events emitted to the window; answered once it
/// ended (after the turns sent before it). It is live when the player's
/// Live on Twitch switch is on or the Twitch chat is connected.
pub async fn companion_say(app: &AppHandle, text: String, live: bool) -> Result<(), ApiError> {
    let host = host(app);
    let said = typed_by_player(&host, text, live);
    say_of(&app.state::<Talk>(), &host, said, Some(window_asker(app)), to_window(app)).await
}

/// The player's typed words: live (§12 stream mode) when `live` (the switch) or the host's chat is connected.
fn typed_by_player(host: &Host, text: String, live: bool) -> Said {
    Said { source: Source::Keyboard, live: live || host.stream_mode(), text }
}

/// Stops the running turn (the Stop button, Esc): its `error` line says `stopped`.
pub async fn companion_stop(app: &AppHandle) -> Result<(), ApiError> {
    app.state::<Talk>().stop();
    Ok(())
}

/// The player types in the Companion tab (or stopped): an event waits
/// until they stop (§16).
pub async fn companion_typing(app: &AppHandle, typing: bool) -> Result<(), ApiError> {
    app.state::<Talk>().listening.typing(typing);
    Ok(())
}

/// Says in the window each event turn the door hands over, and each viewer's
/// turn the Twitch chat hands over, until the host goes away; `events` is
/// subscribed before the door starts. Each turn is
/// posted to the conversation at once, in the order the door handed them,
/// and waited for by a task of its own: the loop never waits on a turn, so
/// a burst of other host events during a long answer does not make it lag
/// behind.
pub fn say_events(app: AppHandle, mut events: Receiver<HostEvent>) {
    tauri::async_runtime::spawn(async move {
        loop {
            match events.recv().await {
                Ok(HostEvent::Door { notice: Notice::Turn { message, said, .. } }) => {
                    let from = said.first().map(|e| e.plugin.clone());
                    let words = Words::Event { message, events: said };
                    let turn = handed_turn_of(&app.state::<Talk>(), &host(&app), words, to_window(&app));
                    tauri::async_runtime::spawn(notify_answer(app.clone(), from, turn));
                }
                Ok(HostEvent::Twitch { notice: ChatNotice::Turn { viewer } }) => {
                    // Waited for by its own task, so that the loop goes on; the answer is in the conversation.
                    let turn =
                        handed_turn_of(&app.state::<Talk>(), &host(&app), Words::Viewer(viewer), to_window(&app));
                    tauri::async_runtime::spawn(turn);
                }
                Err(RecvError::Closed) => break,
                // Other host events are not the companion's. A lag past the channel's room would lose a
                // notice the door counts as handed over: not seen in tests, not mended.
                Ok(_) | Err(RecvError::Lagged(_)) => {}
            }
        }
    });
}

/// An event turn's answer, notified when the window is behind.
async fn notify_answer(app: AppHandle, from: Option<String>, turn: impl Future<Output = Option<String>>) {
    // No answer when the AI was told none of the events (issue 32): nothing to notify.
    let said = turn.await.filter(|a| !a.is_empty());
    if let (Some(answer), Some(slug)) = (said, from) {
        notify_unless_in_front(&app, &slug, &answer).await;
    }
}

/// The window's asker: R3 questions go to the page's dialog, for 60 s.
pub fn window_asker(app: &AppHandle) -> Arc<dyn Ask> {
    let window = app.clone();
    let tell = Arc::new(move |line| {
        // A window that is closing cannot show it: no answer comes, a no.
        let _ = window.emit(ASK_EVENT, &line);
    });
    app.state::<Asking>().asker(tell, ANSWER_WITHIN)
}

/// The player's answer to R3 question `id` (yes sends the request shown);
/// `bad_input` when it is no longer asked.
pub async fn companion_answer(app: &AppHandle, id: u64, yes: bool) -> Result<(), ApiError> {
    answer_of(&app.state::<Asking>(), id, yes)
}

fn answer_of(asking: &Asking, id: u64, yes: bool) -> Result<(), ApiError> {
    match asking.answer(id, yes) {
        true => Ok(()),
        false => Err(ApiError::new(ErrorCode::Host(HostCode::BadInput), NOT_ASKED)),
    }
}

/// The answer to an event, as a desktop notification titled with the
/// plugin's name, when the window is not in front (§16: the player may be
/// in a game). A notification that cannot be shown is left unsaid: the
/// conversation has it.
async fn notify_unless_in_front(app: &AppHandle, slug: &str, answer: &str) {
    use tauri_plugin_notification::NotificationExt;
    let in_front = app.get_webview_window(crate::window::MAIN).is_some_and(|w| w.is_focused().unwrap_or(false));
    if in_front {
        return;
    }
    let title = host(app).card(slug).await.map_or_else(|_| slug.to_owned(), |card| card.name);
    let _ = app.notification().builder().title(title).body(answer).show();
}

/// A turn of `talk`'s companion, posted now and waited for: rejects with
/// the AI settings' code (`ai_not_set`, …) before it starts; a turn that
/// starts reports its own failure as an `error` line, then `end`.
fn say_of(
    talk: &Talk,
    host: &Host,
    said: Said,
    ask: Option<Arc<dyn Ask>>,
    out: Lines,
) -> impl Future<Output = Result<(), ApiError>> + Send + 'static {
    let ended = talk.say(host, Words::Said { said, ask }, out);
    async move { ended.await.map(drop) }
}

/// An event's or a viewer's turn of `talk`'s companion, posted now: its
/// answer, none when it failed. With no AI able to answer, the page still
/// gets the event or the viewer's words, with why nothing answers.
fn handed_turn_of(
    talk: &Talk,
    host: &Host,
    words: Words,
    out: Lines,
) -> impl Future<Output = Option<String>> + Send + 'static {
    let ended = talk.say(host, words, out);
    async move { ended.await.ok().flatten() }
}

/// The plugins whose reading is paused while the player is live on Twitch
/// (§12 stream mode), by slug: what the offer of a live keyboard turn
/// leaves out as `stream_private` (an AI on this PC: the offer of an
/// online AI would also leave out, for another reason, what is kept on
/// this PC).
pub async fn paused_while_live(app: &AppHandle) -> Result<Vec<String>, ApiError> {
    paused_of(&host(app)).await
}

async fn paused_of(host: &Host) -> Result<Vec<String>, ApiError> {
    let offer = host.offer(Turn { live: true, ..Turn::new(Source::Keyboard, Place::Pc) }).await?;
    let mut paused: Vec<String> = offer
        .left_out
        .into_iter()
        .filter(|left| left.reason == Refusal::StreamPrivate)
        .map(|left| left.plugin)
        .collect();
    // The offer goes plugin by plugin: one name per plugin left.
    paused.dedup();
    Ok(paused)
}

/// What the player's next typed turn would not be offered, and why (§24
/// "Why is my plugin never used?"): the window can ask the player, so a
/// serious action (R3) is offered and not listed.
pub async fn not_offered(app: &AppHandle, live: bool) -> Result<Vec<NotOffered>, ApiError> {
    host(app).not_offered(live, true).await
}

/// Stops the running turn, drops the messages waiting, and forgets the
/// conversation, its answers' links with it.
pub async fn companion_new_conversation(app: &AppHandle) -> Result<(), ApiError> {
    app.state::<Talk>().new_conversation(&host(app)).await;
    app.state::<Answered>().forget();
    Ok(())
}

/// Opens in the system browser a link of an answer the window was given
/// (an http(s) URL an answer has, else `bad_input`); the webview never
/// navigates.
pub async fn open_answer_link(app: &AppHandle, url: String) -> Result<(), ApiError> {
    open_with_os(app.state::<Answered>().link(&url)?.as_str())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use dcp_host::{SaidEvent, ViewerTurn};
    use scripted_ai::{openai, Script, ScriptedAi, Step, MODEL};
    use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

    /// A turn of the window's companion: what it answered, and its lines.
    fn say(talk: &Talk, host: &Host, text: &str) -> (Result<(), ApiError>, Vec<TurnEvent>) {
        say_asking(talk, host, text, None)
    }

    pub(super) fn say_asking(
        talk: &Talk,
        host: &Host,
        text: &str,
        ask: Option<Arc<dyn Ask>>,
    ) -> (Result<(), ApiError>, Vec<TurnEvent>) {
        let (out, mut lines) = heard();
        let result = host.block_on(say_of(talk, host, typed(text), ask, out));
        (result, drain(&mut lines))
    }

    pub(super) fn typed(text: &str) -> Said {
        Said { source: Source::Keyboard, live: false, text: text.into() }
    }

    /// A turn's lines, as they come.
    pub(super) fn heard() -> (Lines, UnboundedReceiver<TurnEvent>) {
        let (to, lines) = unbounded_channel();
        (Box::new(move |line| drop(to.send(line))), lines)
    }

    /// The lines already out (all of a turn that ended: its lines go out before it is answered).
    pub(super) fn drain(lines: &mut UnboundedReceiver<TurnEvent>) -> Vec<TurnEvent> {
        std::iter::from_fn(|| lines.try_recv().ok()).collect()
    }

    /// The lines until the first piece of the answer (it included): the AI is streaming.
    async fn until_a_delta(lines: &mut UnboundedReceiver<TurnEvent>) -> Vec<TurnEvent> {
        let mut seen = Vec::new();
        while let Some(line) = lines.recv().await {
            let delta = matches!(line, TurnEvent::Delta { .. });
            seen.push(line);
            if delta {
                break;
            }
        }
        seen
    }

    /// The chat requests `ai` received, oldest first.
    fn chats(ai: &ScriptedAi) -> Vec<scripted_ai::Received> {
        ai.received().into_iter().filter(|r| r.path == "/v1/chat/completions").collect()
    }

    /// The messages the `n`-th chat request sent, as JSON text.
    fn asked(ai: &ScriptedAi, n: usize) -> String {
        serde_json::to_string(&chats(ai)[n].body["messages"]).expect("JSON")
    }

    fn use_ai(host: &Host, ai: &ScriptedAi) {
        host.block_on(host.set_ai(Some(ai.url()), Some(MODEL.into()))).expect("an AI on this PC");
    }

    /// §13: with no AI set the turn does not start: no line, the settings' code.
    #[test]
    fn s13_no_ai_set_is_refused_before_the_turn_starts() {
        let dir = tempfile::tempdir().expect("profile");
        let host = crate::tests::host(dir.path());
        let (result, lines) = say(&Talk::default(), &host, "hello");
        assert_eq!(result.expect_err("no AI").code.as_str(), "ai_not_set");
        assert_eq!(lines, vec![]);
    }

    /// The conversation outlives a change of AI: the next turn goes to the
    /// AI set now, with the earlier exchange; New conversation forgets it.
    #[test]
    fn the_conversation_is_kept_when_the_ai_changes_and_forgotten_when_asked() {
        let dir = tempfile::tempdir().expect("profile");
        let host = crate::tests::host(dir.path());
        let first = host.block_on(ScriptedAi::start(Script::with_turns(vec![openai::text(["Hel", "lo!"])])));
        let second = host
            .block_on(ScriptedAi::start(Script::with_turns(vec![openai::text(["Again."]), openai::text(["Fresh."])])));
        let talk = Talk::default();
        use_ai(&host, &first);
        let (result, lines) = say(&talk, &host, "hi");
        result.expect("a turn");
        assert!(lines.contains(&TurnEvent::Delta { text: "Hel".into() }), "{lines:?}");
        assert!(lines.contains(&TurnEvent::Reply { text: "Hello!".into(), cut: false }), "{lines:?}");
        assert!(matches!(lines.last(), Some(TurnEvent::End { .. })), "{lines:?}");

        use_ai(&host, &second);
        say(&talk, &host, "and now?").0.expect("a turn on the new AI");
        assert_eq!(chats(&first).len(), 1, "the old AI is not asked again");
        let asked_now = asked(&second, 0);
        assert!(asked_now.contains("Hello!") && asked_now.contains("and now?"), "{asked_now}");

        host.block_on(talk.new_conversation(&host));
        say(&talk, &host, "who are you?").0.expect("a turn");
        let asked_now = asked(&second, 1);
        assert!(!asked_now.contains("Hello!") && asked_now.contains("who are you?"), "{asked_now}");
    }

    /// Issue 34: a link the AI wrote in its answer may be opened once the
    /// answer went to the page; an address it did not write may not.
    #[test]
    fn issue34_a_link_the_ai_wrote_may_be_opened() {
        let dir = tempfile::tempdir().expect("profile");
        let host = crate::tests::host(dir.path());
        let ai = host.block_on(ScriptedAi::start(Script::with_turns(vec![openai::text([
            "See [the docs](https://docs.exa",
            "mple.com/start?lang=en).",
        ])])));
        use_ai(&host, &ai);
        let answered = Answered::default();
        let link = "https://docs.example.com/start?lang=en";
        assert_eq!(answered.link(link).expect_err("not answered yet").code.as_str(), "bad_input");
        let turn = say_of(&Talk::default(), &host, typed("where are the docs?"), None, answered.keep(heard().0));
        host.block_on(turn).expect("a turn");
        assert_eq!(answered.link(link).expect("written by the AI").as_str(), link);
        assert_eq!(answered.link("https://other.example/").expect_err("not written").code.as_str(), "bad_input");
    }

    /// §12 stream mode: while live, a plugin reading the player's data is
    /// paused (its reading actions left out of a live turn, its others
    /// still offered), one reading public data is not.
    #[test]
    fn s12_live_on_twitch_pauses_the_plugins_reading_the_players_data() {
        let dir = tempfile::tempdir().expect("profile");
        let host = crate::tests::host(dir.path());
        for example in ["exchange-rates", "my-tasks"] {
            let manifest = format!("{}/../plugins-examples/{example}/manifest.json", env!("CARGO_MANIFEST_DIR"));
            let review = host.block_on(host.import_path(manifest.into())).expect("review");
            let secrets = review
                .settings
                .iter()
                .filter(|s| s.secret && s.required)
                .map(|s| (s.key.clone(), dcp_host::Sensitive::from("a-token")))
                .collect();
            let cloud = (review.cloud == dcp_host::CloudQuestion::Ask).then_some(dcp_host::CloudChoice::Local);
            let options = dcp_host::InstallOptions { secrets, cloud, ..Default::default() };
            host.block_on(host.install(&review.review, options)).expect("installed");
        }
        assert_eq!(host.block_on(paused_of(&host)).expect("paused"), ["mytasks"]);

        let ai = host.block_on(ScriptedAi::start(Script::with_turns(vec![openai::text(["Live."])])));
        use_ai(&host, &ai);
        let talk = Talk::default();
        let said = Said { source: Source::Keyboard, live: true, text: "what is on my list?".into() };
        host.block_on(say_of(&talk, &host, said, None, heard().0)).expect("a live turn");
        // The chat request: the turn may first ask the server whether the model can use tools (issue 34).
        let chat = ai.received().into_iter().find(|r| r.path == "/v1/chat/completions").expect("a chat request");
        let offered = serde_json::to_string(&chat.body["tools"]).expect("JSON");
        assert!(offered.contains("fx__convert") && offered.contains("mytasks__add_task"), "{offered}");
        assert!(!offered.contains("mytasks__list_tasks"), "the reading action is paused: {offered}");
    }

    /// §16: an event turn is said in the window's conversation, as coming
    /// from the program, then answered without tools; with no AI the page
    /// still gets the event and why nothing answers.
    #[test]
    fn s16_an_event_turn_is_said_in_the_conversation() {
        let dir = tempfile::tempdir().expect("profile");
        let host = crate::tests::host(dir.path());
        let talk = Talk::default();
        let event = |talk: &Talk| {
            let (out, mut lines) = heard();
            let message = "The pomodoro timer says: break time.".to_owned();
            let events = vec![SaidEvent {
                plugin: "timer".into(),
                event: "finished".into(),
                title: "Break time".into(),
                text: Some("5 minutes".into()),
            }];
            let said = host.block_on(handed_turn_of(talk, &host, Words::Event { message, events }, out));
            (said, drain(&mut lines))
        };
        // The player is shown the program's words; the AI reads the framed message.
        let from = TurnEvent::Event {
            plugin: "timer".into(),
            event: "finished".into(),
            title: "Break time".into(),
            details: Some("5 minutes".into()),
            text: "The pomodoro timer says: break time.".into(),
            held: None,
        };
        let (said, lines) = event(&talk);
        assert_eq!(said, None);
        assert!(
            matches!(&lines[..], [TurnEvent::Turn { source: Source::Event, .. }, e @ TurnEvent::Event { .. }, TurnEvent::Error { code, .. }, TurnEvent::End { .. }] if code.as_str() == "ai_not_set" && *e == from),
            "{lines:?}"
        );

        let ai = host.block_on(ScriptedAi::start(Script::with_turns(vec![openai::text(["Stretch", " a bit!"])])));
        use_ai(&host, &ai);
        let (said, lines) = event(&talk);
        assert_eq!(said.as_deref(), Some("Stretch a bit!"));
        assert!(lines.contains(&from), "{lines:?}");
        assert!(matches!(lines.first(), Some(TurnEvent::Turn { source: Source::Event, .. })), "{lines:?}");
        assert!(lines.contains(&TurnEvent::Reply { text: "Stretch a bit!".into(), cut: false }), "{lines:?}");
        assert_eq!(ai.received()[0].body.get("tools").and_then(|t| t.as_array()).map_or(0, Vec::len), 0, "no tools");
    }

    /// §12, issue 36: a viewer's message the Twitch chat hands over is said
    /// in the window's conversation: the viewer's line first (their name and
    /// words as the player reads them), then a `twitch` turn, answered; with
    /// no AI the page still gets who asked what, and why nothing answers.
    #[test]
    fn s12_a_viewers_message_is_said_in_the_conversation() {
        let dir = tempfile::tempdir().expect("profile");
        let host = crate::tests::host(dir.path());
        let talk = Talk::default();
        let viewer = |talk: &Talk| {
            let (out, mut lines) = heard();
            let viewer = ViewerTurn {
                login: "ada_l".into(),
                display_name: "Ada_L".into(),
                text: "what is 20 euros in yen?".into(),
                msg_id: None,
            };
            let said = host.block_on(handed_turn_of(talk, &host, Words::Viewer(viewer), out));
            (said, drain(&mut lines))
        };
        let shown = TurnEvent::Viewer { name: "Ada_L".into(), text: "what is 20 euros in yen?".into() };
        let (said, lines) = viewer(&talk);
        assert_eq!(said, None);
        assert!(
            matches!(&lines[..], [v, TurnEvent::Error { code, .. }, TurnEvent::End { .. }] if code.as_str() == "ai_not_set" && *v == shown),
            "{lines:?}"
        );

        let ai = host.block_on(ScriptedAi::start(Script::with_turns(vec![openai::text(["About", " 3,400 yen."])])));
        use_ai(&host, &ai);
        let (said, lines) = viewer(&talk);
        assert_eq!(said.as_deref(), Some("About 3,400 yen."));
        assert!(
            matches!(&lines[..2], [v, TurnEvent::Turn { source: Source::Twitch, text, .. }] if *v == shown && text == "what is 20 euros in yen?"),
            "{lines:?}"
        );
        assert!(lines.contains(&TurnEvent::Reply { text: "About 3,400 yen.".into(), cut: false }), "{lines:?}");
        assert!(
            asked(&ai, 0).contains("Twitch chat"),
            "the AI reads the words framed as a viewer's: {}",
            asked(&ai, 0)
        );
    }

    /// §12, issue 36: while the Twitch chat is connected the player's typed
    /// turns are live (stream mode) whatever the Live on Twitch switch says;
    /// once it is disconnected, the switch decides again.
    #[test]
    fn s12_the_players_turns_are_live_while_the_twitch_chat_is_connected() {
        let dir = tempfile::tempdir().expect("profile");
        let server = tauri::async_runtime::block_on(twitch_like::TwitchLike::start()).expect("a Twitch-like server");
        // Read by the host's network client as it opens: Twitch's name and port lead to the server. Removed
        // at once: the CA file goes with the server, and a host another test opens later must not look for it.
        let names: Vec<String> = server
            .env()
            .into_iter()
            .map(|(name, value)| {
                std::env::set_var(&name, value);
                name
            })
            .collect();
        let host = crate::tests::host(dir.path());
        for name in names {
            std::env::remove_var(name);
        }
        let live = |switch| typed_by_player(&host, "hi".into(), switch).live;
        assert_eq!((live(false), live(true)), (false, true), "no chat: the switch decides");

        host.block_on(host.twitch_connect("#MyChannel")).expect("connecting");
        host.block_on(server.joined("mychannel"));
        assert!(live(false), "the chat is connected: stream mode");

        let status = host.block_on(host.twitch_disconnect()).expect("disconnected");
        assert!(!status.stream_mode);
        assert_eq!((live(false), live(true)), (false, true), "the switch decides again");
    }

    /// A new profile whose AI is a scripted server answering `turns`, and the window's companion.
    fn talking(turns: Vec<Step>) -> (tempfile::TempDir, Host, ScriptedAi, Talk) {
        let dir = tempfile::tempdir().expect("profile");
        let host = crate::tests::host(dir.path());
        let ai = host.block_on(ScriptedAi::start(Script::with_turns(turns)));
        use_ai(&host, &ai);
        (dir, host, ai, Talk::default())
    }

    /// The first message streaming, the second sent behind it, then
    /// `meanwhile`: the lines of each once both are over, neither refused.
    fn behind_a_stream<F: Future<Output = ()>>(
        talk: &Talk,
        host: &Host,
        [first, second]: [&str; 2],
        meanwhile: impl FnOnce() -> F,
    ) -> (Vec<TurnEvent>, Vec<TurnEvent>) {
        host.block_on(async {
            let (out, mut running) = heard();
            let first = say_of(talk, host, typed(first), None, out);
            let mut seen = until_a_delta(&mut running).await;
            let (out, mut waiting) = heard();
            let second = say_of(talk, host, typed(second), None, out);
            meanwhile().await;
            first.await.expect("the first message: no refusal");
            second.await.expect("the message sent during the turn: never refused");
            seen.extend(drain(&mut running));
            (seen, drain(&mut waiting))
        })
    }

    /// Issue 33: Stop ends the running turn at once, mid-stream, with
    /// `stopped`; the words streamed so far went out, and the next message
    /// is answered.
    #[test]
    fn issue33_stop_mid_stream_ends_the_turn_stopped_and_the_next_message_is_answered() {
        let story = openai::text(["Once", " upon a time"]).pause_after(2);
        let (_dir, host, _ai, talk) = talking(vec![story, openai::text(["Fine."])]);
        let (result, lines) = host.block_on(async {
            let (out, mut lines) = heard();
            let turn = say_of(&talk, &host, typed("tell me a story"), None, out);
            let mut seen = until_a_delta(&mut lines).await;
            // The AI is still streaming (paused, never released): the stop ends the turn by itself.
            talk.stop();
            let result = turn.await;
            seen.extend(drain(&mut lines));
            (result, seen)
        });
        result.expect("a stopped turn is no refusal");
        assert!(lines.contains(&TurnEvent::Delta { text: "Once".into() }), "{lines:?}");
        assert!(!lines.iter().any(|l| matches!(l, TurnEvent::Reply { .. })), "{lines:?}");
        assert!(
            matches!(&lines[lines.len() - 2..], [TurnEvent::Error { code, .. }, TurnEvent::End { .. }] if code.as_str() == "stopped"),
            "{lines:?}"
        );

        let (result, lines) = say(&talk, &host, "and then?");
        result.expect("the next message");
        assert!(lines.contains(&TurnEvent::Reply { text: "Fine.".into(), cut: false }), "{lines:?}");
    }

    /// Issue 33: a message sent while a turn runs is never refused: it
    /// waits, then runs in the same conversation (the AI gets it second,
    /// after the first answer).
    #[test]
    fn issue33_a_message_sent_during_a_turn_waits_then_runs() {
        let first = openai::text(["First", " answer."]).pause_after(2);
        let (_dir, host, ai, talk) = talking(vec![first, openai::text(["Second."])]);
        let (one, two) = behind_a_stream(&talk, &host, ["one", "two"], || async { ai.release() });
        assert!(one.contains(&TurnEvent::Reply { text: "First answer.".into(), cut: false }), "{one:?}");
        assert!(matches!(two.first(), Some(TurnEvent::Turn { text, .. }) if text == "two"), "{two:?}");
        assert!(two.contains(&TurnEvent::Reply { text: "Second.".into(), cut: false }), "{two:?}");
        assert_eq!(chats(&ai).len(), 2);
        let second = asked(&ai, 1);
        assert!(second.contains("First answer.") && second.contains("two"), "{second}");
    }

    /// Issue 33: New conversation during a turn stops it, drops a message
    /// waiting behind it, and forgets: the next turn's request has no
    /// earlier message.
    #[test]
    fn issue33_new_conversation_mid_turn_stops_it_and_forgets() {
        let story = openai::text(["A long", " story"]).pause_after(2);
        let (_dir, host, ai, talk) = talking(vec![openai::text(["Hello!"]), story, openai::text(["Fresh."])]);
        say(&talk, &host, "good morning").0.expect("a turn");
        let (stopped, dropped) =
            behind_a_stream(&talk, &host, ["tell me a story", "and another one"], || talk.new_conversation(&host));
        assert!(matches!(stopped.last(), Some(TurnEvent::End { .. })), "{stopped:?}");
        assert!(
            stopped.iter().any(|l| matches!(l, TurnEvent::Error { code, .. } if code.as_str() == "stopped")),
            "{stopped:?}"
        );
        assert_eq!(dropped, vec![], "the waiting message never ran");

        let (result, lines) = say(&talk, &host, "who are you?");
        result.expect("a turn");
        assert!(lines.contains(&TurnEvent::Reply { text: "Fresh.".into(), cut: false }), "{lines:?}");
        assert_eq!(chats(&ai).len(), 3, "the dropped message was not sent");
        let fresh = asked(&ai, 2);
        assert!(fresh.contains("who are you?"), "{fresh}");
        for earlier in ["good morning", "Hello!", "tell me a story", "and another one"] {
            assert!(!fresh.contains(earlier), "{earlier}: {fresh}");
        }
    }
}

/// R3 in the window (§12, issue 23): the question reaches the page as
/// [`AskLine`]s, its answer comes back by number, and only a yes sends.
/// A second scripted server stands in for the plugin's program on the PC:
/// it records every request it gets, so what was sent is seen there.
#[cfg(test)]
mod r3 {
    use super::tests::{drain, heard, say_asking, typed};
    use super::*;
    use crate::asking::AskLine;
    use crate::tests::host;
    use dcp_host::{Decision, InstallOptions, Sensitive, SwitchesPatch};
    use scripted_ai::{openai, Script, ScriptedAi};
    use std::sync::Mutex as StdMutex;
    use std::time::Duration;

    const TOKEN: &str = "pc-token-3f9a51c07e";

    /// The local-server example with `add_note` irreversible (R3), its
    /// program being `pc`, installed in developer mode with its token.
    fn install_r3(host: &Host, dir: &std::path::Path, pc: &ScriptedAi) {
        let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../plugins-examples/local-server/manifest.json");
        let text = std::fs::read_to_string(example).expect("the example");
        let mut manifest: serde_json::Value =
            serde_json::from_str(&text.replace("8420", &pc.addr().port().to_string())).expect("JSON");
        manifest["_meta"]["com.desktopaicompanion"]["tools"]["add_note"]["sideEffects"] = "irreversible".into();
        let file = dir.join("mypc.json");
        std::fs::write(&file, manifest.to_string()).expect("write");
        host.block_on(host.set_switches(SwitchesPatch { dev_mode: Some(true), ..Default::default() })).expect("on");
        let review = host.block_on(host.import_path(file)).expect("review");
        let options =
            InstallOptions { secrets: vec![("token".into(), Sensitive::from(TOKEN))], ..InstallOptions::default() };
        host.block_on(host.install(&review.review, options)).expect("installed");
    }

    /// A player at the window who answers `yes` (or never), and every line the page got.
    fn player(asking: &Asking, yes: Option<bool>, within: Duration) -> (Arc<dyn Ask>, Arc<StdMutex<Vec<AskLine>>>) {
        let shown = Arc::new(StdMutex::new(Vec::new()));
        let (seen, answering) = (shown.clone(), asking.clone());
        let tell = Arc::new(move |line: AskLine| {
            if let (AskLine::Ask { id, .. }, Some(yes)) = (&line, yes) {
                assert!(answering.answer(*id, yes), "the question waits for its answer");
            }
            seen.lock().expect("lines").push(line);
        });
        (asking.asker(tell, within), shown)
    }

    /// The requests the program on the PC got, as "METHOD path".
    fn sent(pc: &ScriptedAi) -> Vec<String> {
        pc.received().iter().map(|r| format!("{} {}", r.method, r.path)).collect()
    }

    /// A profile with the R3 action installed, its program `pc`, and an
    /// AI that asks for it (then says "Done.").
    fn r3_profile() -> (tempfile::TempDir, Host, ScriptedAi, ScriptedAi) {
        let dir = tempfile::tempdir().expect("profile");
        let host = host(dir.path());
        let pc = host.block_on(ScriptedAi::start(Script::with_turns(vec![])));
        install_r3(&host, dir.path(), &pc);
        let ai = host.block_on(ScriptedAi::start(Script::with_turns(vec![
            openai::tool_calls(&[("n1", "mypc__add_note", r#"{"text":"pay rent"}"#)], 0),
            openai::text(["Done."]),
        ])));
        host.block_on(host.set_ai(Some(ai.url()), Some(scripted_ai::MODEL.into()))).expect("an AI on this PC");
        (dir, host, pc, ai)
    }

    fn r3_turn(yes: Option<bool>, within: Duration) -> (Vec<TurnEvent>, Vec<AskLine>, ScriptedAi, Asking) {
        let (_dir, host, pc, ai) = r3_profile();
        let asking = Asking::default();
        let (ask, shown) = player(&asking, yes, within);
        let (result, lines) = say_asking(&Talk::default(), &host, "note: pay rent", Some(ask));
        result.expect("a turn");
        let shown = shown.lock().expect("lines").clone();
        // The chat request: the turn may first ask the server whether the model can use tools (issue 34).
        let chat = ai.received().into_iter().find(|r| r.path == "/v1/chat/completions").expect("a chat request");
        let asked = serde_json::to_string(&chat.body["tools"]).expect("JSON");
        assert!(asked.contains("mypc__add_note"), "R3 is offered in the window: someone answers");
        (lines, shown, pc, asking)
    }

    fn confirm_line(lines: &[TurnEvent]) -> (&str, &str) {
        let confirms: Vec<_> = lines
            .iter()
            .filter_map(|l| match l {
                TurnEvent::Confirm { method, decision, .. } => Some((method.as_str(), decision.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(confirms.len(), 1, "{lines:?}");
        confirms[0]
    }

    /// §12: the page is shown exactly the request (secret as `[secret]`),
    /// then told the question is over; a yes sends that request.
    #[test]
    fn s12_a_yes_in_the_window_sends_exactly_the_request_shown() {
        let (lines, shown, pc, asking) = r3_turn(Some(true), ANSWER_WITHIN);
        let [AskLine::Ask { id, plugin, tool, hint, request, seconds, .. }, AskLine::Over { id: over }] = &shown[..]
        else {
            panic!("one question, then over: {shown:?}")
        };
        assert_eq!((plugin.as_str(), tool.as_str(), hint.as_str()), ("mypc", "add_note", "write a note on your PC"));
        assert_eq!((request.method, *seconds, over), ("POST", 60, id));
        assert!(request.url.ends_with("/note") && request.body.as_deref() == Some(r#"{"text":"pay rent"}"#));
        assert_eq!(request.headers, [("Authorization".to_owned(), "[secret]".to_owned())], "the token is not shown");
        assert!(!format!("{shown:?}").contains(TOKEN), "the token never reaches the page");
        assert_eq!(confirm_line(&lines), ("POST", "confirmed"));
        assert_eq!(sent(&pc), ["POST /note"]);
        assert_eq!(answer_of(&asking, *id, true).expect_err("answered").message, NOT_ASKED);
    }

    /// §12: a no sends nothing; the turn says declined.
    #[test]
    fn s12_a_no_in_the_window_sends_nothing() {
        let (lines, shown, pc, _) = r3_turn(Some(false), ANSWER_WITHIN);
        assert!(matches!(shown[..], [AskLine::Ask { .. }, AskLine::Over { .. }]), "{shown:?}");
        assert_eq!(confirm_line(&lines), ("POST", "declined"));
        let refused = lines.iter().any(|l| matches!(l, TurnEvent::Tool { reason: Some(Refusal::Declined), .. }));
        assert!(refused, "{lines:?}");
        assert_eq!(sent(&pc), Vec::<String>::new(), "nothing reaches the program");
    }

    /// No answer in time is a no (`expired`): the page is told the question
    /// is over, and an answer after that is refused with `bad_input`.
    #[test]
    fn s12_no_answer_in_time_is_a_no_and_the_dialog_is_closed() {
        let (lines, shown, pc, asking) = r3_turn(None, Duration::ZERO);
        let [AskLine::Ask { id, seconds: 0, .. }, AskLine::Over { id: over }] = &shown[..] else {
            panic!("asked, then over: {shown:?}")
        };
        assert_eq!(id, over);
        assert_eq!(confirm_line(&lines), ("POST", "expired"));
        assert_eq!(sent(&pc), Vec::<String>::new());
        let late = answer_of(&asking, *id, true).expect_err("too late");
        assert_eq!((late.code.as_str(), late.message.as_str()), ("bad_input", NOT_ASKED));
    }

    /// Issue 33: Stop while the question is open withdraws it: the page is
    /// told it is over (its dialog closes), a late yes is refused, and
    /// nothing reaches the program.
    #[test]
    fn issue33_stop_while_the_question_is_open_withdraws_it() {
        let (_dir, host, pc, _ai) = r3_profile();
        let (asking, talk) = (Asking::default(), Talk::default());
        let (tell, mut told) = tokio::sync::mpsc::unbounded_channel();
        let ask = asking.asker(Arc::new(move |line| drop(tell.send(line))), ANSWER_WITHIN);
        let (lines, id, after) = host.block_on(async {
            let (out, mut lines) = heard();
            let turn = say_of(&talk, &host, typed("note: pay rent"), Some(ask), out);
            let Some(AskLine::Ask { id, .. }) = told.recv().await else { panic!("the question is asked") };
            talk.stop();
            turn.await.expect("stopped, not refused");
            (drain(&mut lines), id, told.recv().await)
        });
        assert!(matches!(after, Some(AskLine::Over { id: over }) if over == id), "{after:?}");
        assert!(
            lines.iter().any(|l| matches!(l, TurnEvent::Error { code, .. } if code.as_str() == "stopped")),
            "{lines:?}"
        );
        assert_eq!(answer_of(&asking, id, true).expect_err("withdrawn").message, NOT_ASKED);
        assert_eq!(sent(&pc), Vec::<String>::new(), "nothing reaches the program");
    }

    /// Try an action of an R3 action asks through the same dialog (§19, §12).
    #[test]
    fn s12_try_an_action_of_an_r3_action_asks_too() {
        let dir = tempfile::tempdir().expect("profile");
        let host = host(dir.path());
        let pc = host.block_on(ScriptedAi::start(Script::with_turns(vec![])));
        install_r3(&host, dir.path(), &pc);
        let asking = Asking::default();
        for (yes, decision, reached) in [(false, Decision::Declined, 0), (true, Decision::Confirmed, 1)] {
            let (ask, shown) = player(&asking, Some(yes), ANSWER_WITHIN);
            let args = serde_json::json!({"text": "pay rent"});
            let tried = host
                .block_on(crate::commands::developer::try_action_of(
                    &host,
                    ask,
                    "mypc__add_note",
                    args,
                    Source::Keyboard,
                    dcp_host::Place::Pc,
                ))
                .expect("tried");
            assert_eq!(tried.confirmation, Some(decision));
            assert_eq!(shown.lock().expect("lines").len(), 2, "asked, then over");
            assert_eq!(sent(&pc).len(), reached, "{yes}");
        }
    }
}
