//! Texts the AI reads (spec §5) and the character classes every cleaner uses
//! (§7 arguments, §9 answers, §16 event texts).
//!
//! This module owns one question: may this text be put in front of the AI?
//! [`check_ai_text`] answers it for one text (a tool description, a hint, an
//! argument description, the plugin's name or description, an event title)
//! with the §22 codes `invisible_chars`, `instructions`, `url_in_text`,
//! `mentions_tool` and the `superlative` warning. Length and emptiness are
//! the caller's (`bad_text`).
//!
//! How a text is checked:
//! 1. Hidden characters ([`is_hidden_char`], table in `hidden.rs`) are
//!    looked for in the text as written; the first is named with its
//!    position ("U+200B ZERO WIDTH SPACE at character 12"). Line breaks are
//!    hidden characters, so "spans several lines" is the same finding.
//! 2. The text is normalised (`normalize.rs`: NFKD without marks, lowercase,
//!    look-alike fold, hidden characters out, whitespace collapsed) so that
//!    a hidden character, full-width letters, mixed case or a Cyrillic `о`
//!    do not defeat the other checks. A text with a hidden character is
//!    matched twice, with the character removed and read as a space.
//! 3. Every list of `data.rs` is compiled into one Aho-Corasick DFA, built
//!    once, run over the "words" form (`_` and `-` read as spaces, same
//!    offsets as the "raw" form, where boundaries, tool names and contexts
//!    are checked); a few small scanners over the raw form add what a list
//!    cannot say: fake tags, `<slug>__<tool>` names and bare domains.
//!
//! Each code is reported at most once per text, with the first match.
//!
//! *Cost:* one pass to find hidden characters, one to normalise (a clean
//! ASCII text is only lowercased), one automaton pass, a few `memchr`-like
//! scans; the two buffers are reused from text to text (thread-local), so
//! a text without findings allocates nothing. A text with a hidden
//! character costs twice that. `benches/text.rs` measures 64 KB of texts
//! against the JSON parse of the same 64 KB.

mod data;
mod hidden;
mod normalize;

use crate::problem::Code;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use normalize::{phrase_form, raw_form, words_form, Hidden};
use std::sync::LazyLock;

/// One thing wrong with a text: its code (an error, or `superlative`) and a
/// message for the author.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The §22 code.
    pub code: Code,
    /// Why, in a sentence.
    pub message: String,
}

/// Checks one text the AI reads (§5); length and emptiness are the caller's.
///
/// Findings come in a fixed order: `invisible_chars`, `instructions`,
/// `url_in_text`, `mentions_tool`, `superlative`, each at most once.
pub fn check_ai_text(text: &str) -> Vec<Finding> {
    let mut found = Found::default();
    let printable_ascii = text.bytes().all(|b| (0x20..0x7F).contains(&b));
    let hidden = if printable_ascii { None } else { first_hidden(text) };
    if let Some(h) = &hidden {
        found.invisible = Some(h.message());
    }
    let matchers = &*MATCHERS;
    BUFFERS.with_borrow_mut(|(raw, words)| {
        raw.clear();
        raw_form(text, Hidden::Remove, raw);
        words_form(raw, words);
        matchers.scan(raw, words, &mut found);
        if hidden.is_some_and(|h| h.needs_second_pass) {
            raw.clear();
            raw_form(text, Hidden::Space, raw);
            words_form(raw, words);
            matchers.scan(raw, words, &mut found);
        }
    });
    found.into_findings()
}

thread_local! {
    /// The raw and words forms of the text being checked, reused from one
    /// text to the next (a manifest has hundreds of short texts).
    static BUFFERS: std::cell::RefCell<(String, Vec<u8>)> =
        const { std::cell::RefCell::new((String::new(), Vec::new())) };
}

/// True for a character no text may carry: control, invisible, bidi, format,
/// tag, variation selector, filler.
///
/// The exact set (Unicode 16.0 Cc, Cf, Zl, Zp and the rest of
/// Default_Ignorable_Code_Point, plus U+2800) is documented in `hidden.rs`.
pub fn is_hidden_char(c: char) -> bool {
    hidden::is_hidden(c)
}

/// Removes hidden characters (§7 arguments, §9 answers).
pub fn remove_hidden(text: &str) -> String {
    if !text.chars().any(is_hidden_char) {
        return text.to_owned();
    }
    text.chars().filter(|c| !is_hidden_char(*c)).collect()
}

/// One line of visible text: line breaks and tabs become spaces (words
/// stay apart), every other hidden character is removed (§9 answers; a
/// secret's cleaned spelling; the journal's names from outside).
pub fn one_line(text: &str) -> String {
    if !text.contains(['\n', '\r', '\t']) {
        return remove_hidden(text);
    }
    let spaced: String = text.chars().map(|c| if matches!(c, '\n' | '\r' | '\t') { ' ' } else { c }).collect();
    remove_hidden(&spaced)
}

/// Replaces hidden characters by spaces (§16 event texts).
pub fn hidden_to_spaces(text: &str) -> String {
    if !text.chars().any(is_hidden_char) {
        return text.to_owned();
    }
    text.chars().map(|c| if is_hidden_char(c) { ' ' } else { c }).collect()
}

/// The first hidden character of a text, and how many there are.
struct FirstHidden {
    c: char,
    /// 1-based position in characters.
    position: usize,
    count: usize,
    /// Whether a hidden character other than a line break or tab is present
    /// (the text is then matched a second time with such characters read as
    /// spaces).
    needs_second_pass: bool,
}

impl FirstHidden {
    fn message(&self) -> String {
        let what = hidden::describe(self.c);
        let more = match self.count {
            1 => String::new(),
            2 => " (and 1 more)".to_owned(),
            n => format!(" (and {} more)", n - 1),
        };
        if hidden::is_line_break(self.c) {
            format!("Spans several lines: {what} at character {}{more}. Write it on one line.", self.position)
        } else {
            format!(
                "Contains {what} at character {}{more}. Remove control, invisible and \
                 bidirectional characters: the AI reads them, the player does not see them.",
                self.position
            )
        }
    }
}

fn first_hidden(text: &str) -> Option<FirstHidden> {
    let mut first: Option<FirstHidden> = None;
    for (i, c) in text.chars().enumerate() {
        if !is_hidden_char(c) {
            continue;
        }
        let spacing = hidden::is_hidden_space(c);
        match &mut first {
            None => first = Some(FirstHidden { c, position: i + 1, count: 1, needs_second_pass: !spacing }),
            Some(f) => {
                f.count += 1;
                f.needs_second_pass |= !spacing;
            }
        }
    }
    first
}

/// The first match of each code.
#[derive(Default)]
struct Found {
    invisible: Option<String>,
    instructions: Option<String>,
    url: Option<String>,
    tool: Option<String>,
    superlative: Option<String>,
}

impl Found {
    fn into_findings(self) -> Vec<Finding> {
        let mut out = Vec::new();
        if let Some(message) = self.invisible {
            out.push(Finding { code: Code::InvisibleChars, message });
        }
        if let Some(shown) = self.instructions {
            out.push(Finding {
                code: Code::Instructions,
                message: format!(
                    "Looks like an instruction to the AI (\"{shown}\"). Say what the tool does \
                     and what it returns; the AI decides when to use it."
                ),
            });
        }
        if let Some(shown) = self.url {
            out.push(Finding {
                code: Code::UrlInText,
                message: format!(
                    "Contains a URL (\"{shown}\"). Remove it: the sites your plugin contacts are \
                     declared in permissions.network.hosts and shown to the player."
                ),
            });
        }
        if let Some(shown) = self.tool {
            out.push(Finding {
                code: Code::MentionsTool,
                message: format!(
                    "Mentions another tool (\"{shown}\"). Describe this tool only; the AI sees \
                     every tool and picks for itself."
                ),
            });
        }
        if let Some(shown) = self.superlative {
            out.push(Finding {
                code: Code::Superlative,
                message: format!(
                    "Uses a superlative (\"{shown}\"): avoid it, it does not help the AI choose \
                     better."
                ),
            });
        }
        out
    }

    fn set(slot: &mut Option<String>, shown: &str) {
        if slot.is_none() {
            *slot = Some(shown.to_owned());
        }
    }
}

/// What a pattern of the automaton means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Instruction,
    Superlative,
    /// The head of `SEQUENCE_RULES[i]`.
    Head(usize),
    /// `BUILTIN_TOOLS[i]`: a mention if the raw form reads it exactly (with
    /// its `_`; the words form reads `_` as a space) or if a tool context
    /// follows ("web search tool").
    Tool(usize),
    /// One of `BUILTIN_TOOL_WORDS`: a mention only in a tool context.
    ToolWord,
    Url,
    /// A scheme without `//`: a URL only if a non-space character follows.
    UrlScheme,
}

#[derive(Debug, Clone, Copy)]
struct Pattern {
    kind: Kind,
    /// The match must start at a word boundary.
    left: bool,
    /// The match must end at a word boundary.
    right: bool,
    /// The match must start a clause (`^` entries).
    clause_start: bool,
}

/// A normalised filler or object of a sequence rule.
struct Word {
    text: String,
    prefix: bool,
}

struct Rule {
    fillers: Vec<Word>,
    max_fillers: usize,
    objects: Vec<Word>,
}

/// Everything built once from `data.rs`.
struct Matchers {
    /// One automaton over the words form for every list.
    automaton: AhoCorasick,
    patterns: Vec<Pattern>,
    rules: Vec<Rule>,
    tags: Vec<&'static str>,
}

static MATCHERS: LazyLock<Matchers> = LazyLock::new(Matchers::build);

/// Splits the `^` and `*` markers off a data entry.
fn entry(phrase: &str) -> (bool, &str, bool) {
    let (clause_start, rest) = match phrase.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, phrase),
    };
    let (rest, prefix) = match rest.strip_suffix('*') {
        Some(rest) => (rest, true),
        None => (rest, false),
    };
    (clause_start, rest, prefix)
}

/// A letter or digit of the words form (`_` is a space there).
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// A letter or digit of a tool name.
fn is_raw_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A byte the words form reads as a space.
fn is_separator(b: u8) -> bool {
    matches!(b, b' ' | b'_' | b'-')
}

impl Matchers {
    fn build() -> Matchers {
        let mut strings: Vec<String> = Vec::new();
        let mut patterns = Vec::new();
        let mut add = |text: String, kind: Kind, clause_start: bool, prefix: bool| {
            let word = match kind {
                Kind::Tool(_) | Kind::ToolWord => is_raw_word_char,
                _ => is_word_char,
            };
            let left = text.chars().next().is_some_and(word);
            let right =
                !prefix && !matches!(kind, Kind::Url | Kind::UrlScheme) && text.chars().next_back().is_some_and(word);
            let pattern = Pattern { kind, left, right, clause_start };
            // Variants: "don't" also as "dont"; "system:" also as "system :".
            if text.contains('\'') {
                strings.push(text.replace('\'', ""));
                patterns.push(pattern);
            }
            if let Some(stem) = text.strip_suffix(':') {
                strings.push(format!("{stem} :"));
                patterns.push(pattern);
            }
            strings.push(text);
            patterns.push(pattern);
        };
        let mut add_phrase = |phrase: &str, kind: Kind| {
            let (clause_start, body, prefix) = entry(phrase);
            add(phrase_form(body), kind, clause_start, prefix);
        };
        for phrase in data::INSTRUCTION_PHRASES {
            add_phrase(phrase, Kind::Instruction);
        }
        for phrase in data::SUPERLATIVES {
            add_phrase(phrase, Kind::Superlative);
        }
        let mut rules = Vec::new();
        for (i, rule) in data::SEQUENCE_RULES.iter().enumerate() {
            for head in rule.heads {
                add_phrase(head, Kind::Head(i));
            }
            let words = |list: &[&str]| {
                list.iter()
                    .map(|w| {
                        let (_, body, prefix) = entry(w);
                        Word { text: phrase_form(body), prefix }
                    })
                    .collect()
            };
            rules.push(Rule {
                fillers: words(rule.fillers),
                max_fillers: rule.max_fillers,
                objects: words(rule.objects),
            });
        }
        for (i, name) in data::BUILTIN_TOOLS.iter().enumerate() {
            add_phrase(name, Kind::Tool(i));
        }
        for name in data::BUILTIN_TOOL_WORDS {
            add_phrase(name, Kind::ToolWord);
        }
        for start in data::URL_STARTS {
            add_phrase(start, Kind::Url);
        }
        for scheme in data::URL_SCHEMES {
            add_phrase(scheme, Kind::UrlScheme);
        }

        let automaton = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&strings)
            .unwrap_or_else(|e| panic!("the §5 word lists must build: {e}"));
        Matchers { automaton, patterns, rules, tags: data::TAG_WORDS.to_vec() }
    }

    /// Looks for every code but `invisible_chars` in one text, given its
    /// raw form and its words form (same offsets).
    fn scan(&self, raw: &str, words: &[u8], found: &mut Found) {
        for m in self.automaton.find_overlapping_iter(words) {
            let (start, end) = (m.start(), m.end());
            let pattern = self.patterns[m.pattern().as_usize()];
            let word = match pattern.kind {
                Kind::Tool(_) | Kind::ToolWord => is_raw_word_char,
                _ => is_word_char,
            };
            if !boundaries_ok(raw, start, end, &pattern, word) {
                continue;
            }
            if pattern.clause_start && !at_clause_start(raw, start) {
                continue;
            }
            let shown = &raw[start..end];
            match pattern.kind {
                Kind::Instruction => Found::set(&mut found.instructions, shown),
                Kind::Superlative => Found::set(&mut found.superlative, shown),
                Kind::Head(i) => {
                    if let Some(end) = self.rules[i].matches_after(raw, end) {
                        Found::set(&mut found.instructions, &raw[start..end]);
                    }
                }
                Kind::Tool(i) => {
                    if shown == data::BUILTIN_TOOLS[i] {
                        Found::set(&mut found.tool, shown);
                    } else if let Some(after) = followed_by(raw, end, data::TOOL_WORD_AFTER) {
                        Found::set(&mut found.tool, &raw[start..after]);
                    }
                }
                Kind::ToolWord => {
                    if let Some(after) = followed_by(raw, end, data::TOOL_WORD_AFTER) {
                        Found::set(&mut found.tool, &raw[start..after]);
                    } else if let Some(before) = preceded_by(raw, start, data::TOOL_WORD_BEFORE) {
                        Found::set(&mut found.tool, &raw[before..end]);
                    }
                }
                Kind::Url => Found::set(&mut found.url, token_around(raw, start, end)),
                Kind::UrlScheme => {
                    if raw[end..].chars().next().is_some_and(|c| c != ' ') {
                        Found::set(&mut found.url, token_around(raw, start, end));
                    }
                }
            }
        }
        if found.instructions.is_none() {
            if let Some(tag) = self.fake_tag(raw) {
                Found::set(&mut found.instructions, tag);
            }
        }
        if found.tool.is_none() {
            if let Some(name) = slug_tool_name(raw) {
                Found::set(&mut found.tool, name);
            }
        }
        if found.url.is_none() {
            if let Some(domain) = bare_domain(raw) {
                Found::set(&mut found.url, domain);
            }
        }
    }

    /// A fake prompt tag: `<system>`, `</system>`, `< system >`,
    /// `<|im_start|>`, `[INST]`, `<<SYS>>`, `<<tool_result …`.
    fn fake_tag<'a>(&self, raw: &'a str) -> Option<&'a str> {
        if !raw.contains('<') && !raw.contains('[') {
            return None;
        }
        let bytes = raw.as_bytes();
        let mut from = 0;
        while let Some(offset) = bytes[from..].iter().position(|&b| b == b'<' || b == b'[') {
            let i = from + offset;
            from = i + 1;
            let mut j = i + 1;
            let mut doubled = false;
            while j < bytes.len() && j - i <= 4 && matches!(bytes[j], b'<' | b'/' | b'|' | b'[' | b' ') {
                doubled |= matches!(bytes[j], b'<' | b'|');
                j += 1;
            }
            let start = j;
            while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                j += 1;
            }
            let ident = &raw[start..j];
            if ident.is_empty() || !self.tags.contains(&ident) {
                continue;
            }
            let mut k = j;
            while k < bytes.len() && bytes[k] == b' ' {
                k += 1;
            }
            if doubled || (k < bytes.len() && matches!(bytes[k], b'>' | b'|' | b']')) {
                let end = if k < bytes.len() { k + 1 } else { k };
                return Some(&raw[i..end]);
            }
        }
        None
    }
}

impl Rule {
    /// After a head ending at `at`: up to `max_fillers` fillers then an
    /// object; returns where the object ends.
    fn matches_after(&self, raw: &str, mut at: usize) -> Option<usize> {
        let bytes = raw.as_bytes();
        for _ in 0..=self.max_fillers {
            if !bytes.get(at).copied().is_some_and(is_separator) {
                return None;
            }
            at += 1;
            if let Some(len) = Self::word_at(&self.objects, &raw[at..]) {
                return Some(at + len);
            }
            at += Self::word_at(&self.fillers, &raw[at..])?;
        }
        None
    }

    /// The length of the first word of `list` that `rest` starts with (a
    /// space in a word matches a space, `_` or `-`).
    fn word_at(list: &[Word], rest: &str) -> Option<usize> {
        list.iter().find_map(|w| {
            let n = w.text.len();
            let head = rest.as_bytes().get(..n)?;
            let same = head.iter().zip(w.text.as_bytes()).all(|(&a, &b)| a == b || (b == b' ' && is_separator(a)));
            if !same || !rest.is_char_boundary(n) {
                return None;
            }
            let tail = &rest[n..];
            if w.prefix {
                Some(n + tail.find(|c: char| !is_word_char(c)).unwrap_or(tail.len()))
            } else if tail.chars().next().is_some_and(is_word_char) {
                None
            } else {
                Some(n)
            }
        })
    }
}

/// Where the first of `list` that follows `end` ends (at a word boundary
/// if it ends with a letter).
fn followed_by(raw: &str, end: usize, list: &[&str]) -> Option<usize> {
    let rest = &raw[end..];
    list.iter().find_map(|context| {
        let tail = rest.strip_prefix(context)?;
        let open = context.ends_with(|c: char| !is_word_char(c));
        (open || !tail.starts_with(is_raw_word_char)).then_some(end + context.len())
    })
}

/// Where the first of `list` that precedes `start` starts (at a word
/// boundary if it starts with a letter).
fn preceded_by(raw: &str, start: usize, list: &[&str]) -> Option<usize> {
    let before = &raw[..start];
    list.iter().find_map(|context| {
        let head = before.strip_suffix(context)?;
        let open = context.starts_with(|c: char| !is_word_char(c));
        (open || !head.ends_with(is_raw_word_char)).then_some(head.len())
    })
}

fn boundaries_ok(raw: &str, start: usize, end: usize, p: &Pattern, word: fn(char) -> bool) -> bool {
    if p.left && raw[..start].chars().next_back().is_some_and(word) {
        return false;
    }
    if p.right && raw[end..].chars().next().is_some_and(word) {
        return false;
    }
    true
}

/// Start of the text, or after sentence punctuation, a bracket or a quote
/// (one space allowed in between).
fn at_clause_start(raw: &str, start: usize) -> bool {
    let before = raw[..start].trim_end_matches([' ', '_', '-']);
    match before.chars().next_back() {
        None => true,
        Some(c) => matches!(c, '.' | '!' | '?' | ';' | ':' | '(' | '[' | '{' | '<' | '>' | '"' | '|' | '*' | '#' | '…'),
    }
}

/// The whitespace-delimited token around a match, cut at 60 bytes, to show
/// the author what was found.
fn token_around(raw: &str, start: usize, end: usize) -> &str {
    let from = raw[..start].rfind(' ').map_or(0, |i| i + 1);
    let to = raw[end..].find(' ').map_or(raw.len(), |i| end + i);
    let mut cut = to.min(from + 60);
    while !raw.is_char_boundary(cut) {
        cut -= 1;
    }
    raw[from..cut].trim_end_matches(['.', ',', ';', ')', '"'])
}

/// A `<slug>__<tool>` name: `[a-z0-9]{2,20}__[a-z0-9_]{1,40}`.
fn slug_tool_name(raw: &str) -> Option<&str> {
    let bytes = raw.as_bytes();
    let mut from = 0;
    while let Some(i) = raw[from..].find("__").map(|i| from + i) {
        from = i + 2;
        let slug_start =
            bytes[..i].iter().rev().take(20).take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit()).count();
        let tool_len = bytes[i + 2..]
            .iter()
            .take(40)
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || **b == b'_')
            .count();
        if slug_start >= 2 && tool_len >= 1 {
            return Some(&raw[i - slug_start..i + 2 + tool_len]);
        }
    }
    None
}

/// A host name written without scheme: `example.com`, `api.example.com/v1`,
/// `127.0.0.1:8420`. See [`data::COMMON_TLDS`] for when a bare name counts.
fn bare_domain(raw: &str) -> Option<&str> {
    let bytes = raw.as_bytes();
    let is_host = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.';
    let mut from = 0;
    while let Some(offset) = raw[from..].find('.') {
        let dot = from + offset;
        let mut start = dot;
        while start > 0 && is_host(bytes[start - 1]) {
            start -= 1;
        }
        let mut i = dot + 1;
        while i < bytes.len() && is_host(bytes[i]) {
            i += 1;
        }
        from = i;
        // Inside a longer word ("café.com" is not read), or an e-mail address.
        let before = raw[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '@' || c == '_') {
            continue;
        }
        let run = &raw[start..i];
        let host = run.trim_matches(|c| c == '.' || c == '-');
        if !host.contains('.') || host.split('.').any(|l| l.is_empty() || l.starts_with('-') || l.ends_with('-')) {
            continue;
        }
        let trimmed_end = run.ends_with(['.', '-']);
        let mut next = raw[i..].chars();
        let with_path = !trimmed_end
            && match next.next() {
                Some('/') => true,
                Some(':') => next.next().is_some_and(|c| c.is_ascii_digit()),
                _ => false,
            };
        let tld = host.rsplit('.').next().unwrap_or_default();
        let numeric = host.split('.').count() == 4
            && host.split('.').all(|l| l.len() <= 3 && l.bytes().all(|b| b.is_ascii_digit()));
        let alphabetic = (2..=24).contains(&tld.len()) && tld.bytes().all(|b| b.is_ascii_lowercase());
        if (with_path && (alphabetic || numeric)) || (alphabetic && data::COMMON_TLDS.contains(&tld)) {
            return Some(host);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    //! Every entry of every list of `data.rs`, in the variants an author
    //! (or an attacker) may write it: as is, upper case, spaced out, cut by
    //! a zero-width space, full-width, across lines, inside a sentence.
    use super::*;

    /// §9 step 6's cleaning, shared by answers, the masker and the journal.
    #[test]
    fn one_line_spaces_line_breaks_and_tabs_and_drops_other_hidden_characters() {
        assert_eq!(one_line("a\r\nb\tc"), "a  b c");
        assert_eq!(one_line("x\u{1b}[2J\u{202e}y\u{200b}z"), "x[2Jyz");
        assert_eq!(one_line("plain text"), "plain text");
    }

    fn full_width(text: &str) -> String {
        text.chars()
            .map(|c| match c {
                ' ' => '\u{3000}',
                '!'..='~' => char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c),
                _ => c,
            })
            .collect()
    }

    fn variants(body: &str) -> Vec<(String, bool)> {
        let mut first = body.chars();
        let head: String = first.next().into_iter().collect();
        vec![
            (body.to_owned(), false),
            (body.to_uppercase(), false),
            (body.replace(' ', "   "), false),
            (format!("{head}\u{200B}{}", first.as_str()), true),
            (full_width(body), false),
            (format!("Converts money. {body} now."), false),
            (format!("Converts money. {}", body.replace(' ', "\n")), body.contains(' ')),
        ]
    }

    #[track_caller]
    fn caught(list: &[&str], code: Code, wrap: impl Fn(&str) -> String) {
        for entry_text in list {
            let (_, body, _) = entry(entry_text);
            for (text, hidden) in variants(&wrap(body)) {
                let codes: Vec<Code> = check_ai_text(&text).iter().map(|f| f.code).collect();
                assert!(codes.contains(&code), "{text:?} should give {code}: {codes:?}");
                let has_hidden = hidden || text.contains('\n');
                assert_eq!(codes.contains(&Code::InvisibleChars), has_hidden, "{text:?}: {codes:?}");
            }
        }
    }

    #[test]
    fn s5_every_instruction_phrase_is_caught_in_every_variant() {
        caught(data::INSTRUCTION_PHRASES, Code::Instructions, str::to_owned);
    }

    #[test]
    fn s5_every_sequence_rule_is_caught_in_every_variant() {
        for rule in data::SEQUENCE_RULES {
            for head in rule.heads {
                let objects: Vec<String> = rule.objects.iter().map(|o| format!("{head} the {}", entry(o).1)).collect();
                let objects: Vec<&str> = objects.iter().map(String::as_str).collect();
                caught(&objects, Code::Instructions, str::to_owned);
            }
        }
    }

    #[test]
    fn s5_every_superlative_warns_in_every_variant() {
        caught(data::SUPERLATIVES, Code::Superlative, str::to_owned);
    }

    #[test]
    fn s5_every_builtin_tool_is_caught_in_every_variant() {
        caught(data::BUILTIN_TOOLS, Code::MentionsTool, str::to_owned);
        caught(data::BUILTIN_TOOL_WORDS, Code::MentionsTool, |w| format!("the {w} tool"));
        caught(data::BUILTIN_TOOL_WORDS, Code::MentionsTool, |w| format!("call {w}"));
    }

    #[test]
    fn s5_every_fake_tag_is_caught() {
        for tag in data::TAG_WORDS {
            for text in [format!("<{tag}>"), format!("</{tag}>"), format!("[{tag}]"), format!("<|{tag}|>")] {
                let codes: Vec<Code> = check_ai_text(&text).iter().map(|f| f.code).collect();
                assert!(codes.contains(&Code::Instructions), "{text:?}: {codes:?}");
            }
        }
    }

    #[test]
    fn s5_every_url_start_is_caught() {
        for start in data::URL_STARTS.iter().chain(data::URL_SCHEMES) {
            let text = format!("See {start}x1");
            let codes: Vec<Code> = check_ai_text(&text).iter().map(|f| f.code).collect();
            assert!(codes.contains(&Code::UrlInText), "{text:?}: {codes:?}");
        }
        for tld in data::COMMON_TLDS {
            let text = format!("See example.{tld} today");
            let codes: Vec<Code> = check_ai_text(&text).iter().map(|f| f.code).collect();
            assert!(codes.contains(&Code::UrlInText), "{text:?}: {codes:?}");
        }
    }
}
