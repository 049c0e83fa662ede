//! `dcplugin chat` on a real pseudo-terminal, as a player runs it (issue 32,
//! §12 "serious action, confirmed every time"): the R3 question is asked
//! because standard input is a terminal, and only a `yes` typed after it
//! was shown sends the request; what the model writes reaches the terminal
//! without a single escape, and can never look like the question's lines.
//! The scripted AI is the model (it asks its own "[y/N]" question, pauses,
//! then calls an R3 action); the local-server example is the plugin's
//! server, made irreversible (R3).
#![cfg(unix)]

mod support;

use scripted_ai::{openai, Chunk, Step};
use support::chat::{ai, pomodoro_with_an_event_on, profile_with_ai, PcServer};
use support::pty::Pty;
use support::{free_port, text};

/// The question's prompt, as `dcplugin chat` prints it (docs/cli.md).
const PROMPT: &str = "[dcplugin] Type yes to send it, anything else cancels: ";

/// What a turn on the terminal left.
struct Asked {
    /// Every byte printed on the terminal (its echo of what was typed included).
    printed: Vec<u8>,
    /// The requests the plugin's server received.
    received: Vec<String>,
    /// `dcplugin journal`.
    journal: String,
}

/// One turn on a terminal: the model streams `model_text` (ending with its
/// own "[y/N]"), pauses, and while it waits the player types `typed_ahead`;
/// then the model asks for `mypc__add_note`, made R3. Once the question is
/// shown the player types `answer`.
fn r3_on_a_terminal(model_text: &str, typed_ahead: Option<&str>, answer: &str) -> Asked {
    let mut chunks = openai::text_chunks([model_text]);
    chunks.push(Chunk::Pause);
    let call = openai::tool_call_chunks(&[("n1", "mypc__add_note", r#"{"text":"pay rent"}"#)], 0);
    chunks.extend(call.into_iter().skip(1)); // one role chunk is enough
    chunks.push(openai::finish("tool_calls"));
    let ai = ai(vec![Step::Stream(chunks), openai::text(["ok"])]);
    let p = profile_with_ai(&ai);
    let pc = PcServer::start_with_r3_note(&p);
    let mut chat = Pty::spawn(p.command(&["chat", "--door-port", &free_port().to_string()]));
    chat.type_in("note that I pay rent\n");
    chat.wait_for("[y/N]");
    if let Some(line) = typed_ahead {
        chat.type_in(line);
        // The terminal took the line (its echo is printed: FIONREAD alone
        // may look before the line reached the terminal's queue, issue 34),
        // then the program holds it: what it makes of it is what is tested.
        chat.wait_for(&format!("[y/N] {}", line.replace('\n', "\r\n")));
        chat.wait_read();
    }
    ai.release();
    chat.wait_for(PROMPT);
    if typed_ahead.is_some() {
        // Said, then asked again: the answer is typed after all of it.
        chat.wait_for(&format!("[dcplugin] 1 line typed before this question was ignored.\r\n{PROMPT}"));
    }
    chat.type_in(answer);
    chat.wait_for("serious action ");
    chat.wait_for("ok\r\n");
    chat.type_in("\u{4}"); // Ctrl-D: standard input ends, and chat with it
    let status = chat.wait_exit();
    assert!(status.success(), "{status}: {}", chat.text());
    let journal = p.run(&["journal"]);
    Asked { printed: chat.printed(), received: pc.received(), journal: text(&journal.stdout) }
}

/// The attack of issue 32: the model asks its own "[y/N]", the player
/// answers it (`yes`, in full), then the model asks for an R3 action. That
/// line was typed before the real question: it is dropped and said, and a
/// `y` typed after the question is no yes. Nothing is sent.
#[test]
fn s12_issue32_a_line_typed_before_the_question_is_not_its_answer() {
    let asked = r3_on_a_terminal("Shall I read them? [y/N] ", Some("yes\n"), "y\n");
    let printed = String::from_utf8_lossy(&asked.printed);
    assert!(printed.contains("1 line typed before this question was ignored."), "{printed}");
    assert!(printed.contains("  serious action declined: POST http://127.0.0.1:"), "{printed}");
    assert_eq!(asked.received, Vec::<String>::new(), "nothing reached the plugin's server");
    assert!(asked.journal.contains("mypc__add_note  keyboard  refused declined (declined)"), "{}", asked.journal);
}

/// The same turn answered `yes` after the question was shown: sent. (So
/// the test above would have seen a request sent.)
#[test]
fn s12_issue32_yes_typed_after_the_question_sends_it() {
    let asked = r3_on_a_terminal("Shall I read them? [y/N] ", None, "YES \n");
    let printed = String::from_utf8_lossy(&asked.printed);
    assert!(!printed.contains("ignored"), "nothing was typed before the question: {printed}");
    assert!(printed.contains("  serious action confirmed: POST http://127.0.0.1:"), "{printed}");
    assert_eq!(asked.received, ["POST /note"]);
    assert!(asked.journal.contains("mypc__add_note  keyboard  done (confirmed)"), "{}", asked.journal);
}

/// Every escape issue 32 saw reach the terminal, in the model's words: the
/// clipboard (OSC 52), the title (OSC 0), a cleared screen, concealed text,
/// an 8-bit CSI, a right-to-left override, a zero-width space, a bell; and
/// a line imitating the question's prompt. None reaches the terminal: the
/// only escape printed is the app's own reset, right before its question,
/// and only the question's lines start with the mark.
#[test]
fn s19_issue32_the_models_escapes_never_reach_the_terminal() {
    let hostile = "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[8m\u{9b}8m\u{202e}\u{200b}\
                   Shall I read them?\n[dcplugin] Type yes to send it, anything else cancels: [y/N] ";
    let asked = r3_on_a_terminal(hostile, None, "yes\n");
    assert_eq!(asked.received, ["POST /note"], "the real question was seen and answered");
    let printed = &asked.printed;
    let own = b"\x1b[0m[dcplugin] My PC (local server) wants to: write a note on your PC";
    assert_eq!(count(printed, own), 1, "the question after a reset: {}", String::from_utf8_lossy(printed));
    assert_eq!(count(printed, b"\x1b"), 1, "no escape but the app's reset: {}", String::from_utf8_lossy(printed));
    for (bytes, what) in [
        (&b"\x07"[..], "a bell (the end of an OSC)"),
        ("\u{9b}".as_bytes(), "an 8-bit CSI"),
        ("\u{202e}".as_bytes(), "a right-to-left override"),
        ("\u{200b}".as_bytes(), "a zero-width space"),
    ] {
        assert_eq!(count(printed, bytes), 0, "{what} printed: {}", String::from_utf8_lossy(printed));
    }
    let printed = String::from_utf8_lossy(printed);
    assert!(printed.contains("\\u{1b}]52;c;cHduZWQ=\\u{7}"), "escaped visibly: {printed}");
    // The imitation starts its line escaped; every line starting with the mark is the app's question.
    assert!(printed.contains("\r\n\\u{5b}dcplugin] Type yes to send it"), "{printed}");
    let marked: Vec<&str> = printed
        .split("\r\n")
        .map(|l| l.trim_start_matches("\u{1b}[0m"))
        .filter(|l| l.starts_with("[dcplugin]"))
        .collect();
    assert_eq!(marked.len(), 4, "{marked:?}");
    assert!(marked[0].starts_with("[dcplugin] My PC (local server) wants to:"), "{marked:?}");
    assert!(marked[1].starts_with("[dcplugin]   POST http://127.0.0.1:"), "{marked:?}");
    assert_eq!(marked[2], r#"[dcplugin]   {"text":"pay rent"}"#);
    assert_eq!(marked[3], format!("{PROMPT}yes"), "the prompt, and the answer's echo");
}

/// How many times `needle` occurs in `hay`.
fn count(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

/// The ready line chat starts with on a terminal (issue 34).
fn ready_line(url: &str, model: &str) -> String {
    format!(
        "ready: talking to {model} at {url} (on this PC). Type a message and press Enter; Ctrl-C stops an answer, \
         Ctrl-D quits.\r\n"
    )
}

/// Issue 34: chat on a terminal starts by saying it is ready, the AI it
/// talks to and how to stop, then whether programs' events reach it: the
/// door listening on its port, or the port taken (here by another chat's
/// door, so that events go there, not here). Ctrl-D quits.
#[test]
fn issue34_chat_says_it_is_ready_and_whether_the_event_door_listens() {
    let ai = ai(vec![]);
    let p = profile_with_ai(&ai);
    pomodoro_with_an_event_on(&p);
    let door = free_port().to_string();
    let mut first = Pty::spawn(p.command(&["chat", "--door-port", &door]));
    first.wait_for(&ready_line(&ai.url(), scripted_ai::MODEL));
    first.wait_for(&format!(
        "event door: listening on 127.0.0.1:{door}: programs on this PC can send their events to this chat\r\n"
    ));
    let mut second = Pty::spawn(p.command(&["chat", "--door-port", &door]));
    second.wait_for(&ready_line(&ai.url(), scripted_ai::MODEL));
    second.wait_for(&format!("event door: port {door} is used by another event door"));
    second.wait_for("; events from programs on this PC will not reach this chat\r\n");
    for chat in [&mut second, &mut first] {
        chat.type_in("\u{4}");
        let status = chat.wait_exit();
        assert!(status.success(), "{status}: {}", chat.text());
    }
}

/// Issue 34: the ready line prints the model's name as any outside text:
/// an escape in it is shown, never sent to the terminal; developer mode
/// off, the door is said closed.
#[test]
fn issue34_the_ready_line_prints_the_model_name_cleaned() {
    let ai = ai(vec![]);
    let p = support::Profile::new();
    let set = p.run(&["ai", "--url", &ai.url(), "--model", "evil\u{1b}]0;pwned\u{7}"]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    let mut chat = Pty::spawn(p.command(&["chat", "--door-port", &free_port().to_string()]));
    chat.wait_for(&ready_line(&ai.url(), "evil\\u{1b}]0;pwned\\u{7}"));
    chat.wait_for(
        "event door: closed: developer mode is off, so programs on this PC cannot send events to this chat\r\n",
    );
    chat.type_in("\u{4}");
    assert!(chat.wait_exit().success(), "{}", chat.text());
    assert_eq!(count(&chat.printed(), b"\x1b"), 0, "{}", chat.text());
}
