//! Quote-like characters in a program's event text (§16).
//!
//! The AI reads the text between double quotes, inside a message wrapped in
//! parentheses. A reader (the AI included) may take any quotation mark or
//! bracket of any script as the end of that quotation: ASCII `"`, `”`, `»`,
//! `„`, `」`, `』`, `〉`, `)`… Deciding which ones close the quotation in which
//! of the 10 languages is fragile, so none is left: every character that
//! can open or close a quotation or a bracket becomes the ASCII apostrophe,
//! the one quote-like character that closes nothing here (no message quotes
//! with it). The text keeps its words; only its punctuation is flattened.
//!
//! The set is Unicode's categories Pi and Pf (initial and final quotes), Ps
//! and Pe (every opening and closing bracket, quotation brackets such as
//! `「」` and `„` among them), and the quotation marks filed elsewhere: `"`,
//! `＂`, `＇`, the Hebrew gershayim `״`, the ditto mark `〃` and the
//! quotation ornaments `❛❜❝❞❟❠` and U+1F676–U+1F678. Made from Unicode 14
//! data (`unicodedata.category` in Python 3.11).

/// Every quote-like character, as sorted inclusive ranges.
const QUOTE_LIKE: &[(char, char)] = &[
    ('\u{22}', '\u{22}'),
    ('\u{28}', '\u{29}'),
    ('\u{5B}', '\u{5B}'),
    ('\u{5D}', '\u{5D}'),
    ('\u{7B}', '\u{7B}'),
    ('\u{7D}', '\u{7D}'),
    ('\u{AB}', '\u{AB}'),
    ('\u{BB}', '\u{BB}'),
    ('\u{5F4}', '\u{5F4}'),
    ('\u{F3A}', '\u{F3D}'),
    ('\u{169B}', '\u{169C}'),
    ('\u{2018}', '\u{201F}'),
    ('\u{2039}', '\u{203A}'),
    ('\u{2045}', '\u{2046}'),
    ('\u{207D}', '\u{207E}'),
    ('\u{208D}', '\u{208E}'),
    ('\u{2308}', '\u{230B}'),
    ('\u{2329}', '\u{232A}'),
    ('\u{275B}', '\u{2760}'),
    ('\u{2768}', '\u{2775}'),
    ('\u{27C5}', '\u{27C6}'),
    ('\u{27E6}', '\u{27EF}'),
    ('\u{2983}', '\u{2998}'),
    ('\u{29D8}', '\u{29DB}'),
    ('\u{29FC}', '\u{29FD}'),
    ('\u{2E02}', '\u{2E05}'),
    ('\u{2E09}', '\u{2E0A}'),
    ('\u{2E0C}', '\u{2E0D}'),
    ('\u{2E1C}', '\u{2E1D}'),
    ('\u{2E20}', '\u{2E29}'),
    ('\u{2E42}', '\u{2E42}'),
    ('\u{2E55}', '\u{2E5C}'),
    ('\u{3003}', '\u{3003}'),
    ('\u{3008}', '\u{3011}'),
    ('\u{3014}', '\u{301B}'),
    ('\u{301D}', '\u{301F}'),
    ('\u{FD3E}', '\u{FD3F}'),
    ('\u{FE17}', '\u{FE18}'),
    ('\u{FE35}', '\u{FE44}'),
    ('\u{FE47}', '\u{FE48}'),
    ('\u{FE59}', '\u{FE5E}'),
    ('\u{FF02}', '\u{FF02}'),
    ('\u{FF07}', '\u{FF09}'),
    ('\u{FF3B}', '\u{FF3B}'),
    ('\u{FF3D}', '\u{FF3D}'),
    ('\u{FF5B}', '\u{FF5B}'),
    ('\u{FF5D}', '\u{FF5D}'),
    ('\u{FF5F}', '\u{FF60}'),
    ('\u{FF62}', '\u{FF63}'),
    ('\u{1F676}', '\u{1F678}'),
];

/// The neutral stand-in of a quote-like character.
const NEUTRAL: char = '\'';

/// True for a character that could open or close a quotation.
pub fn is_quote_like(c: char) -> bool {
    // The first range not ending before `c` holds it, if any does.
    let i = QUOTE_LIKE.partition_point(|&(_, last)| last < c);
    QUOTE_LIKE.get(i).is_some_and(|&(first, _)| first <= c)
}

/// The text with every quote-like character written as an apostrophe.
pub fn neutralise(text: &str) -> String {
    text.chars().map(|c| if is_quote_like(c) { NEUTRAL } else { c }).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every character of the table, for the tests of each language.
    pub(crate) fn all() -> impl Iterator<Item = char> {
        QUOTE_LIKE.iter().flat_map(|&(first, last)| first..=last)
    }

    #[test]
    fn the_table_is_sorted_and_disjoint() {
        for pair in QUOTE_LIKE.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:?}");
        }
    }

    #[test]
    fn s16_every_kind_of_quote_and_bracket_is_flattened_words_are_kept() {
        let closers = "\"”“»«」『』„‚‘’‹›「〝〞〟＂＇〃״❞❝〉》】〕）)]}⸥";
        assert_eq!(neutralise(closers), "'".repeat(closers.chars().count()));
        let words = "Session 2 of 4 done: café, 完了, d'accord — 5 min.";
        assert_eq!(neutralise(words), words);
    }
}
