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
//! 3. Phrase lists (`data.rs`) are matched with one Aho-Corasick automaton
//!    per form, built once; a few small scanners add what a list cannot
//!    say: fake tags, `<slug>__<tool>` names and bare domains.
//!
//! Each code is reported at most once per text, with the first match.
//!
//! *Cost:* one pass to find hidden characters, one to normalise (ASCII
//! texts skip Unicode normalisation), two automaton passes; no allocation
//! per character. A text with a hidden character costs twice that.

mod data;
mod hidden;
mod normalize;

use crate::problem::Code;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
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
    let hidden = first_hidden(text);
    if let Some(h) = &hidden {
        found.invisible = Some(h.message());
    }
    let matchers = &*MATCHERS;
    let mut raw = String::with_capacity(text.len());
    let mut words = String::with_capacity(text.len());
    raw_form(text, Hidden::Remove, &mut raw);
    words_form(&raw, &mut words);
    matchers.scan(&raw, &words, &mut found);
    if hidden.is_some_and(|h| h.needs_second_pass) {
        raw.clear();
        words.clear();
        raw_form(text, Hidden::Space, &mut raw);
        words_form(&raw, &mut words);
        matchers.scan(&raw, &words, &mut found);
    }
    found.into_findings()
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
            format!(
                "Spans several lines: {what} at character {}{more}. Write it on one line.",
                self.position
            )
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
    if text.is_ascii() && !text.bytes().any(|b| b < 0x20 || b == 0x7F) {
        return None;
    }
    let mut first: Option<FirstHidden> = None;
    for (i, c) in text.chars().enumerate() {
        if !is_hidden_char(c) {
            continue;
        }
        let spacing = hidden::is_hidden_space(c);
        match &mut first {
            None => {
                first = Some(FirstHidden { c, position: i + 1, count: 1, needs_second_pass: !spacing })
            }
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

/// What a pattern of the words automaton means.
#[derive(Debug, Clone, Copy)]
enum WordsKind {
    Instruction,
    Superlative,
    /// The head of `SEQUENCE_RULES[i]`.
    Head(usize),
}

/// What a pattern of the raw automaton means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RawKind {
    Tool,
    Url,
    /// A scheme without `//`: a URL only if a non-space character follows.
    UrlScheme,
}

#[derive(Debug, Clone, Copy)]
struct Pattern<K> {
    kind: K,
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

struct Matchers {
    words: AhoCorasick,
    words_patterns: Vec<Pattern<WordsKind>>,
    raw: AhoCorasick,
    raw_patterns: Vec<Pattern<RawKind>>,
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

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

fn is_raw_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl Matchers {
    fn build() -> Matchers {
        let mut words_strings = Vec::new();
        let mut words_patterns = Vec::new();
        let mut add_words = |phrase: &str, kind: WordsKind| {
            let (clause_start, body, prefix) = entry(phrase);
            let text = phrase_form(body);
            let left = text.chars().next().is_some_and(is_word_char);
            let right = !prefix && text.chars().next_back().is_some_and(is_word_char);
            words_strings.push(text);
            words_patterns.push(Pattern { kind, left, right, clause_start });
        };
        for phrase in data::INSTRUCTION_PHRASES {
            add_words(phrase, WordsKind::Instruction);
        }
        for phrase in data::SUPERLATIVES {
            add_words(phrase, WordsKind::Superlative);
        }
        let mut rules = Vec::new();
        for (i, rule) in data::SEQUENCE_RULES.iter().enumerate() {
            for head in rule.heads {
                add_words(head, WordsKind::Head(i));
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

        let mut raw_strings = Vec::new();
        let mut raw_patterns = Vec::new();
        let mut add_raw = |text: String, kind: RawKind| {
            let left = text.chars().next().is_some_and(is_raw_word_char);
            let right = kind == RawKind::Tool && text.chars().next_back().is_some_and(is_raw_word_char);
            raw_strings.push(text);
            raw_patterns.push(Pattern { kind, left, right, clause_start: false });
        };
        for name in data::BUILTIN_TOOLS {
            add_raw((*name).to_owned(), RawKind::Tool);
            add_raw(format!("{} tool", name.replace('_', " ")), RawKind::Tool);
            add_raw(format!("{} tools", name.replace('_', " ")), RawKind::Tool);
        }
        for name in data::BUILTIN_TOOL_WORDS {
            for context in data::TOOL_WORD_CONTEXTS {
                add_raw(context.replace("{}", name), RawKind::Tool);
            }
        }
        for start in data::URL_STARTS {
            add_raw((*start).to_owned(), RawKind::Url);
        }
        for scheme in data::URL_SCHEMES {
            add_raw((*scheme).to_owned(), RawKind::UrlScheme);
        }

        let build = |patterns: &[String]| {
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::Standard)
                .build(patterns)
                .unwrap_or_else(|e| panic!("the §5 word lists must build: {e}"))
        };
        Matchers {
            words: build(&words_strings),
            words_patterns,
            raw: build(&raw_strings),
            raw_patterns,
            rules,
            tags: data::TAG_WORDS.to_vec(),
        }
    }

    /// Looks for every code but `invisible_chars` in the two forms of one
    /// text.
    fn scan(&self, raw: &str, words: &str, found: &mut Found) {
        for m in self.words.find_overlapping_iter(words) {
            let pattern = self.words_patterns[m.pattern().as_usize()];
            if !boundaries_ok(words, m.start(), m.end(), &pattern, is_word_char) {
                continue;
            }
            if pattern.clause_start && !at_clause_start(words, m.start()) {
                continue;
            }
            match pattern.kind {
                WordsKind::Instruction => Found::set(&mut found.instructions, &words[m.start()..m.end()]),
                WordsKind::Superlative => Found::set(&mut found.superlative, &words[m.start()..m.end()]),
                WordsKind::Head(i) => {
                    if let Some(end) = self.rules[i].matches_after(words, m.end()) {
                        Found::set(&mut found.instructions, &words[m.start()..end]);
                    }
                }
            }
        }
        if found.instructions.is_none() {
            if let Some(tag) = self.fake_tag(raw) {
                Found::set(&mut found.instructions, tag);
            }
        }
        for m in self.raw.find_overlapping_iter(raw) {
            let pattern = self.raw_patterns[m.pattern().as_usize()];
            if !boundaries_ok(raw, m.start(), m.end(), &pattern, is_raw_word_char) {
                continue;
            }
            match pattern.kind {
                RawKind::Tool => Found::set(&mut found.tool, &raw[m.start()..m.end()]),
                RawKind::Url => Found::set(&mut found.url, token_around(raw, m.start(), m.end())),
                RawKind::UrlScheme => {
                    let next = raw[m.end()..].chars().next();
                    if next.is_some_and(|c| c != ' ') {
                        Found::set(&mut found.url, token_around(raw, m.start(), m.end()));
                    }
                }
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
        let bytes = raw.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b != b'<' && b != b'[' {
                continue;
            }
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
    fn matches_after(&self, words: &str, mut at: usize) -> Option<usize> {
        for _ in 0..=self.max_fillers {
            let rest = words[at..].strip_prefix(' ')?;
            at += 1;
            if let Some(end) = Self::word_at(&self.objects, rest) {
                return Some(at + end);
            }
            let end = Self::word_at(&self.fillers, rest)?;
            at += end;
        }
        None
    }

    /// The length of the first word of `list` that `rest` starts with.
    fn word_at(list: &[Word], rest: &str) -> Option<usize> {
        list.iter().find_map(|w| {
            let tail = rest.strip_prefix(w.text.as_str())?;
            if w.prefix {
                let more = tail.find(|c: char| !is_word_char(c)).unwrap_or(tail.len());
                Some(w.text.len() + more)
            } else if tail.chars().next().is_some_and(is_word_char) {
                None
            } else {
                Some(w.text.len())
            }
        })
    }
}

fn boundaries_ok<K>(text: &str, start: usize, end: usize, p: &Pattern<K>, word: fn(char) -> bool) -> bool {
    if p.left && text[..start].chars().next_back().is_some_and(word) {
        return false;
    }
    if p.right && text[end..].chars().next().is_some_and(word) {
        return false;
    }
    true
}

/// Start of the text, or after sentence punctuation, a bracket or a quote
/// (one space allowed in between).
fn at_clause_start(words: &str, start: usize) -> bool {
    let before = words[..start].trim_end_matches(' ');
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
        let slug_start = bytes[..i]
            .iter()
            .rev()
            .take(20)
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            .count();
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
    let mut i = 0;
    while i < bytes.len() {
        if !is_host(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_host(bytes[i]) {
            i += 1;
        }
        let run = &raw[start..i];
        if !run.contains('.') {
            continue;
        }
        // Inside a longer word ("café.com" is not read), or an e-mail address.
        let before = raw[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '@' || c == '_') {
            continue;
        }
        let host = run.trim_matches(|c| c == '.' || c == '-');
        let trimmed_end = run.ends_with(['.', '-']);
        let labels: Vec<&str> = host.split('.').collect();
        if labels.len() < 2 || labels.iter().any(|l| l.is_empty() || l.starts_with('-') || l.ends_with('-')) {
            continue;
        }
        let next = raw[i..].chars().next();
        let after_next = raw[i..].chars().nth(1);
        let with_path = !trimmed_end
            && (next == Some('/') || (next == Some(':') && after_next.is_some_and(|c| c.is_ascii_digit())));
        let Some(tld) = labels.last() else { continue };
        let numeric = labels.len() == 4 && labels.iter().all(|l| l.len() <= 3 && l.bytes().all(|b| b.is_ascii_digit()));
        let alphabetic = (2..=24).contains(&tld.len()) && tld.bytes().all(|b| b.is_ascii_lowercase());
        if (with_path && (alphabetic || numeric)) || (alphabetic && data::COMMON_TLDS.contains(tld)) {
            return Some(host);
        }
    }
    None
}
