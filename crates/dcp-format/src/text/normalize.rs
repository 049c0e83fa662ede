//! The two forms a text is matched in.
//!
//! - The **raw form** keeps punctuation, `_` and `-`: URLs, tool names and
//!   fake tags are looked for there. It is the text
//!   1. without hidden characters (removed, or read as spaces: see
//!      [`Hidden`]; line breaks and tabs are always spaces),
//!   2. in compatibility decomposition (NFKD, one character at a time:
//!      the canonical reordering it skips only moves marks) without
//!      combining marks:
//!      NFKC's folding (`ｈｔｔｐｓ：／／` → `https://`, `ﬁ` → `fi`,
//!      `𝐢𝐠𝐧𝐨𝐫𝐞` → `ignore`) plus accent stripping (`ignóre` → `ignore`),
//!   3. lowercased (`char::to_lowercase`, close enough to case folding for
//!      the ASCII phrases we look for: `ß` stays `ß` and matches nothing),
//!   4. with Cyrillic and Greek letters that look like Latin ones folded to
//!      them (`ignоre` with a Cyrillic `о` → `ignore`), curly apostrophes to
//!      `'` and dashes to `-`,
//!   5. with runs of whitespace collapsed to one space, trimmed.
//! - The **words form** is the raw form with `_` and `-` read as spaces,
//!   byte for byte, so that a match in one form is at the same offsets in
//!   the other. Phrases are looked for there. (Phrases with an apostrophe
//!   or ending with a colon get variants: "dont", "system :".)
//!
//! Not caught: homoglyphs outside the small fold table (Armenian, Cherokee,
//! mathematical letters NFKD does not fold), letters spaced out
//! ("i g n o r e"), words cut by punctuation ("ig.nore"), leetspeak
//! ("1gn0re") and other languages.
//!
//! An ASCII text skips steps 2 and 4 (they cannot change it); a clean
//! ASCII text (printable, single spaces) is only lowercased.

use super::hidden::{is_hidden, is_hidden_space};
use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// What a hidden character (other than a line break or a tab) becomes
/// before matching. Matching runs with [`Hidden::Remove`], and again with
/// [`Hidden::Space`] when the text has such a character, so that neither
/// "ig\u{200B}nore" nor "previous\u{200B}instructions" hides a phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hidden {
    /// Dropped: "ig\u{200B}nore" reads "ignore".
    Remove,
    /// A space: "previous\u{200B}instructions" reads "previous instructions".
    Space,
}

/// Appends the raw form of `text` to `out` (which should be empty).
pub(crate) fn raw_form(text: &str, hidden: Hidden, out: &mut String) {
    if is_clean_ascii(text) {
        out.push_str(text);
        out.make_ascii_lowercase();
        return;
    }
    if text.is_ascii() {
        for b in text.bytes() {
            let c = b as char;
            if is_hidden(c) {
                if hidden == Hidden::Space || is_hidden_space(c) {
                    push_space(out);
                }
            } else if c == ' ' {
                push_space(out);
            } else {
                out.push(c.to_ascii_lowercase());
            }
        }
    } else {
        // Compatibility decomposition one character at a time: canonical
        // reordering only moves combining marks, which are all dropped.
        for c in text.chars() {
            if is_hidden(c) {
                if hidden == Hidden::Space || is_hidden_space(c) {
                    push_space(out);
                }
            } else if c.is_ascii() {
                push_folded(out, c.to_ascii_lowercase());
            } else {
                decompose_compatible(c, |d| {
                    if is_combining_mark(d) || is_hidden(d) {
                        return;
                    }
                    if d.is_ascii() {
                        push_folded(out, d.to_ascii_lowercase());
                    } else {
                        for l in d.to_lowercase() {
                            push_folded(out, fold(l));
                        }
                    }
                });
            }
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
}

/// Writes the words form of a raw form to `out`: the same bytes with `_`
/// and `-` read as spaces, so offsets in both forms are the same.
pub(crate) fn words_form(raw: &str, out: &mut Vec<u8>) {
    out.clear();
    out.extend(raw.bytes().map(|b| if b == b'_' || b == b'-' { b' ' } else { b }));
}

/// The words form of a phrase from the data lists, as text.
pub(crate) fn phrase_form(phrase: &str) -> String {
    let mut raw = String::with_capacity(phrase.len());
    raw_form(phrase, Hidden::Remove, &mut raw);
    raw.replace(['_', '-'], " ")
}

/// A clean ASCII text (printable, single spaces, no space at either end)
/// is its own raw form once lowercased.
fn is_clean_ascii(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().all(|&b| (0x20..0x7F).contains(&b))
        && !text.contains("  ")
        && bytes.first() != Some(&b' ')
        && bytes.last() != Some(&b' ')
}

fn push_folded(out: &mut String, c: char) {
    if c.is_whitespace() {
        push_space(out);
    } else {
        out.push(c);
    }
}

fn push_space(out: &mut String) {
    if !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

/// Lowercase look-alikes folded to the Latin letter they imitate, and
/// punctuation variants folded to ASCII. Only for matching: the author's
/// text is never changed.
fn fold(c: char) -> char {
    match c {
        // Cyrillic
        'а' => 'a',
        'в' => 'b',
        'с' | 'ҫ' => 'c',
        'ԁ' => 'd',
        'е' | 'ё' | 'є' => 'e',
        'һ' => 'h',
        'і' | 'ї' | 'ӏ' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'м' => 'm',
        'п' => 'n',
        'о' => 'o',
        'р' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'т' => 't',
        'у' | 'ү' => 'y',
        'ԝ' => 'w',
        'х' | 'ҳ' => 'x',
        // Greek
        'α' => 'a',
        'β' => 'b',
        'ϲ' => 'c',
        'ε' => 'e',
        'η' => 'n',
        'ι' => 'i',
        'κ' => 'k',
        'ν' => 'v',
        'ο' | 'σ' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        'γ' => 'y',
        // Latin look-alikes NFKD leaves alone
        'ı' => 'i',
        'ȷ' => 'j',
        'ɡ' => 'g',
        'ɑ' => 'a',
        // Punctuation
        '\u{2018}' | '\u{2019}' | '\u{201B}' | '\u{2032}' | '\u{02BC}' | '\u{00B4}' => '\'',
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => '-',
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> String {
        let mut out = String::new();
        raw_form(text, Hidden::Remove, &mut out);
        out
    }

    #[test]
    fn raw_form_folds() {
        assert_eq!(raw("  IGNORE\t previous  "), "ignore previous");
        assert_eq!(raw("ｈｔｔｐｓ：／／x"), "https://x");
        assert_eq!(raw("ign\u{043E}re"), "ignore");
        assert_eq!(raw("ign\u{00F3}re"), "ignore");
        assert_eq!(raw("a\u{200B}b\nc"), "ab c");
        assert_eq!(phrase_form("Don\u{2019}t  tell_the-user"), "don't tell the user");
        assert_eq!(raw("Ignore Previous"), "ignore previous");
    }
}
