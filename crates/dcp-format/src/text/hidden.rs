//! Which characters are hidden, and what they are called.
//!
//! A hidden character is one a reader cannot see but the AI reads: it can
//! hide words, reorder a line (bidi), smuggle text (tag characters) or split
//! a phrase so a filter misses it. The set is, by Unicode 16.0 data:
//!
//! - every control character (General_Category Cc: U+0000–U+001F,
//!   U+007F–U+009F), line breaks and tabs included;
//! - every format character (Cc's neighbour Cf): soft hyphen, bidi marks,
//!   embeddings, overrides and isolates, zero-width space/joiners, word
//!   joiner and invisible operators, BOM, interlinear annotation, tag
//!   characters, Arabic/Syriac/Kaithi/Egyptian/shorthand/musical format
//!   controls;
//! - the line and paragraph separators U+2028, U+2029 (Zl, Zp);
//! - the rest of Default_Ignorable_Code_Point, which a category filter
//!   misses: U+034F combining grapheme joiner, variation selectors
//!   U+FE00–U+FE0F and U+E0100–U+E01EF (Mn), Mongolian free variation
//!   selectors U+180B–U+180F, Khmer inherent vowels U+17B4–U+17B5, Hangul
//!   fillers U+115F, U+1160, U+3164, U+FFA0 (Lo), the reserved U+2065,
//!   U+FFF0–U+FFF8 and the whole plane-14 block U+E0000–U+E0FFF;
//! - U+2800 BRAILLE PATTERN BLANK, which renders as a space but is a letter.
//!
//! Emoji sequences use U+200D and U+FE0F: a text the AI reads cannot carry
//! them (plain emoji still pass), and cleaned answers lose them (§9).
//!
//! The table is small and sorted; a lookup is a binary search, after a
//! one-comparison fast path for printable ASCII.

/// Inclusive ranges of hidden characters, sorted, not overlapping.
const HIDDEN: &[(u32, u32)] = &[
    (0x0000, 0x001F),
    (0x007F, 0x009F),
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

/// True for a hidden character (see the module doc).
pub fn is_hidden(c: char) -> bool {
    let cp = c as u32;
    if (0x20..0x7F).contains(&cp) {
        return false;
    }
    HIDDEN
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// True for a hidden character that breaks a line or separates words
/// (line feed, tab, …): the matcher reads it as a space, never as nothing.
pub fn is_hidden_space(c: char) -> bool {
    matches!(c, '\t'..='\r' | '\u{1C}'..='\u{1F}' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// True for a character that ends a line (the "several lines" of §5).
pub fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Names of the hidden characters an author is likely to meet.
const NAMES: &[(u32, &str)] = &[
    (0x0009, "CHARACTER TABULATION (tab)"),
    (0x000A, "LINE FEED (line break)"),
    (0x000B, "LINE TABULATION"),
    (0x000C, "FORM FEED"),
    (0x000D, "CARRIAGE RETURN (line break)"),
    (0x001B, "ESCAPE"),
    (0x007F, "DELETE"),
    (0x0085, "NEXT LINE (line break)"),
    (0x00AD, "SOFT HYPHEN"),
    (0x034F, "COMBINING GRAPHEME JOINER"),
    (0x061C, "ARABIC LETTER MARK"),
    (0x115F, "HANGUL CHOSEONG FILLER"),
    (0x1160, "HANGUL JUNGSEONG FILLER"),
    (0x180E, "MONGOLIAN VOWEL SEPARATOR"),
    (0x200B, "ZERO WIDTH SPACE"),
    (0x200C, "ZERO WIDTH NON-JOINER"),
    (0x200D, "ZERO WIDTH JOINER"),
    (0x200E, "LEFT-TO-RIGHT MARK"),
    (0x200F, "RIGHT-TO-LEFT MARK"),
    (0x2028, "LINE SEPARATOR"),
    (0x2029, "PARAGRAPH SEPARATOR"),
    (0x202A, "LEFT-TO-RIGHT EMBEDDING"),
    (0x202B, "RIGHT-TO-LEFT EMBEDDING"),
    (0x202C, "POP DIRECTIONAL FORMATTING"),
    (0x202D, "LEFT-TO-RIGHT OVERRIDE"),
    (0x202E, "RIGHT-TO-LEFT OVERRIDE"),
    (0x2060, "WORD JOINER"),
    (0x2061, "FUNCTION APPLICATION"),
    (0x2062, "INVISIBLE TIMES"),
    (0x2063, "INVISIBLE SEPARATOR"),
    (0x2064, "INVISIBLE PLUS"),
    (0x2066, "LEFT-TO-RIGHT ISOLATE"),
    (0x2067, "RIGHT-TO-LEFT ISOLATE"),
    (0x2068, "FIRST STRONG ISOLATE"),
    (0x2069, "POP DIRECTIONAL ISOLATE"),
    (0x2800, "BRAILLE PATTERN BLANK"),
    (0x3164, "HANGUL FILLER"),
    (0xFEFF, "ZERO WIDTH NO-BREAK SPACE (byte order mark)"),
    (0xFFA0, "HALFWIDTH HANGUL FILLER"),
    (0xFFF9, "INTERLINEAR ANNOTATION ANCHOR"),
    (0xFFFA, "INTERLINEAR ANNOTATION SEPARATOR"),
    (0xFFFB, "INTERLINEAR ANNOTATION TERMINATOR"),
    (0xE0001, "LANGUAGE TAG"),
    (0xE007F, "CANCEL TAG"),
];

/// A readable name for a hidden character: "U+200B ZERO WIDTH SPACE".
pub fn describe(c: char) -> String {
    let cp = c as u32;
    let name: String = if let Ok(i) = NAMES.binary_search_by_key(&cp, |&(k, _)| k) {
        NAMES[i].1.to_owned()
    } else if (0xFE00..=0xFE0F).contains(&cp) {
        format!("VARIATION SELECTOR-{}", cp - 0xFE00 + 1)
    } else if (0xE0100..=0xE01EF).contains(&cp) {
        format!("VARIATION SELECTOR-{}", cp - 0xE0100 + 17)
    } else if (0xE0020..=0xE007E).contains(&cp) {
        format!("TAG CHARACTER (hides the letter '{}')", char::from_u32(cp - 0xE0000).unwrap_or('?'))
    } else if (0xE0000..=0xE0FFF).contains(&cp) {
        "TAG CHARACTER".to_owned()
    } else if c.is_control() {
        "control character".to_owned()
    } else {
        "invisible format character".to_owned()
    };
    format!("U+{cp:04X} {name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted() {
        assert!(HIDDEN.windows(2).all(|w| w[0].1 < w[1].0));
        assert!(HIDDEN.iter().all(|&(lo, hi)| lo <= hi));
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(NAMES.iter().all(|&(cp, _)| char::from_u32(cp).is_some_and(is_hidden)));
    }

    #[test]
    fn every_control_is_hidden() {
        for cp in 0..=0x10FFFFu32 {
            if let Some(c) = char::from_u32(cp) {
                if c.is_control() {
                    assert!(is_hidden(c), "U+{cp:04X}");
                }
            }
        }
    }
}
