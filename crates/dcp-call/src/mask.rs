//! Secrets replaced by `[secret]` in any answer or error that would contain
//! them (§11), in every spelling a server may echo them in.
//!
//! What is masked: each secret of the plugin, and each credential exactly
//! as the app sent it (an auth header's or query parameter's whole value,
//! fixed text included). A server may echo one
//! * as written;
//! * JSON-escaped, in any legal form: `\/`, `\"`, `\\`, `\b\f\n\r\t`, and
//!   `\uXXXX` for any character in either case of hex (PHP writes `/` as
//!   `\/` and non-ASCII as `\u00e9`, Go writes `<>&` as `\u003c`…; a
//!   character outside the BMP as a surrogate pair);
//! * percent-encoded, hex in either case, a space as `%20` or `+`;
//! * and one of these inside another (JSON in a JSON string, a URL in
//!   JSON, a URL in a URL): two layers are decoded.
//!
//! The app encodes nothing in base64 (auth values are sent as written), so
//! there is no base64 spelling of its own to mask.
//!
//! How: the text is searched as written and in each decoded view of it
//! (JSON escapes decoded, percent escapes decoded, and each of those
//! decoded once more); every decoded byte remembers where its escape
//! started in the text, so a match in a view masks exactly the escapes
//! that spell the secret. The views are built only when the text holds a
//! `\` or a `%`, one at a time, and each value is found with memchr's
//! substring search (SIMD), one pass per value and view: a call has a few
//! values, so the cost stays linear in the answer's size. An Aho-Corasick
//! automaton of all values made one pass, but building it cost 20 to 60 µs,
//! twice per call, more than the rest of the host's overhead on a call;
//! a substring finder is built in nanoseconds.
//! A `+` is a space in a form and a `+` elsewhere, and a server may mix
//! both ways in one echo (a value encoded twice, or sloppily): `+` and
//! space are matched as the same character, in the values and in every
//! view. The price is a value with a `+` masking the same text with a
//! space, which only hides more.

use memchr::memmem::Finder;
use std::borrow::Cow;

/// The masked stand-in of a secret (§11).
pub const MASK: &str = "[secret]";

/// How many escape layers are decoded.
const LAYERS: usize = 2;

/// The values one call must never show, ready to be found in any text.
pub struct Masker {
    /// One per spelling of a value as written (see [`Masker::new`]).
    finders: Vec<Finder<'static>>,
}

impl Masker {
    /// A masker of `values` (secrets and credentials as sent); empty
    /// values are ignored.
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Masker {
        let mut needles: Vec<String> = Vec::new();
        for value in values.into_iter().filter(|v| !v.is_empty()) {
            needles.push(value.replace('+', " "));
            // The text is cleaned before it is masked (§9 step 6).
            needles.push(crate::answer::clean(value).replace('+', " "));
        }
        needles.retain(|n| !n.is_empty());
        needles.sort();
        needles.dedup();
        Masker { finders: needles.iter().map(|n| Finder::new(n.as_bytes()).into_owned()).collect() }
    }

    /// `text` with every spelling of every value replaced by [`MASK`].
    pub fn mask(&self, text: &str) -> String {
        match self.mask_bytes(text.as_bytes()) {
            Cow::Borrowed(_) => text.to_owned(),
            // Masked spans end on character boundaries (see `widen`).
            Cow::Owned(bytes) => {
                String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            }
        }
    }

    /// The same on raw bytes (an answer's body before it is parsed).
    pub fn mask_bytes<'t>(&self, text: &'t [u8]) -> Cow<'t, [u8]> {
        if self.finders.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut spans = Vec::new();
        let identity = |i: usize| i;
        find(&self.finders, &fold_plus(text), &identity, text.len(), 0, &mut spans);
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(replace(text, spans))
    }
}

/// Records the spans of `text` (a view whose byte `i` starts at `origin(i)`
/// in the original, `end` being the original's end) holding a value, then
/// searches the views decoded from this one.
fn find(
    finders: &[Finder<'_>],
    view: &[u8],
    origin: &dyn Fn(usize) -> usize,
    end: usize,
    layer: usize,
    spans: &mut Vec<(usize, usize)>,
) {
    let at = |i: usize| if i < view.len() { origin(i) } else { end };
    for finder in finders {
        let len = finder.needle().len();
        let mut from = 0;
        // Every occurrence, overlapping ones too ("abab" twice in "ababab").
        while let Some(i) = finder.find(&view[from..]) {
            let start = from + i;
            spans.push((at(start), at(start + len)));
            from = start + 1;
        }
    }
    if layer == LAYERS {
        return;
    }
    for decode in [json_unescape as Decoder, percent_decode] {
        if let Some(mut decoded) = decode(view) {
            // Mapped to the original text in place: one index per byte.
            decoded.starts.iter_mut().for_each(|s| *s = at(*s));
            find(finders, &decoded.bytes, &|i| decoded.starts[i], end, layer + 1, spans);
        }
    }
}

/// A decoded view: its bytes, and where each one's escape starts in the
/// view it was decoded from.
struct Decoded {
    bytes: Vec<u8>,
    starts: Vec<usize>,
}

type Decoder = fn(&[u8]) -> Option<Decoded>;

impl Decoded {
    fn with_capacity(n: usize) -> Decoded {
        Decoded { bytes: Vec::with_capacity(n), starts: Vec::with_capacity(n) }
    }

    fn push(&mut self, bytes: &[u8], start: usize) {
        self.bytes.extend(bytes.iter().map(|&b| if b == b'+' { b' ' } else { b }));
        self.starts.extend(std::iter::repeat_n(start, bytes.len()));
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
    Some(out)
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
    Some(out)
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

    /// Percent-encoding as a form writes it: lowercase hex, `+` for space.
    fn lower_hex_form(value: &str) -> String {
        let upper = crate::build::encode(value).replace("%20", "+");
        let mut out = String::new();
        let mut rest = upper.as_str();
        while let Some(at) = rest.find('%') {
            out.push_str(&rest[..at]);
            out.push_str(&rest[at..at + 3].to_lowercase());
            rest = &rest[at + 3..];
        }
        out + rest
    }

    #[test]
    fn s11_every_spelling_is_masked() {
        let m = Masker::new([SECRET]);
        let spellings = [
            SECRET.to_owned(),
            r#"AKIAxy\/Zk+PqR9w=\"q\\<&> \u00e9\ud83d\ude00"#.to_owned(),
            r#"AKIAxy/Zk+PqR9w=\"q\\\u003c\u0026\u003e é😀"#.to_owned(),
            SECRET
                .chars()
                .map(|c| format!("\\u{:04X}", c as u32))
                .collect::<String>()
                .replace("\\u1F600", "\\uD83D\\uDE00"),
            crate::build::encode(SECRET),
            lower_hex_form(SECRET),
            crate::build::encode(SECRET).replace('%', "%25"),
            crate::build::encode(SECRET).replace('%', "\\u0025"),
            r#"AKIAxy\\\/Zk+PqR9w=\\\"q\\\\<&> é😀"#.to_owned(),
        ];
        for spelled in spellings {
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

    #[test]
    fn a_space_echoed_as_plus_or_percent_in_one_value_is_masked() {
        let m = Masker::new(["a b c+d"]);
        for spelled in ["a+b%20c%2Bd", "a b+c+d", "a%2520b+c%252Bd", "a%20b c+d"] {
            assert_eq!(m.mask(&format!("<{spelled}>")), "<[secret]>", "{spelled}");
        }
    }

    #[test]
    fn overlapping_values_make_one_mask() {
        let m = Masker::new(["Bearer tok", "tok-1", "tok"]);
        assert_eq!(m.mask("a Bearer tok-1 b tok"), "a [secret] b [secret]");
    }
}
