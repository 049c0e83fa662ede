//! Which tools a turn offers when more are eligible than there is room for
//! (§17: 30 tools at most, built-in tools first; issue 34: "the 30 most
//! useful tools, not the first 30").
//!
//! The player's words are matched against each eligible tool's full name
//! (`<slug>__<tool>`), its hints (in the player's language and in English)
//! and its description. Each text is cut into words: lower case, split at
//! every character that is not a letter or a digit (Unicode), each
//! Chinese or Japanese character a word of its own (those scripts put no
//! space between words), and folded by [`fold`] so that "forecasts",
//! "raining" and "played" meet "forecast", "rain" and "play". Two words
//! also meet when the shorter, of 3 characters or more, begins the longer
//! ("sun" and "sunset", "euro" and "EUR": compounds, codes).
//!
//! A word of the player's counts once per field it meets a word of: 3 for
//! the name, 2 for the hints, 1 for the description, times its rarity
//! among the eligible tools (the BM25 inverse document frequency,
//! `ln(1 + (n − df + ½) / (df + ½))`, `df` the tools whose name, hints or
//! description it meets): a word in almost every tool ("the", "user's")
//! weighs about nothing, a word in a handful ("forecast") decides. No list
//! of stop words is needed, in any language. To its own score a tool adds
//! [`SIBLING`] of the best score among its plugin's tools (a plugin the
//! words are about brings the tool that reads the ids its action needs,
//! §17 "Ids versus names"). A tool the AI called earlier in the
//! conversation gets [`USED`] more, every other tool of its plugin
//! [`SAME_PLUGIN`] ("yes, that one" names nothing).
//!
//! The tools with the highest scores are kept; a tie goes to the one that
//! comes first in the offer's order (plugins by slug, tools in manifest
//! order), which is also the whole rule when the turn has no words and no
//! tool used (`dcplugin tools`, `dcplugin mcp`: a stable order). The kept
//! tools stay in that order: ranking decides which, not where. Everything
//! is a pure function of its inputs (no clock, no hash order), so a turn's
//! offer can be made again identically.
//!
//! The matching is by words only: a sentence that shares no word (nor
//! the beginning of one) with a tool's name, hints or description, as "on
//! foot" with "walking directions", does not find it. The plugins' words
//! are cut once into an [`Index`] (the host keeps it while no plugin
//! changes); a turn then folds its own words and looks each of the
//! index's distinct words up once (200 plugins × 15 tools: about 0.2 ms).

use dcp_format::language::Language;
use dcp_format::model::in_language;
use dcp_format::names::ToolRef;
use dcp_store::CallContext;
use std::collections::HashMap;
use std::sync::Arc;

/// Weight of a word in a tool's full name.
const NAME: f64 = 3.0;
/// Weight of a word in a tool's hint.
const HINT: f64 = 2.0;
/// Weight of a word in a tool's description.
const DESCRIPTION: f64 = 1.0;
/// Bonus of a tool the AI called earlier in the conversation: about what a
/// word found in the descriptions of only a few tools brings.
pub const USED: f64 = 6.0;
/// Bonus of the other tools of a plugin one of whose tools was called.
pub const SAME_PLUGIN: f64 = 2.0;
/// The share of its plugin's best-matching tool a tool gets beside its own
/// score: a plugin the words are about brings its other tools (a list
/// read for the id an action needs, §17 "Ids versus names") ahead of
/// tools that match as well by themselves but belong to no such plugin.
pub const SIBLING: f64 = 0.25;
/// The shortest word that meets a longer one it begins ([`meet`]).
const PREFIX: usize = 3;
/// Words of the player's counted at most (a paste of a long text must not
/// make the ranking slow); the first ones are kept.
const MAX_WORDS: usize = 64;

/// What a turn brings to the ranking: the player's words and the tools the
/// AI called earlier in the conversation (full names).
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// The player's words (empty: none).
    pub words: &'a str,
    /// Full names of the tools already called in this conversation.
    pub used: &'a [String],
}

/// The words of every tool of the installed plugins, cut and folded once
/// (they change only when a plugin does, the player's words at every
/// turn): each distinct word once, and each tool's fields as word numbers.
#[derive(Debug)]
pub struct Index {
    /// Each distinct folded word.
    words: Vec<String>,
    /// Each tool, plugins by slug then manifest order: its full name and
    /// the numbers of the words of its name, its hints, its description.
    tools: Vec<(ToolRef, [Vec<u32>; 3])>,
}

impl Index {
    /// The index of every tool of `plugins`, in their order (a plugin
    /// without a manifest has none), for a player speaking their language.
    pub fn of(plugins: &[Arc<CallContext>]) -> Index {
        let language = plugins.first().map_or(Language::En, |ctx| ctx.prefs.language);
        let mut index = Index { words: Vec::new(), tools: Vec::new() };
        let mut numbers: HashMap<String, u32> = HashMap::new();
        let mut buffer = String::new();
        for tool in plugins.iter().filter_map(|ctx| ctx.plugin.as_deref()).flat_map(|p| &p.tools) {
            let mut fields: [Vec<u32>; 3] = Default::default();
            let mut cut = |field: usize, text: &str| {
                words(text, |word| {
                    let folded = fold(word, &mut buffer);
                    let number = match numbers.get(folded) {
                        Some(n) => *n,
                        None => {
                            let n = index.words.len() as u32;
                            numbers.insert(folded.to_owned(), n);
                            index.words.push(folded.to_owned());
                            n
                        }
                    };
                    if !fields[field].contains(&number) {
                        fields[field].push(number);
                    }
                })
            };
            cut(0, tool.full_name.as_str());
            if let Some(hint) = in_language(&tool.hint, language) {
                cut(1, hint);
            }
            if language != Language::En {
                if let Some(hint) = tool.hint.get(Language::En.as_str()) {
                    cut(1, hint);
                }
            }
            cut(2, &tool.description);
            index.tools.push((tool.full_name.clone(), fields));
        }
        index
    }

    /// For each of the `eligible` tools (numbers in the index, in order),
    /// whether it is kept: all of them when they fit in `room`, else the
    /// `room` best for `asked`.
    pub fn keep(&self, eligible: &[usize], room: usize, asked: Asked<'_>) -> Vec<bool> {
        let scores = self.scores(eligible, asked);
        let mut order: Vec<usize> = (0..eligible.len()).collect();
        // Stable: equal scores keep the offer's order.
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let mut kept = vec![false; eligible.len()];
        for &i in order.iter().take(room) {
            kept[i] = true;
        }
        kept
    }

    /// The score of each of the `eligible` tools for `asked` (see the
    /// module's doc).
    pub fn scores(&self, eligible: &[usize], asked: Asked<'_>) -> Vec<f64> {
        let mut terms: Vec<String> = Vec::new();
        let mut buffer = String::new();
        words(asked.words, |word| {
            let term = fold(word, &mut buffer);
            if terms.len() < MAX_WORDS && !terms.iter().any(|t| t == term) {
                terms.push(term.to_owned());
            }
        });
        // Which terms each word meets, one bit per term: once per word of
        // the index, not once per word of each tool.
        let meets: Vec<u64> = if terms.is_empty() {
            Vec::new()
        } else {
            let first: Vec<u8> = terms.iter().map(|t| t.as_bytes()[0]).collect();
            self.words
                .iter()
                .map(|word| {
                    let mut mask = 0;
                    for (i, term) in terms.iter().enumerate() {
                        // Meeting words begin alike: most differ at once.
                        if first[i] == word.as_bytes()[0] && meet(term, word) {
                            mask |= 1 << i;
                        }
                    }
                    mask
                })
                .collect()
        };
        // Which of the terms each field of each tool has.
        let found: Vec<[u64; 3]> = eligible
            .iter()
            .map(|&t| {
                let fields = &self.tools[t].1;
                [0, 1, 2]
                    .map(|f| fields[f].iter().fold(0, |mask, &w| mask | meets.get(w as usize).copied().unwrap_or(0)))
            })
            .collect();
        // The plugins of the tools already called, once.
        let plugins: Vec<&str> = asked.used.iter().filter_map(|u| u.split_once("__").map(|(slug, _)| slug)).collect();
        let n = eligible.len() as f64;
        let rarity: Vec<f64> = (0..terms.len())
            .map(|i| {
                let df = found.iter().filter(|f| (f[0] | f[1] | f[2]) & (1 << i) != 0).count() as f64;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        let own: Vec<f64> = found
            .iter()
            .map(|fields| {
                let mut score = 0.0;
                for (i, weight) in rarity.iter().enumerate() {
                    for (field, factor) in [NAME, HINT, DESCRIPTION].into_iter().enumerate() {
                        if fields[field] & (1 << i) != 0 {
                            score += factor * weight;
                        }
                    }
                }
                score
            })
            .collect();
        let name = |i: usize| &self.tools[eligible[i]].0;
        // The best own score of each plugin: the eligible tools of a plugin
        // come one after the other, so a run of the same slug is a plugin.
        let mut best = vec![0.0f64; eligible.len()];
        let mut start = 0;
        while start < eligible.len() {
            let slug = name(start).slug();
            let end = start + (start..eligible.len()).take_while(|&i| name(i).slug() == slug).count();
            let top = own[start..end].iter().copied().fold(0.0, f64::max);
            best[start..end].fill(top);
            start = end;
        }
        (0..eligible.len())
            .map(|i| {
                let mut score = own[i] + SIBLING * best[i];
                if asked.used.iter().any(|u| u == name(i).as_str()) {
                    score += USED;
                } else if plugins.contains(&name(i).slug()) {
                    score += SAME_PLUGIN;
                }
                score
            })
            .collect()
    }
}

/// A word of the player's and a word of a tool meet when they are the
/// same once folded, or when one begins the other and has at least
/// [`PREFIX`] characters: "sun" meets "sunset", "euro" meets "EUR",
/// "play" meets "playlist" (compound words, codes and abbreviations).
fn meet(player: &str, tool: &str) -> bool {
    let (short, long) = if player.len() <= tool.len() { (player, tool) } else { (tool, player) };
    short == long || (short.chars().count() >= PREFIX && long.starts_with(short))
}

/// Calls `each` with every word of `text`: runs of letters and digits, each
/// Chinese or Japanese character on its own.
fn words(text: &str, mut each: impl FnMut(&str)) {
    let mut start = None;
    for (i, c) in text.char_indices() {
        let alone = ideograph(c);
        if !c.is_alphanumeric() || alone {
            if let Some(s) = start.take() {
                each(&text[s..i]);
            }
            if alone {
                each(&text[i..i + c.len_utf8()]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        each(&text[s..]);
    }
}

/// Hiragana, katakana and the CJK ideographs: scripts written without spaces.
fn ideograph(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

/// `word` in lower case with an English plural or verb ending taken off
/// (into `buffer`, reused): "cities" → "city", "forecasts" → "forecast",
/// "raining" → "rain", "stopped" → "stop", "notes" and "note" → "not".
/// The same folding on both sides is what matters, not real stems: two
/// words that meet by accident ("note" and "not") only cost a little
/// precision, never a tool.
pub fn fold<'b>(word: &str, buffer: &'b mut String) -> &'b str {
    buffer.clear();
    buffer.extend(word.chars().flat_map(char::to_lowercase));
    let b = buffer;
    let n = b.len();
    if n > 4 && b.ends_with("ies") {
        b.truncate(n - 3);
        b.push('y');
    } else if n > 3 && b.ends_with('s') && !b.ends_with("ss") && !b.ends_with("us") && !b.ends_with("is") {
        b.truncate(n - 1);
    }
    for ending in ["ing", "ed"] {
        let n = b.len();
        if n > ending.len() + 2 && b.ends_with(ending) {
            b.truncate(n - ending.len());
            undouble(b);
            break;
        }
    }
    let n = b.len();
    if n > 3 && b.ends_with('e') {
        b.truncate(n - 1);
    }
    b.as_str()
}

/// "stopp" → "stop", "runn" → "run" (what "stopped" and "running" leave).
fn undouble(b: &mut String) {
    let bytes = b.as_bytes();
    let n = bytes.len();
    if n >= 3 && bytes[n - 1] == bytes[n - 2] && bytes[n - 1].is_ascii_alphabetic() && !b"lsz".contains(&bytes[n - 1]) {
        b.truncate(n - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(word: &str) -> String {
        fold(word, &mut String::new()).to_owned()
    }

    #[test]
    fn fold_meets_plural_and_verb_forms() {
        for (a, b) in [
            ("forecasts", "forecast"),
            ("Cities", "city"),
            ("raining", "rain"),
            ("played", "play"),
            ("stopped", "stop"),
            ("saved", "save"),
            ("Notes", "note"),
            ("timers", "timer"),
            ("songs", "song"),
            ("lights", "light"),
        ] {
            assert_eq!(folded(a), folded(b), "{a} / {b}");
        }
        assert_eq!(folded("status"), "status");
        assert_eq!(folded("météo"), "météo");
    }

    #[test]
    fn words_split_at_anything_but_letters_and_digits() {
        let mut all = Vec::new();
        words("weather__forecast: what's Lyon's 5-day? 天気予報", |w| all.push(w.to_owned()));
        assert_eq!(all, ["weather", "forecast", "what", "s", "Lyon", "s", "5", "day", "天", "気", "予", "報"]);
    }
}
