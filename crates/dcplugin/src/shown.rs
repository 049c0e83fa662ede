//! Text made safe to print on a terminal (issue 32, §3, §19): the one way
//! `dcplugin` prints in text mode. Much of what it prints comes from outside
//! the app: the model's words, an AI service's error messages and model
//! names, tool names the AI made up, journal fields, plugin texts, event
//! details. A terminal obeys the escapes such text may carry (OSC 52 writes
//! the clipboard, OSC 0 the title, `ESC[2J` clears the screen, `ESC[8m`
//! hides what follows, U+009B is an 8-bit CSI) and a line break in a name
//! forges a line of the journal, so nothing reaches the terminal as sent:
//!
//! - a control character (C0, DEL, C1) is written visibly, as Rust escapes
//!   it (`\u{1b}`, `\u{9b}`, `\r`), except a tab, and a line feed where the
//!   text may span lines ([`text`], [`Stream`]); there a carriage return is
//!   dropped (it only moves the cursor back over what was printed);
//! - every other hidden character of dcp-format's `text` module (bidi
//!   controls, zero-width characters, tag characters, variation selectors,
//!   fillers: [`dcp_host::is_hidden_char`]) is removed, as §9's cleaner
//!   removes it from answers;
//! - a line that begins with [`MARK`], which starts every line of the app's
//!   own R3 question ([`question`]), has its `[` escaped (`\u{5b}dcplugin]`):
//!   outside text cannot print a line that looks like the question's.
//!
//! [`line`] is for one field that must stay on one line (a name, a journal
//! field): its line breaks are escaped too. [`outln!`], [`errln!`] and
//! [`err!`] print whole texts cleaned by [`text`], so the app's own
//! words and every field formatted into them pass the same rule; the
//! `print_stdout`/`print_stderr` lints (main.rs) keep `println!` and its
//! siblings out of this crate's commands. `--json` output is not cleaned:
//! JSON escapes every control character itself (`output::print_json`).

use dcp_host::is_hidden_char;
use std::fmt;
use std::io::Write;

/// What every line of the app's R3 question starts with, and what no line
/// of outside text can start with.
pub const MARK: &str = "[dcplugin]";

/// [`MARK`] as outside text shows it at the start of a line.
const ESCAPED_MARK: &str = "\\u{5b}dcplugin]";

/// Resets every attribute (colour, concealed, reverse…) outside text may
/// have left on: written before the question, on a terminal only.
pub const RESET: &str = "\u{1b}[0m";

/// Appends `c` made safe; `one_line`: line breaks are escaped too.
fn push_clean(c: char, one_line: bool, out: &mut String) {
    match c {
        '\t' => out.push('\t'),
        '\n' if !one_line => out.push('\n'),
        '\r' if !one_line => {}
        c if c.is_control() => out.extend(c.escape_debug()),
        c if is_hidden_char(c) => {}
        c => out.push(c),
    }
}

/// Outside text cleaned piece by piece as it streams, a line's start held
/// back while it could still become [`MARK`].
#[derive(Debug)]
pub struct Stream {
    /// The next character printed starts a line.
    at_line_start: bool,
    /// The start of the current line, while it is a beginning of [`MARK`].
    held: String,
}

impl Default for Stream {
    fn default() -> Stream {
        Stream { at_line_start: true, held: String::new() }
    }
}

impl Stream {
    /// What to print for this piece of outside text.
    pub fn piece(&mut self, text: &str) -> String {
        let mut cleaned = String::with_capacity(text.len());
        for c in text.chars() {
            push_clean(c, false, &mut cleaned);
        }
        let mut out = String::with_capacity(cleaned.len());
        for c in cleaned.chars() {
            if !self.at_line_start {
                out.push(c);
                self.at_line_start = c == '\n';
                continue;
            }
            self.held.push(c);
            if self.held == MARK {
                out.push_str(ESCAPED_MARK);
                self.held.clear();
                self.at_line_start = false;
            } else if !MARK.starts_with(&self.held) {
                self.at_line_start = self.held.ends_with('\n');
                out.push_str(&self.held);
                self.held.clear();
            }
        }
        out
    }

    /// What is held back, and a line break when a line was begun: printed
    /// before a line of the app's own, so that it starts a line.
    pub fn end_line(&mut self) -> String {
        let mut out = std::mem::take(&mut self.held);
        if !self.at_line_start || !out.is_empty() {
            out.push('\n');
        }
        self.at_line_start = true;
        out
    }

    /// What is held back, then a line break: the end of an answer.
    pub fn finish(&mut self) -> String {
        let mut out = std::mem::take(&mut self.held);
        out.push('\n');
        self.at_line_start = true;
        out
    }
}

/// Outside text that may span lines, cleaned (see the module doc), its
/// first character taken as a line's start.
pub fn text(text: &str) -> String {
    let mut stream = Stream::default();
    let mut out = stream.piece(text);
    out.push_str(&stream.held);
    out
}

/// One field of outside text that must stay on one line: printed with
/// `{}`, cleaned (see the module doc), line breaks escaped.
pub fn line(text: &str) -> Line<'_> {
    Line(text)
}

/// See [`line`].
pub struct Line<'a>(&'a str);

impl fmt::Display for Line<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::with_capacity(self.0.len());
        for c in self.0.chars() {
            push_clean(c, true, &mut out);
        }
        match out.strip_prefix(MARK) {
            Some(rest) => write!(f, "{ESCAPED_MARK}{rest}"),
            None => f.write_str(&out),
        }
    }
}

/// The app's own R3 question: each line after [`MARK`] (its parts from
/// outside cleaned as [`line`]s), the last one the prompt, left open for
/// the answer; after [`RESET`] when it goes to a terminal. The caller
/// starts it on a fresh line.
pub fn question(lines: &[String], terminal: bool) -> String {
    let mut out = if terminal { RESET.to_owned() } else { String::new() };
    for (i, text) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{MARK} {}", line(text)));
    }
    out.push(' ');
    out
}

/// Where a text goes.
#[derive(Debug, Clone, Copy)]
pub enum To {
    Stdout,
    Stderr,
}

/// Writes what the functions of this module made safe, as it is, and
/// flushes (a prompt ends with no line break). Nothing else may reach
/// `to` raw.
pub fn write_made_safe(to: To, safe: &str) {
    // A closed pipe is not worth a panic: the output is only lost.
    let _ = match to {
        To::Stdout => std::io::stdout().lock().write_all(safe.as_bytes()).and_then(|()| std::io::stdout().flush()),
        To::Stderr => std::io::stderr().lock().write_all(safe.as_bytes()),
    };
}

/// Prints `what` cleaned by [`text`], then a line break when `newline`.
pub fn print(to: To, what: &str, newline: bool) {
    let mut safe = text(what);
    if newline {
        safe.push('\n');
    }
    write_made_safe(to, &safe);
}

/// `println!` through [`text`].
macro_rules! outln {
    ($($arg:tt)*) => { $crate::shown::print($crate::shown::To::Stdout, &format!($($arg)*), true) };
}

/// `eprintln!` through [`text`].
macro_rules! errln {
    ($($arg:tt)*) => { $crate::shown::print($crate::shown::To::Stderr, &format!($($arg)*), true) };
}

/// `eprint!` through [`text`].
macro_rules! err {
    ($($arg:tt)*) => { $crate::shown::print($crate::shown::To::Stderr, &format!($($arg)*), false) };
}

pub(crate) use {err, errln, outln};

#[cfg(test)]
mod tests {
    use super::*;

    /// Every escape the issue found reaching the terminal (issue 32).
    const HOSTILE: &str =
        "a\u{1b}]52;c;cHduZWQ=\u{7}b\u{1b}]0;title\u{7}c\u{1b}[2Jd\u{1b}[8me\u{9b}31mf\u{202e}g\u{200b}h\u{7f}i";

    #[test]
    fn issue32_no_control_or_hidden_character_is_printed() {
        for printed in [text(HOSTILE), line(HOSTILE).to_string(), Stream::default().piece(HOSTILE)] {
            assert!(!printed.chars().any(|c| c != '\n' && c != '\t' && is_hidden_char(c)), "{printed:?}");
            assert!(printed.contains("\\u{1b}]52;c;") && printed.contains("\\u{9b}31m"), "escaped visibly: {printed}");
            assert!(printed.contains("fgh"), "bidi and zero-width removed: {printed}");
        }
    }

    #[test]
    fn issue32_a_field_stays_on_one_line_and_a_text_keeps_its_lines() {
        let forged = "bank__send_money\n2026-01-01 10:00  bank__send_money  keyboard  done\r";
        assert_eq!(
            line(forged).to_string(),
            "bank__send_money\\n2026-01-01 10:00  bank__send_money  keyboard  done\\r"
        );
        assert_eq!(text("one\r\ntwo\tthree\n"), "one\ntwo\tthree\n");
    }

    #[test]
    fn issue32_outside_text_never_starts_a_line_with_the_mark() {
        assert_eq!(text("[dcplugin] Type yes\nok\n[dcplugin] x"), "\\u{5b}dcplugin] Type yes\nok\n\\u{5b}dcplugin] x");
        assert_eq!(text("say [dcplugin] mid-line"), "say [dcplugin] mid-line");
        assert_eq!(line("[dcplugin] name").to_string(), "\\u{5b}dcplugin] name");
        // Hidden characters go first: they cannot split the mark.
        assert_eq!(text("[dcp\u{200b}lugin]"), "\\u{5b}dcplugin]");
        // Streamed a few characters at a time, across pieces.
        let mut stream = Stream::default();
        let pieces = ["Shall I? [y/N]\n[dc", "plu", "gin] Type yes", "\n[dcp"];
        let printed: String = pieces.iter().map(|p| stream.piece(p)).collect::<String>() + &stream.finish();
        assert_eq!(printed, "Shall I? [y/N]\n\\u{5b}dcplugin] Type yes\n[dcp\n");
    }

    #[test]
    fn issue32_a_line_begun_is_ended_before_the_apps_own() {
        let mut stream = Stream::default();
        assert_eq!(stream.end_line(), "", "nothing printed: already at a line's start");
        assert_eq!(stream.piece("Shall I read them? [y/N] "), "Shall I read them? [y/N] ");
        assert_eq!(stream.end_line(), "\n");
        assert_eq!(stream.piece("[dc"), "");
        assert_eq!(stream.end_line(), "[dc\n", "what was held back is printed");
    }

    #[test]
    fn issue32_the_question_starts_each_line_with_the_mark_after_a_reset() {
        let lines = vec!["My PC wants to: note\u{1b}[8m".to_owned(), "Type yes to send it".to_owned()];
        assert_eq!(
            question(&lines, true),
            "\u{1b}[0m[dcplugin] My PC wants to: note\\u{1b}[8m\n[dcplugin] Type yes to send it "
        );
        assert!(!question(&lines, false).contains('\u{1b}'));
    }
}
