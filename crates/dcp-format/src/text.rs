//! Texts the AI reads (spec §5) and the character classes every cleaner uses
//! (§7 arguments, §9 answers, §16 event texts).
//!
//! STUB: being written; the signatures below are the contract.

use crate::problem::Code;

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
pub fn check_ai_text(_text: &str) -> Vec<Finding> {
    Vec::new()
}

/// True for a character no text may carry: control, invisible, bidi, format,
/// tag, variation selector, filler.
pub fn is_hidden_char(c: char) -> bool {
    c.is_control()
}

/// Removes hidden characters (§7 arguments, §9 answers).
pub fn remove_hidden(text: &str) -> String {
    text.chars().filter(|c| !is_hidden_char(*c)).collect()
}

/// Replaces hidden characters by spaces (§16 event texts).
pub fn hidden_to_spaces(text: &str) -> String {
    text.chars()
        .map(|c| if is_hidden_char(c) { ' ' } else { c })
        .collect()
}
