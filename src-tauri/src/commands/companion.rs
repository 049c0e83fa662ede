//! The Companion tab (issue 23): the player's typed words become one turn of
//! the companion's engine ([`dcp_companion::Companion`], the same one
//! `dcplugin chat` runs), each [`TurnEvent`] reaching the window as the
//! Tauri event [`COMPANION_EVENT`] as it happens: the answer streams, and
//! the page learns each tool call's outcome.
//!
//! The conversation lives in the app's state as long as the app runs; the
//! AI connection is made anew each turn, so that a change in the Tools
//! tab's AI settings counts from the next turn without losing the
//! conversation. No R3 asker yet: R3 actions are not offered to the window.

use super::host;
use dcp_companion::{Companion, Out, Said, TurnEvent};
use dcp_host::{ApiError, ErrorCode, Host, HostCode, Source};
use tauri::{AppHandle, Emitter, Manager};
use tokio::sync::Mutex;

/// The Tauri event carrying one `TurnEvent` as JSON (a `dcplugin chat --json` line).
pub const COMPANION_EVENT: &str = "companion-turn";

/// Why a second turn is refused while one runs.
const ANSWERING: &str = "the companion is answering";

/// The window's companion, made on its first turn. One turn at a time:
/// the lock is held for the whole turn.
#[derive(Default)]
pub struct Talk(Mutex<Option<Companion>>);

/// One keyboard turn, its events emitted to the window.
pub async fn companion_say(app: &AppHandle, text: String, live: bool) -> Result<(), ApiError> {
    let window = app.clone();
    let mut out = move |event: TurnEvent| {
        // A window that is closing cannot take it: the turn still ends.
        let _ = window.emit(COMPANION_EVENT, &event);
    };
    let said = Said { source: Source::Keyboard, live, text };
    say_of(&app.state::<Talk>(), &host(app), said, &mut out).await
}

/// A turn of `talk`'s companion: rejects with the AI settings' code
/// (`ai_not_set`, …) before it starts, with `bad_input` while another turn
/// runs; a turn that starts reports its own failure as an `error` line,
/// then `end`.
async fn say_of(talk: &Talk, host: &Host, said: Said, out: Out<'_>) -> Result<(), ApiError> {
    let Ok(mut companion) = talk.0.try_lock() else {
        return Err(ApiError::new(ErrorCode::Host(HostCode::BadInput), ANSWERING));
    };
    let connection = host.ai_connection().await?;
    let companion = match companion.as_mut() {
        Some(existing) => {
            existing.set_connection(connection);
            existing
        }
        None => companion.insert(Companion::new(host.clone(), connection)),
    };
    // The failure already went out as the turn's `error` line.
    let _ = companion.say(said, None, out).await;
    Ok(())
}

/// Forgets the conversation (waits for a running turn to end first).
pub async fn companion_new_conversation(app: &AppHandle) -> Result<(), ApiError> {
    if let Some(companion) = app.state::<Talk>().0.lock().await.as_mut() {
        companion.new_conversation();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use scripted_ai::{openai, Script, ScriptedAi, MODEL};

    /// A turn of the window's companion: what it answered, and its lines.
    fn say(talk: &Talk, host: &Host, text: &str) -> (Result<(), ApiError>, Vec<TurnEvent>) {
        let mut lines = Vec::new();
        let said = Said { source: Source::Keyboard, live: false, text: text.into() };
        let result = host.block_on(say_of(talk, host, said, &mut |e| lines.push(e)));
        (result, lines)
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
        assert!(lines.contains(&TurnEvent::Reply { text: "Hello!".into() }), "{lines:?}");
        assert!(matches!(lines.last(), Some(TurnEvent::End { .. })), "{lines:?}");

        use_ai(&host, &second);
        say(&talk, &host, "and now?").0.expect("a turn on the new AI");
        let chats = |ai: &ScriptedAi| {
            ai.received().into_iter().filter(|r| r.path == "/v1/chat/completions").collect::<Vec<_>>()
        };
        assert_eq!(chats(&first).len(), 1, "the old AI is not asked again");
        let asked = serde_json::to_string(&chats(&second)[0].body["messages"]).expect("JSON");
        assert!(asked.contains("Hello!") && asked.contains("and now?"), "{asked}");

        host.block_on(async { talk.0.lock().await.as_mut().map(Companion::new_conversation) });
        say(&talk, &host, "who are you?").0.expect("a turn");
        let asked = serde_json::to_string(&chats(&second)[1].body["messages"]).expect("JSON");
        assert!(!asked.contains("Hello!") && asked.contains("who are you?"), "{asked}");
    }

    /// One turn at a time: while a turn holds the companion, another is refused, and no line goes out.
    #[test]
    fn a_turn_while_one_runs_is_refused_with_the_companion_answering() {
        let dir = tempfile::tempdir().expect("profile");
        let host = crate::tests::host(dir.path());
        let ai = host.block_on(ScriptedAi::start(Script::with_turns(vec![openai::text(["Hi."])])));
        use_ai(&host, &ai);
        let talk = Talk::default();
        let running = talk.0.try_lock().expect("free");
        let (result, lines) = say(&talk, &host, "hello");
        let error = result.expect_err("one turn at a time");
        assert_eq!((error.code.as_str(), error.message.as_str()), ("bad_input", ANSWERING));
        assert_eq!(lines, vec![]);
        // Once the turn is over the same words are answered: the refusal was the running turn's.
        drop(running);
        let (result, lines) = say(&talk, &host, "hello");
        result.expect("a turn");
        assert!(lines.contains(&TurnEvent::Reply { text: "Hi.".into() }), "{lines:?}");
    }
}
