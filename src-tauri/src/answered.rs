//! The companion's answers given to the window, and so the links it may
//! open (issue 34): the answers' counterpart of [`crate::handed`].
//!
//! The page shows an answer's http(s) links, and a click asks the shell to
//! open one in the system browser. A page running a script it should not
//! (a bug, an injected one) could ask for any address; the shell opens one
//! only if it is an http(s) URL written in an answer the engine gave this
//! window — what streamed of it, or its whole reply — so a tampered page
//! can open nothing the model did not write, and never a file, a program
//! or another scheme. The answers are kept from the line that carries them
//! reaching the page (kept first, so a link is never shown before it can
//! be opened) until New conversation empties the page.

use crate::talk::Lines;
use dcp_companion::TurnEvent;
use dcp_host::{ApiError, ErrorCode, HostCode};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use url::Url;

/// The answers given to the window in this conversation (app state; its
/// clones share them).
#[derive(Clone, Default)]
pub struct Answered(Arc<Mutex<Texts>>);

#[derive(Default)]
struct Texts {
    /// Each answer's streamed pieces joined, and each whole reply.
    texts: Vec<String>,
    /// Bumped by [`Answered::forget`]: a turn still streaming an answer
    /// from before adds nothing after it.
    forgotten: u64,
}

impl Answered {
    /// `out`, each answer line's text kept here before it goes on.
    pub fn keep(&self, mut out: Lines) -> Lines {
        let answered = self.clone();
        // Where this turn's streamed pieces go: (the conversation, the index in `texts`).
        let mut streaming: Option<(u64, usize)> = None;
        Box::new(move |line: TurnEvent| {
            let mut kept = answered.texts();
            match &line {
                TurnEvent::Delta { text } => {
                    let current = kept.forgotten;
                    match streaming {
                        Some((when, at)) if when == current => kept.texts[at].push_str(text),
                        Some(_) => {}
                        None => {
                            streaming = Some((current, kept.texts.len()));
                            kept.texts.push(text.clone());
                        }
                    }
                }
                TurnEvent::Reply { text, .. } => kept.texts.push(text.clone()),
                _ => {}
            }
            drop(kept);
            out(line);
        })
    }

    /// The conversation is forgotten: its links can no longer be opened.
    pub fn forget(&self) {
        let mut kept = self.texts();
        kept.texts.clear();
        kept.forgotten += 1;
    }

    /// The link the page asks to open: an http(s) URL written in an answer
    /// given to the window; else `bad_input`.
    pub fn link(&self, text: &str) -> Result<Url, ApiError> {
        let refused = |why: &str| ApiError::new(ErrorCode::Host(HostCode::BadInput), format!("{text}: {why}"));
        let url = Url::parse(text).map_err(|e| refused(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(refused("only a web address (http or https) is opened"));
        }
        if !self.texts().texts.iter().any(|answer| answer.contains(text)) {
            return Err(refused("no answer of the companion in this window has this link"));
        }
        Ok(url)
    }

    fn texts(&self) -> MutexGuard<'_, Texts> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines went through `answered` to the page, as a turn's do.
    fn given(answered: &Answered, lines: Vec<TurnEvent>) {
        let mut out = answered.keep(Box::new(|_| {}));
        lines.into_iter().for_each(&mut out);
    }

    fn delta(text: &str) -> TurnEvent {
        TurnEvent::Delta { text: text.into() }
    }

    fn code(answered: &Answered, url: &str) -> &'static str {
        match answered.link(url) {
            Ok(_) => "opened",
            Err(e) if e.code.as_str() == "bad_input" => "bad_input",
            Err(e) => panic!("{url}: {e:?}"),
        }
    }

    /// A link of an answer opens while it streams (split across pieces)
    /// and once replied; an address no answer has, or not http(s) even if
    /// written in one, is `bad_input`.
    #[test]
    fn issue34_only_an_http_link_written_in_an_answer_opens() {
        let answered = Answered::default();
        assert_eq!(code(&answered, "https://docs.example.com/a?b=1&c=2"), "bad_input", "no answer yet");
        given(&answered, vec![delta("See [the docs](https://docs.exa"), delta("mple.com/a?b=1&c=2) or ")]);
        assert_eq!(code(&answered, "https://docs.example.com/a?b=1&c=2"), "opened", "streamed in two pieces");
        let reply = "See [the docs](https://docs.example.com/a?b=1&c=2) or http://plain.example/x. \
                     [bad](javascript:alert(1)) file:///etc/passwd data:text/html,hi";
        given(&answered, vec![TurnEvent::Reply { text: reply.into(), cut: false }]);
        let url = answered.link("http://plain.example/x").expect("written in the reply");
        assert_eq!(url.as_str(), "http://plain.example/x");
        for refused in [
            "https://evil.example/",
            "https://docs.example.com/a?b=1&c=2&leak=secret",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,hi",
            "not a url",
        ] {
            assert_eq!(code(&answered, refused), "bad_input", "{refused}");
        }
    }

    /// Each turn streams its own answer: a link written across two turns'
    /// pieces is in neither.
    #[test]
    fn issue34_each_turn_keeps_its_own_answer() {
        let answered = Answered::default();
        given(&answered, vec![delta("https://split.exa")]);
        given(&answered, vec![delta("mple.com/")]);
        assert_eq!(code(&answered, "https://split.example.com/"), "bad_input");
    }

    /// New conversation forgets the answers: their links no longer open,
    /// and a turn that streamed before it adds nothing after it.
    #[test]
    fn issue34_new_conversation_forgets_the_links() {
        let answered = Answered::default();
        let mut out = answered.keep(Box::new(|_| {}));
        out(delta("https://before.example/"));
        assert_eq!(code(&answered, "https://before.example/"), "opened");
        answered.forget();
        assert_eq!(code(&answered, "https://before.example/"), "bad_input");
        out(delta(" https://late.example/"));
        assert_eq!(code(&answered, "https://late.example/"), "bad_input");
        given(&answered, vec![delta("https://after.example/")]);
        assert_eq!(code(&answered, "https://after.example/"), "opened");
    }

    /// Every line still reaches the page, in order, after its text is kept.
    #[test]
    fn issue34_every_line_goes_on_to_the_page() {
        let answered = Answered::default();
        let (to, seen) = std::sync::mpsc::channel();
        let check = answered.clone();
        let mut out = answered.keep(Box::new(move |line| {
            let kept = check.link("https://kept.example/").is_ok();
            to.send((line, kept)).expect("seen");
        }));
        let lines = vec![delta("https://kept.example/"), TurnEvent::End { steps: 0, stopped: false }];
        lines.clone().into_iter().for_each(&mut out);
        let seen: Vec<_> = seen.try_iter().collect();
        assert_eq!(seen, lines.into_iter().map(|l| (l, true)).collect::<Vec<_>>());
    }
}
