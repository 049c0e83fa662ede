//! Secrets replaced by `[secret]` in any answer or error that would contain
//! them (§11), in every spelling a server commonly echoes them in: the one
//! masker of the engine, here below every crate that needs it (dcp-call
//! masks a plugin's secrets and credentials, dcp-ai the AI's key; issue 32).
//!
//! What is masked: each secret of the plugin, and each credential exactly
//! as the app sent it (an auth header's or query parameter's whole value,
//! fixed text included); for the companion's AI, its key. A server may echo one
//! * as written, or in another case (a server upper-casing a token or a
//!   whole line): letters match in any case, by full Unicode case mapping
//!   (see [`fold`]);
//! * JSON-escaped, in any legal form: `\/`, `\"`, `\\`, `\b\f\n\r\t`, and
//!   `\uXXXX` for any character in either case of hex (PHP writes `/` as
//!   `\/` and non-ASCII as `\u00e9`, Go writes `<>&` as `\u003c`…; a
//!   character outside the BMP as a surrogate pair);
//! * percent-encoded, hex in either case, a space as `%20` or `+`, every
//!   byte or only the reserved ones;
//! * as HTML character references ending in `;`: named (the whole HTML
//!   table, `&amp;`, `&eacute;`…), decimal (`&#233;`) or hex (`&#xE9;`);
//! * and one of these inside another (JSON in a JSON string, a URL in
//!   JSON, HTML in JSON…): two layers are decoded;
//! * in base64, standard or URL-safe, padded or not: alone, or inside a
//!   longer encoded text such as a Basic `Authorization` header echoed back
//!   (base64 of `user:value`, `value:`, `user:value:more`);
//! * in hex, lower or upper case, alone or inside longer hex.
//!
//! Base64 of a value inside a longer text depends on where the value starts
//! modulo 3 bytes, and its first and last characters mix its bits with the
//! unknown bytes beside it. So each value gives three *cores*, one per
//! alignment: the characters its bytes alone decide. A core is searched as
//! written (base64 is case-sensitive), and a match is widened by the one
//! character on each side that mixes the value's bits with its neighbours',
//! so no bit of the value is left beside the mask. Base64 and hex are
//! masked only for values of [`ENCODED_MIN_BYTES`] bytes or more: every
//! core then has 8 characters at least (48 bits), which innocent text does
//! not hold by chance, whereas the base64 or hex of a 3-byte value is any
//! short word or number. Shorter values are still masked in every other
//! spelling.
//!
//! How: the text is searched as written and in each decoded view of it
//! (JSON escapes, percent escapes, HTML references decoded, and each of
//! those decoded once more); every decoded byte remembers where its escape
//! started in the text, so a match in a view masks exactly the escapes
//! that spell the secret. A view is built only when the text holds its
//! escape character (`\`, `%`, `&`). In each view the cores are searched as
//! they are, and everything else in the view case-folded (ASCII text is
//! folded in place; other text character by character, each folded byte
//! remembering its character). Each value is found with memchr's substring
//! search (SIMD), one pass per spelling and view: a call has a few values,
//! so the cost stays linear in the answer's size. An Aho-Corasick
//! automaton of all values made one pass, but building it cost 20 to 60 µs,
//! twice per call, more than the rest of the host's overhead on a call;
//! a substring finder is built in nanoseconds.
//! A `+` is a space in a form and a `+` elsewhere, and a server may mix
//! both ways in one echo (a value encoded twice, or sloppily): `+` and
//! space are matched as the same character, in the values and in every
//! view. The price is a value with a `+` masking the same text with a
//! space, which only hides more.

use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use base64::Engine;
use memchr::memmem::Finder;
use std::borrow::Cow;
use std::sync::Arc;

/// The stand-in of a secret (§11), the one spelling of the engine: what
/// the masker puts in place of a secret's every spelling, what a
/// [`Sensitive`] and a vault key print, what a request shown to the
/// player has in place of a credential.
///
/// [`Sensitive`]: crate::Sensitive
pub const MASK: &str = "[secret]";

/// The shortest value whose base64 and hex spellings are masked (see the
/// module doc).
pub const ENCODED_MIN_BYTES: usize = 7;

/// How many escape layers are decoded.
const LAYERS: usize = 2;

/// The longest HTML character reference looked for after a `&`
/// (`&CounterClockwiseContourIntegral;` is 33 bytes; a numeric one with
/// leading zeros may be longer, and is left alone past this).
const LONGEST_REFERENCE: usize = 40;

/// The values one call must never show, ready to be found in any text.
pub struct Masker {
    /// Spellings found in case-folded views: each value as written and
    /// cleaned, and its hex.
    folded: Vec<Finder<'static>>,
    /// Base64 cores, found as written.
    cores: Vec<Core>,
}

/// One base64 core of a value, and whether the character before it and
/// the one after it mix the value's bits with its neighbours'.
struct Core {
    finder: Finder<'static>,
    before: bool,
    after: bool,
}

impl Masker {
    /// A masker of `values` (secrets and credentials as sent); empty
    /// values are ignored.
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Masker {
        let values: Vec<&str> = values.into_iter().filter(|v| !v.is_empty()).collect();
        let mut folded: Vec<String> = Vec::new();
        let mut cores: Vec<(String, bool, bool)> = Vec::new();
        for &value in &values {
            folded.push(fold_str(&value.replace('+', " ")));
            // The text is cleaned before it is masked (§9 step 6, dcp-call's
            // `answer::clean`): a value is also searched in that form.
            folded.push(fold_str(&dcp_format::text::one_line(value).replace('+', " ")));
            // A credential holding a secret (`Bearer <token>`) needs no
            // encoded spellings of its own: any base64 or hex of it holds
            // the secret's, which are masked.
            let holds_another =
                |other: &&str| other.len() >= ENCODED_MIN_BYTES && other.len() < value.len() && value.contains(*other);
            if value.len() >= ENCODED_MIN_BYTES && !values.iter().any(holds_another) {
                folded.push(hex::encode(value));
                cores.extend(base64_cores(value.as_bytes()));
            }
        }
        folded.retain(|n| !n.is_empty());
        folded.sort();
        folded.dedup();
        cores.sort();
        cores.dedup();
        Masker {
            folded: folded.iter().map(|n| Finder::new(n.as_bytes()).into_owned()).collect(),
            cores: cores
                .iter()
                .map(|(n, before, after)| Core {
                    finder: Finder::new(n.as_bytes()).into_owned(),
                    before: *before,
                    after: *after,
                })
                .collect(),
        }
    }

    /// `text` with every spelling of every value replaced by [`MASK`].
    pub fn mask(&self, text: &str) -> String {
        match self.mask_bytes(text.as_bytes()) {
            Cow::Borrowed(_) => text.to_owned(),
            // Masked spans end on character boundaries (see `widen`).
            Cow::Owned(bytes) => utf8(bytes),
        }
    }

    /// The same on raw bytes (an answer's body before it is parsed).
    pub fn mask_bytes<'t>(&self, text: &'t [u8]) -> Cow<'t, [u8]> {
        let spans = self.spans(text);
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(replace(text, spans))
    }

    /// The spans of `text` that spell a value, overlapping or not.
    fn spans(&self, text: &[u8]) -> Vec<(usize, usize)> {
        let mut spans = Vec::new();
        if !self.folded.is_empty() {
            let plain = fold_plus(text);
            self.search(&View { bytes: &plain, starts: None, end: text.len() }, 0, &mut spans);
        }
        spans
    }

    /// Where in `text` a spelling of a value may have begun that the text
    /// coming after it would finish: the end of `text` when nowhere (see
    /// [`MaskStream`]).
    fn open_from(&self, text: &[u8]) -> usize {
        let mut open = text.len();
        if !self.folded.is_empty() {
            let plain = fold_plus(text);
            self.open_in(&View { bytes: &plain, starts: None, end: text.len() }, 0, &mut open);
        }
        open
    }

    /// [`Masker::open_from`] in `view` and in the views decoded from it: a
    /// tail of a view that begins a spelling, or an escape at its end that
    /// more text may finish (the view decoded before that escape is then
    /// searched for a tail too).
    fn open_in(&self, view: &View<'_>, layer: usize, open: &mut usize) {
        let len = view.bytes.len();
        // A decoded view may end inside a character (`%cf` of `%cf%bf`):
        // folded, its bytes begin no spelling yet may still end as one. It
        // is held, and so is any tail before it that begins a spelling
        // (`%00` of `%00%cf%bf` for a value "\0Ͽ"): that view, cut before
        // the character, is searched for one.
        if let Some(at) = unfinished_char(view.bytes) {
            *open = (*open).min(view.at(at));
            let starts = view.starts.map(|s| &s[..at]);
            self.open_in(&View { bytes: &view.bytes[..at], starts, end: view.at(at) }, layer, open);
        }
        for core in &self.cores {
            // A core that ends the text still waits for the character after
            // it, and the character before a core is masked with it: a core
            // may begin right after the text's last character.
            let begun = begun(view.bytes, core.finder.needle(), core.after);
            let Some(start) = begun.or(core.before.then_some(len)) else { continue };
            let start = if core.before && start > 0 && is_base64(view.bytes[start - 1]) { start - 1 } else { start };
            if start < len {
                *open = (*open).min(view.at(start));
            }
        }
        let folded = fold(view);
        let folded = folded.view(view);
        for finder in &self.folded {
            if let Some(start) = begun(folded.bytes, finder.needle(), false) {
                *open = (*open).min(folded.at(start));
            }
        }
        if layer == LAYERS {
            return;
        }
        for (decode, unfinished) in DECODERS {
            let pending = unfinished(view.bytes);
            let done = pending.unwrap_or(view.bytes.len());
            if let Some(at) = pending {
                *open = (*open).min(view.at(at));
            }
            let end = view.at(done);
            match decode(&view.bytes[..done]) {
                Some(decoded) => self.open_in(&decoded.mapped(view).view(end), layer + 1, open),
                // Nothing decoded before the pending escape: that part is
                // searched as it is, ending where the escape begins.
                None if pending.is_some() => {
                    let starts = view.starts.map(|s| &s[..done]);
                    self.open_in(&View { bytes: &view.bytes[..done], starts, end }, layer + 1, open);
                }
                None => {}
            }
        }
    }

    /// Records the spans of the original text that `view` shows holding a
    /// value, then searches the views decoded from this one.
    fn search(&self, view: &View<'_>, layer: usize, spans: &mut Vec<(usize, usize)>) {
        for core in &self.cores {
            spans.extend(occurrences(&core.finder, view.bytes).map(|found| core.widen(view, found)));
        }
        let folded = fold(view);
        let folded = folded.view(view);
        for finder in &self.folded {
            spans.extend(occurrences(finder, folded.bytes).map(|(start, end)| (folded.at(start), folded.end_at(end))));
        }
        if layer == LAYERS {
            return;
        }
        for (decode, _) in DECODERS {
            if let Some(decoded) = decode(view.bytes) {
                self.search(&decoded.mapped(view).view(view.end), layer + 1, spans);
            }
        }
    }
}

/// A [`Masker`] over a text that comes in pieces (an AI's streamed answer,
/// issue 32): a spelling may be cut between two pieces, so each piece is
/// given back masked except its tail that could still begin a spelling
/// (any view's tail that begins a value's spelling, or an escape the next
/// piece could finish), which is held back and given with the next piece
/// or at the end ([`MaskStream::finish`]). What is held is bounded by the
/// longest spelling: text that begins none is given at once.
pub struct MaskStream {
    masker: Arc<Masker>,
    held: String,
}

impl MaskStream {
    /// A stream masked by `masker`.
    pub fn new(masker: Arc<Masker>) -> MaskStream {
        MaskStream { masker, held: String::new() }
    }

    /// The text so far that no later piece can change, masked (maybe empty).
    pub fn push(&mut self, piece: &str) -> String {
        self.held.push_str(piece);
        let text = self.held.as_bytes();
        let spans: Vec<(usize, usize)> = self.masker.spans(text).into_iter().map(|s| widen(text, s)).collect();
        let mut cut = self.masker.open_from(text);
        // A spelling found across the cut stays whole, with what follows.
        while let Some(&(start, _)) = spans.iter().find(|&&(start, end)| start < cut && end > cut) {
            cut = start;
        }
        while !self.held.is_char_boundary(cut) {
            cut -= 1;
        }
        let before: Vec<(usize, usize)> = spans.into_iter().filter(|&(_, end)| end <= cut).collect();
        let given = match before.is_empty() {
            true => self.held[..cut].to_owned(),
            false => utf8(replace(&text[..cut], before)),
        };
        self.held.drain(..cut);
        given
    }

    /// What is still held, masked: the stream ended.
    pub fn finish(self) -> String {
        self.masker.mask(&self.held)
    }
}

impl Core {
    /// A match in `view` widened by the characters that mix the value's
    /// bits with its neighbours', as a span of the original.
    fn widen(&self, view: &View<'_>, (start, end): (usize, usize)) -> (usize, usize) {
        let base64_at = |i: usize| view.bytes.get(i).copied().is_some_and(is_base64);
        let start = if self.before && start > 0 && base64_at(start - 1) { start - 1 } else { start };
        let end = if self.after && base64_at(end) { end + 1 } else { end };
        (view.at(start), view.end_at(end))
    }
}

/// Where the UTF-8 character that `bytes` ends inside of begins, if it
/// ends inside one (a lead byte with fewer continuation bytes than it
/// announces).
fn unfinished_char(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let lead = bytes[len - back];
        if lead & 0xC0 == 0x80 {
            continue;
        }
        let needs = match lead {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return None,
        };
        return (back < needs).then_some(len - back);
    }
    None
}

/// Every occurrence of `finder`'s needle in `bytes`, overlapping ones too
/// ("abab" twice in "ababab"), as (start, end).
fn occurrences<'a>(finder: &'a Finder<'_>, bytes: &'a [u8]) -> impl Iterator<Item = (usize, usize)> + 'a {
    let len = finder.needle().len();
    let mut from = 0;
    std::iter::from_fn(move || {
        let start = from + finder.find(&bytes[from..])?;
        from = start + 1;
        Some((start, start + len))
    })
}

/// Where the longest tail of `bytes` that begins `needle` starts (the
/// whole needle too when `whole` is set), if one does.
fn begun(bytes: &[u8], needle: &[u8], whole: bool) -> Option<usize> {
    let longest = if whole { needle.len() } else { needle.len().saturating_sub(1) };
    (1..=longest.min(bytes.len())).rev().find(|&k| bytes.ends_with(&needle[..k])).map(|k| bytes.len() - k)
}

/// The three base64 cores of `value` (see the module doc), in both
/// alphabets, as (needle, a character mixed before, a character mixed after).
fn base64_cores(value: &[u8]) -> Vec<(String, bool, bool)> {
    let mut cores = Vec::new();
    for offset in 0..3 {
        // The value after `offset` bytes of a 3-byte group: which bytes
        // come before it changes only the characters that mix with them.
        let mut aligned = vec![0u8; offset];
        aligned.extend_from_slice(value);
        let (first_bit, end_bit) = (8 * offset, 8 * aligned.len());
        let (first, last) = (first_bit.div_ceil(6), end_bit / 6);
        let (before, after) = (first_bit % 6 != 0, end_bit % 6 != 0);
        for encoded in [STANDARD_NO_PAD.encode(&aligned), URL_SAFE_NO_PAD.encode(&aligned)] {
            cores.push((encoded[first..last].replace('+', " "), before, after));
        }
    }
    cores
}

/// A base64 character of either alphabet (`+` read as a space, as in every view).
fn is_base64(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b' ' | b'/' | b'-' | b'_')
}

/// A text searched for values: its bytes, and where each one starts in the
/// original text (`None`: at the same index), `end` being the original's
/// end.
#[derive(Clone, Copy)]
struct View<'a> {
    bytes: &'a [u8],
    starts: Option<&'a [usize]>,
    end: usize,
}

impl View<'_> {
    /// Where byte `i` of the view starts in the original (its end past the last byte).
    fn at(&self, i: usize) -> usize {
        match self.starts {
            _ if i >= self.bytes.len() => self.end,
            None => i,
            Some(starts) => starts[i],
        }
    }

    /// Where the bytes before `i` end in the original: at the start of the
    /// first byte after them that another escape or character spells (a
    /// match may end inside what one spells: `f` in the fold `ffi` of `ﬃ`).
    fn end_at(&self, i: usize) -> usize {
        let Some(last) = i.checked_sub(1).map(|j| self.at(j)) else { return self.at(0) };
        (i..self.bytes.len()).map(|j| self.at(j)).find(|&start| start != last).unwrap_or(self.end)
    }
}

/// A decoded view: its bytes, and where each one's escape starts in the
/// view it was decoded from.
struct Decoded {
    bytes: Vec<u8>,
    starts: Vec<usize>,
}

type Decoder = fn(&[u8]) -> Option<Decoded>;

/// Where an escape at the end of a text begins that more text could
/// finish (`%4`, `\u00`, `&eacu`), if one does.
type Unfinished = fn(&[u8]) -> Option<usize>;

/// Each escape layer's decoder, with its unfinished escape.
const DECODERS: [(Decoder, Unfinished); 3] =
    [(json_unescape, json_unfinished), (percent_decode, percent_unfinished), (html_unescape, html_unfinished)];

impl Decoded {
    fn with_capacity(n: usize) -> Decoded {
        Decoded { bytes: Vec::with_capacity(n), starts: Vec::with_capacity(n) }
    }

    fn push(&mut self, bytes: &[u8], start: usize) {
        self.bytes.extend(bytes.iter().map(|&b| if b == b'+' { b' ' } else { b }));
        self.starts.extend(std::iter::repeat_n(start, bytes.len()));
    }

    /// The view, when it decoded anything: every escape is longer than
    /// what it spells, so a view as long as its text is that text.
    fn if_decoded(self, text: &[u8]) -> Option<Decoded> {
        (self.bytes.len() < text.len()).then_some(self)
    }

    /// The same, each start mapped through `parent` to the original text.
    fn mapped(mut self, parent: &View<'_>) -> Decoded {
        self.starts.iter_mut().for_each(|s| *s = parent.at(*s));
        self
    }

    /// A view of it, whose starts are in the original text, of `end` bytes.
    fn view(&self, end: usize) -> View<'_> {
        View { bytes: &self.bytes, starts: Some(&self.starts), end }
    }
}

/// A view's text case-folded (see [`fold_char`]).
enum Folded {
    /// Nothing to fold: no ASCII capital, and every other character its
    /// own fold.
    Same,
    /// ASCII lowercased, every other character its own fold: every byte
    /// stays where it was.
    InPlace(Vec<u8>),
    /// Text with a character whose fold differs (`É`, `ß`), folded
    /// character by character (a fold may change a character's length):
    /// starts mapped to the original.
    Moved(Decoded),
}

impl Folded {
    /// The folded text as a view of the original `view` was folded from.
    fn view<'a>(&'a self, view: &View<'a>) -> View<'a> {
        match self {
            Folded::Same => *view,
            Folded::InPlace(bytes) => View { bytes, ..*view },
            Folded::Moved(decoded) => decoded.view(view.end),
        }
    }
}

fn fold(view: &View<'_>) -> Folded {
    let text = view.bytes;
    let moves = |c: char| !c.is_ascii() && !fold_char(c).eq([c]);
    if text.is_ascii() || !text.utf8_chunks().any(|chunk| chunk.valid().chars().any(moves)) {
        return match text.iter().any(u8::is_ascii_uppercase) {
            true => Folded::InPlace(text.to_ascii_lowercase()),
            false => Folded::Same,
        };
    }
    let mut out = Decoded::with_capacity(text.len());
    let mut at = 0;
    let mut buffer = [0u8; 4];
    for chunk in text.utf8_chunks() {
        for c in chunk.valid().chars() {
            // Most characters are ASCII even here: folded without Unicode tables.
            if c.is_ascii() {
                out.bytes.push((c as u8).to_ascii_lowercase());
                out.starts.push(at);
            } else {
                for folded in fold_char(c) {
                    out.push(folded.encode_utf8(&mut buffer).as_bytes(), at);
                }
            }
            at += c.len_utf8();
        }
        for &byte in chunk.invalid() {
            out.push(&[byte], at);
            at += 1;
        }
    }
    Folded::Moved(out.mapped(view))
}

/// A character in one case of all: lower case of the upper case of its
/// lower case. Upper- or lower-casing a text (by `str::to_uppercase`,
/// `to_lowercase`, or character by character) never changes the fold of
/// any character, which plain lower case would not ensure: `ẞ` lowers to
/// `ß`, whose upper case is `SS`.
fn fold_char(c: char) -> impl Iterator<Item = char> {
    c.to_lowercase().flat_map(char::to_uppercase).flat_map(char::to_lowercase)
}

fn fold_str(text: &str) -> String {
    match text.is_ascii() {
        true => text.to_ascii_lowercase(),
        false => text.chars().flat_map(fold_char).collect(),
    }
}

/// JSON string escapes decoded wherever they appear; `None` without `\`.
fn json_unescape(text: &[u8]) -> Option<Decoded> {
    memchr(b'\\', text)?;
    let mut out = Decoded::with_capacity(text.len());
    let mut i = 0;
    let mut buffer = [0u8; 4];
    while i < text.len() {
        let (bytes, used) = json_escape_at(text, i, &mut buffer);
        out.push(bytes, i);
        i += used;
    }
    out.if_decoded(text)
}

/// The bytes spelled at `i` (written in `buffer` when decoded) and how
/// many bytes spell them: one escape, or one byte as written (a `\` that
/// starts no valid escape included).
fn json_escape_at<'b>(text: &'b [u8], i: usize, buffer: &'b mut [u8; 4]) -> (&'b [u8], usize) {
    if text[i] != b'\\' || i + 1 == text.len() {
        return (&text[i..=i], 1);
    }
    let simple = match text[i + 1] {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        b'/' => Some(b'/'),
        b'b' => Some(0x08),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        _ => None,
    };
    if let Some(byte) = simple {
        buffer[0] = byte;
        return (&buffer[..1], 2);
    }
    match unicode_escape_at(text, i) {
        Some((c, used)) => (c.encode_utf8(buffer).as_bytes(), used),
        None => (&text[i..=i], 1),
    }
}

/// A `\uXXXX` escape (or a surrogate pair of two) at `i`.
fn unicode_escape_at(text: &[u8], i: usize) -> Option<(char, usize)> {
    let unit = |at: usize| -> Option<u32> {
        let digits = text.get(at..at + 6)?;
        if &digits[..2] != b"\\u" {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(&digits[2..]).ok()?, 16).ok()
    };
    let first = unit(i)?;
    if (0xD800..0xDC00).contains(&first) {
        let second = unit(i + 6).filter(|u| (0xDC00..0xE000).contains(u))?;
        let c = char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))?;
        return Some((c, 12));
    }
    Some((char::from_u32(first)?, 6))
}

/// The JSON escape at the end of `text` that more text could finish: a
/// lone `\`, `\u` and fewer than four hex digits, or a high surrogate
/// (`\uD83D`) whose low half may follow. Escapes are read from the start,
/// as [`json_unescape`] reads them (`\\` is one escape).
fn json_unfinished(text: &[u8]) -> Option<usize> {
    // The longest unfinished escape: a high surrogate and five bytes of its low half.
    let from = text.len().saturating_sub(11);
    let mut buffer = [0u8; 4];
    let mut i = 0;
    while i < text.len() {
        let (_, used) = json_escape_at(text, i, &mut buffer);
        if i >= from && used == 1 && text[i] == b'\\' && unfinished_json_escape(&text[i..]) {
            return Some(i);
        }
        i += used;
    }
    None
}

/// True when `rest`, a `\` read as itself, begins a longer escape.
fn unfinished_json_escape(rest: &[u8]) -> bool {
    // `\`, `\u`, `\u0`, … `\u004`: the start of a `\uXXXX`.
    let unit_begun = |part: &[u8]| {
        part.len() < 6
            && part.first().is_none_or(|&b| b == b'\\')
            && part.get(1).is_none_or(|&b| b == b'u')
            && part.iter().skip(2).all(u8::is_ascii_hexdigit)
    };
    let high_surrogate =
        rest.get(2..6).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u32::from_str_radix(h, 16).ok());
    unit_begun(rest)
        || (rest.starts_with(b"\\u")
            && high_surrogate.is_some_and(|u| (0xD800..0xDC00).contains(&u))
            && unit_begun(&rest[6..]))
}

/// The `%` at the end of `text` that one or two more characters could make
/// an escape of. A `%` is never a hex digit of another escape.
fn percent_unfinished(text: &[u8]) -> Option<usize> {
    match text {
        [.., b'%'] => Some(text.len() - 1),
        [.., b'%', digit] if digit.is_ascii_hexdigit() => Some(text.len() - 2),
        _ => None,
    }
}

/// The `&` at the end of `text` that a `;` within [`LONGEST_REFERENCE`]
/// bytes could make a reference of (see [`reference_at`]).
fn html_unfinished(text: &[u8]) -> Option<usize> {
    let at = text.iter().rposition(|&b| b == b'&')?;
    let rest = &text[at + 1..];
    (rest.len() < LONGEST_REFERENCE && !rest.contains(&b';')).then_some(at)
}

/// `%XX` escapes decoded (either case); `None` without `%`.
fn percent_decode(text: &[u8]) -> Option<Decoded> {
    memchr(b'%', text)?;
    let mut out = Decoded::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let hex = text.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match hex.filter(|_| text[i] == b'%').and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(byte) => {
                out.push(&[byte], i);
                i += 3;
            }
            None => {
                out.push(&text[i..=i], i);
                i += 1;
            }
        }
    }
    out.if_decoded(text)
}

/// HTML character references decoded (see [`reference_at`]); `None` without `&`.
fn html_unescape(text: &[u8]) -> Option<Decoded> {
    memchr(b'&', text)?;
    let mut out = Decoded::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        match reference_at(text, i) {
            Some((decoded, used)) => {
                out.push(decoded.as_bytes(), i);
                i += used;
            }
            None => {
                out.push(&text[i..=i], i);
                i += 1;
            }
        }
    }
    out.if_decoded(text)
}

/// The HTML character reference at `i` (named, `&#NNN;` or `&#xHH;`, ending
/// in `;`), decoded by html-escape's table, and its length.
fn reference_at(text: &[u8], i: usize) -> Option<(String, usize)> {
    if text[i] != b'&' {
        return None;
    }
    let window = &text[i + 1..text.len().min(i + 1 + LONGEST_REFERENCE)];
    let end = window.iter().position(|&b| b == b';' || b == b'&').filter(|&at| window[at] == b';')?;
    let reference = std::str::from_utf8(&text[i..i + end + 2]).ok()?;
    // One `&` and one `;`: decoded whole, or not at all.
    match html_escape::decode_html_entities(reference) {
        Cow::Owned(decoded) => Some((decoded, reference.len())),
        Cow::Borrowed(_) => None,
    }
}

/// `text` with every `+` read as a space (see the module doc).
fn fold_plus(text: &[u8]) -> Cow<'_, [u8]> {
    match memchr(b'+', text) {
        None => Cow::Borrowed(text),
        Some(_) => Cow::Owned(text.iter().map(|&b| if b == b'+' { b' ' } else { b }).collect()),
    }
}

fn memchr(byte: u8, text: &[u8]) -> Option<usize> {
    text.iter().position(|&b| b == byte)
}

/// `text` with the union of `spans` replaced, one [`MASK`] per run of
/// overlapping spans.
fn replace(text: &[u8], mut spans: Vec<(usize, usize)>) -> Vec<u8> {
    spans.sort_unstable();
    let mut out = Vec::with_capacity(text.len());
    let mut copied = 0;
    let mut iter = spans.into_iter().map(|s| widen(text, s)).peekable();
    while let Some((start, mut end)) = iter.next() {
        while let Some(&(next, next_end)) = iter.peek() {
            if next >= end {
                break;
            }
            end = end.max(next_end);
            iter.next();
        }
        let start = start.max(copied);
        out.extend_from_slice(&text[copied..start]);
        out.extend_from_slice(MASK.as_bytes());
        copied = copied.max(end);
    }
    out.extend_from_slice(&text[copied..]);
    out
}

/// Masked text: spans end on character boundaries (see [`widen`]).
fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A span widened to whole UTF-8 characters, so masking never splits one.
fn widen(text: &[u8], (mut start, mut end): (usize, usize)) -> (usize, usize) {
    let inside = |i: usize| i < text.len() && text[i] & 0xC0 == 0x80;
    while start > 0 && inside(start) {
        start -= 1;
    }
    while inside(end) {
        end += 1;
    }
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "AKIAxy/Zk+PqR9w=\"q\\<&> é😀";

    /// Percent-encoding as a URL's query writes it: every byte but the
    /// unreserved ones, uppercase hex.
    fn encode(value: &str) -> String {
        let unreserved = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        value.bytes().map(|b| if unreserved(b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
    }

    /// Percent-encoding as a form writes it: lowercase hex, `+` for space.
    fn lower_hex_form(value: &str) -> String {
        let upper = encode(value).replace("%20", "+");
        let mut out = String::new();
        let mut rest = upper.as_str();
        while let Some(at) = rest.find('%') {
            out.push_str(&rest[..at]);
            out.push_str(&rest[at..at + 3].to_lowercase());
            rest = &rest[at + 3..];
        }
        out + rest
    }

    /// The spellings of [`SECRET`] a server commonly echoes (see the module doc).
    fn spellings() -> Vec<String> {
        vec![
            SECRET.to_owned(),
            r#"AKIAxy\/Zk+PqR9w=\"q\\<&> \u00e9\ud83d\ude00"#.to_owned(),
            r#"AKIAxy/Zk+PqR9w=\"q\\\u003c\u0026\u003e é😀"#.to_owned(),
            SECRET
                .chars()
                .map(|c| format!("\\u{:04X}", c as u32))
                .collect::<String>()
                .replace("\\u1F600", "\\uD83D\\uDE00"),
            encode(SECRET),
            lower_hex_form(SECRET),
            encode(SECRET).replace('%', "%25"),
            encode(SECRET).replace('%', "\\u0025"),
            r#"AKIAxy\\\/Zk+PqR9w=\\\"q\\\\<&> é😀"#.to_owned(),
        ]
    }

    /// Spellings whose mask keeps some text beside it (base64 inside a
    /// longer text, see the module doc), or that [`spellings`] does not test.
    fn more_spellings() -> Vec<String> {
        let mut more = vec![SECRET.to_uppercase(), hex::encode(SECRET), hex::encode_upper(SECRET)];
        more.extend(["", "u", "us", "user:"].map(|user| STANDARD_NO_PAD.encode(format!("{user}{SECRET}"))));
        more
    }

    #[test]
    fn s11_every_spelling_is_masked() {
        let m = Masker::new([SECRET]);
        for spelled in spellings() {
            let out = m.mask(&format!("{{\"echo\":\"x {spelled} y\"}}"));
            assert_eq!(out, "{\"echo\":\"x [secret] y\"}", "{spelled}");
        }
    }

    #[test]
    fn text_without_a_value_is_kept_and_characters_are_never_split() {
        let m = Masker::new(["é"]);
        assert_eq!(m.mask("plain \\u0041 %41 text"), "plain \\u0041 %41 text");
        assert_eq!(m.mask("café \\u00e9 %C3%A9 %c3%a9"), "caf[secret] [secret] [secret] [secret]");
        assert_eq!(Masker::new([""]).mask("abc"), "abc");
    }

    /// Found by the fuzz target `mask_spellings` (issue 32): a secret
    /// echoed upper-cased and percent-encoded (`ͽ` as `%cf%bf`), cut inside
    /// its character's escapes, was given unmasked: the decoded piece ended
    /// inside a character, whose folded bytes began no spelling.
    #[test]
    fn a_stream_cut_inside_a_percent_encoded_character_holds_it_back() {
        let cases = [
            ("\u{37d}", "%cf%bf"),
            ("\u{37d}", "%CF%BF"),
            ("\u{37d}", "a %cf%bf b"),
            // The value's first character given before the cut character.
            ("\0\u{56e}\0\u{56e}&0", "%00%D4%BE%00%d4%be%260"),
        ];
        for (secret, text) in cases {
            let masker = Arc::new(Masker::new([secret]));
            for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
                let mut stream = MaskStream::new(masker.clone());
                let given = stream.push(&text[..cut]) + &stream.push(&text[cut..]) + &stream.finish();
                assert_eq!(given, masker.mask(text), "{text:?} cut at {cut}");
                assert!(given.contains(MASK), "{text:?} cut at {cut}: {given:?}");
            }
        }
    }

    #[test]
    fn a_space_echoed_as_plus_or_percent_in_one_value_is_masked() {
        let m = Masker::new(["a b c+d"]);
        for spelled in ["a+b%20c%2Bd", "a b+c+d", "a%2520b+c%252Bd", "a%20b c+d"] {
            assert_eq!(m.mask(&format!("<{spelled}>")), "<[secret]>", "{spelled}");
        }
    }

    /// Whether some run of base64 characters of `text` outside its masks,
    /// read from any of its four offsets, decodes to bytes holding `secret`.
    fn base64_reveals(text: &str, secret: &str) -> bool {
        let sextet = |c: u8| match c {
            b'A'..=b'Z' => Some(c - b'A'),
            b'a'..=b'z' => Some(c - b'a' + 26),
            b'0'..=b'9' => Some(c - b'0' + 52),
            b'+' | b'-' => Some(62),
            b'/' | b'_' => Some(63),
            _ => None,
        };
        let decodes = |run: &[u8]| {
            (0..4.min(run.len())).any(|offset| {
                let (mut bits, mut count, mut out) = (0u32, 0, Vec::new());
                for &c in &run[offset..] {
                    bits = (bits << 6) | u32::from(sextet(c).unwrap_or(0));
                    count += 6;
                    if count >= 8 {
                        count -= 8;
                        out.push((bits >> count) as u8);
                    }
                }
                out.windows(secret.len()).any(|w| w == secret.as_bytes())
            })
        };
        text.split(MASK).any(|piece| piece.as_bytes().split(|&c| sextet(c).is_none()).any(decodes))
    }

    #[test]
    fn s11_base64_of_the_value_alone_or_in_a_basic_pair_is_masked_at_every_offset() {
        let secret = "tok/3n+Zk~9";
        let m = Masker::new([secret]);
        use base64::engine::general_purpose::{STANDARD, URL_SAFE};
        for (user, after) in [("", ""), ("", ":"), ("p", ""), ("pl", ":"), ("player", ""), ("ab:", ":pw"), ("x", ":p")]
        {
            for engine in [STANDARD, URL_SAFE, STANDARD_NO_PAD, URL_SAFE_NO_PAD] {
                let encoded = engine.encode(format!("{user}{secret}{after}"));
                assert!(base64_reveals(&encoded, secret), "the check sees the echo");
                let out = m.mask(&format!("{{\"auth\":\"Basic {encoded}\"}}"));
                assert!(out.contains(MASK) && !base64_reveals(&out, secret), "{user}|{after} {encoded} → {out}");
            }
        }
        // The base64 of a short value is any short word: left alone.
        let short = Masker::new(["abcdef"]);
        assert_eq!(short.mask("YWJjZGVm"), "YWJjZGVm");
    }

    #[test]
    fn s11_hex_html_references_and_other_cases_are_masked() {
        let m = Masker::new(["Tok&<é>9f2c"]);
        for spelled in [
            hex::encode("Tok&<é>9f2c"),
            hex::encode_upper("Tok&<é>9f2c"),
            "Tok&amp;&lt;&eacute;&gt;9f2c".to_owned(),
            "&#84;&#111;&#107;&#38;&#60;&#233;&#62;9f2c".to_owned(),
            "&#x54;ok&#X26;&#x3C;&#xe9;&#x3e;9f2c".to_owned(),
            "TOK&<É>9F2C".to_owned(),
            "tok&<é>9f2c".to_owned(),
            "tOk%26%3C%C3%89%3E9F2c".to_owned(),
            r"Tok\u0026amp;&lt;\u00e9&gt;9f2c".to_owned(),
        ] {
            assert_eq!(m.mask(&format!("<p>x {spelled} y</p>")), "<p>x [secret] y</p>", "{spelled}");
        }
        // A match inside what one character folds to masks that character.
        assert_eq!(Masker::new(["F"]).mask("a ﬃ b"), "a [secret] b");
        // A capital ẞ lowers to ß, which upper-cases to SS: all three match.
        let m = Masker::new(["straße-key"]);
        for spelled in ["STRASSE-KEY", "STRAẞE-KEY", "strasse-key"] {
            assert_eq!(m.mask(&format!("[{spelled}]")), "[[secret]]", "{spelled}");
        }
    }

    #[test]
    fn overlapping_values_make_one_mask() {
        let m = Masker::new(["Bearer tok", "tok-1", "tok"]);
        assert_eq!(m.mask("a Bearer tok-1 b tok"), "a [secret] b [secret]");
    }

    /// `text` through a [`MaskStream`] of `masker`, cut before each of `cuts`.
    fn streamed(masker: &Arc<Masker>, text: &str, cuts: &[usize]) -> String {
        let mut stream = MaskStream::new(masker.clone());
        let mut out = String::new();
        let mut from = 0;
        for &cut in cuts.iter().chain([&text.len()]) {
            out.push_str(&stream.push(&text[from..cut]));
            from = cut;
        }
        out + &stream.finish()
    }

    /// Issue 32: a spelling cut anywhere between two pieces, or sent one
    /// character at a time, is masked as in the whole text.
    #[test]
    fn s11_issue32_a_spelling_cut_between_pieces_is_masked_as_a_whole() {
        let m = Arc::new(Masker::new([SECRET]));
        for spelled in spellings().into_iter().chain(more_spellings()) {
            let text = format!("{{\"echo\":\"x {spelled} y\"}}");
            let whole = m.mask(&text);
            assert!(whole.contains(MASK), "{spelled}");
            let bounds: Vec<usize> = (1..text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            for &cut in &bounds {
                assert_eq!(streamed(&m, &text, &[cut]), whole, "{spelled} cut at {cut}");
            }
            assert_eq!(streamed(&m, &text, &bounds), whole, "{spelled} one character at a time");
        }
    }

    /// Issue 32: what begins no spelling is given at once; a tail that may
    /// begin one waits for the next piece (a base64 character too: it is
    /// masked with a core that may follow), and the end gives what is held.
    #[test]
    fn s11_issue32_only_a_tail_that_may_begin_a_spelling_is_held() {
        let m = Arc::new(Masker::new(["sk-live-0123456789"]));
        let mut stream = MaskStream::new(m.clone());
        assert_eq!(stream.push("Hello, here is your key:"), "Hello, here is your key:");
        assert_eq!(stream.push(" SK-LI"), " ");
        assert_eq!(stream.push("VE-0123456789 and."), "[secret] and.");
        assert_eq!(stream.push(" %73"), " ");
        assert_eq!(stream.push("k-"), "");
        assert_eq!(stream.finish(), "%73k-");
        let innocent = "The quick brown fox jumps over the lazy dog.\n".repeat(200);
        let mut stream = MaskStream::new(m);
        assert_eq!(stream.push(&innocent), innocent, "nothing held");
        assert_eq!(stream.finish(), "");
    }
}
