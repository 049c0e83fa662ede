//! Random secrets through random echo spellings (§11): a server may echo a
//! secret as written or in another case (upper, lower, any mix), in base64
//! (standard or URL-safe, padded or not, alone or inside a Basic-style
//! pair with unknown bytes around it), in hex (either case), and then
//! JSON-escaped in any legal form (short escapes or `\uXXXX` in either
//! case, surrogate pairs), percent-encoded (either case, `+` or `%20` for
//! a space, unreserved bytes as written or not) or as HTML references
//! (named, decimal, hex), one of these inside another. Whatever the
//! spelling and the text around it, no piece of text the mask leaves holds
//! the secret in any case, nor its spelling, nor (for a secret long enough
//! to have them masked) base64 or hex that decodes to it. The same holds
//! when the text comes in two pieces cut anywhere, through a `MaskStream`
//! (an AI's streamed answer, issue 32).

#![no_main]

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;
use dcp_vault::mask::{MaskStream, Masker, ENCODED_MIN_BYTES, MASK};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let _ = check(&mut Unstructured::new(data));
});

fn check(u: &mut Unstructured) -> Result<()> {
    let secret: String = u.arbitrary()?;
    // A secret inside the stand-in itself cannot be told from it.
    if secret.is_empty() || fold(MASK).contains(&fold(&secret)) {
        return Ok(());
    }
    let (mut spelled, encoded) = match u.int_in_range(0..=3)? {
        0 => (secret.clone(), false),
        1 => (recase(u, &secret)?, false),
        2 => (base64(u, &secret)?, true),
        _ => (hex(u, &secret)?, true),
    };
    let layers = u.int_in_range(0..=2)?;
    for _ in 0..layers {
        spelled = match u.int_in_range(0..=2)? {
            0 => json(u, &spelled)?,
            1 => percent(u, &spelled)?,
            _ => html(u, &spelled)?,
        };
    }
    // Text around the echo; a `\`, `%` or `&` just before it would change
    // what its first escape means, which no server writes.
    let prefix: String = u.arbitrary::<String>()?.replace(['\\', '%', '&'], " ");
    let suffix: String = u.arbitrary::<String>()?.replace(['\\', '%', '&'], " ");
    let text = format!("{prefix}{spelled}{suffix}");
    let masker = Arc::new(Masker::new([secret.as_str()]));
    let mut cut = u.int_in_range(0..=text.len())?;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut stream = MaskStream::new(masker.clone());
    let streamed = stream.push(&text[..cut]) + &stream.push(&text[cut..]) + &stream.finish();
    for masked in [masker.mask(&text), streamed] {
        shows_nothing(&secret, &spelled, encoded, &masked);
    }
    Ok(())
}

/// No piece of `masked` outside its masks holds `secret` or its spellings.
fn shows_nothing(secret: &str, spelled: &str, encoded: bool, masked: &str) {
    let long = secret.len() >= ENCODED_MIN_BYTES;
    for piece in masked.split(MASK) {
        assert!(!fold(piece).contains(&fold(secret)), "secret {secret:?} shown in {masked:?}");
        if long || !encoded {
            assert!(!piece.contains(spelled), "spelling {spelled:?} shown in {masked:?}");
        }
        if long {
            assert!(!base64_reveals(piece, secret), "base64 of {secret:?} shown in {masked:?}");
            assert!(!hex_reveals(piece, secret), "hex of {secret:?} shown in {masked:?}");
        }
    }
}

/// Every character in one case of all (the masker's own rule, see
/// `mask::fold_char`): upper- or lower-casing never changes it.
fn fold(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).flat_map(char::to_uppercase).flat_map(char::to_lowercase).collect()
}

/// The text upper-cased, lower-cased, or each character either way.
fn recase(u: &mut Unstructured, text: &str) -> Result<String> {
    Ok(match u.int_in_range(0..=2)? {
        0 => text.to_uppercase(),
        1 => text.to_lowercase(),
        _ => {
            let mut out = String::new();
            for c in text.chars() {
                match u.int_in_range(0..=2)? {
                    0 => out.extend(c.to_uppercase()),
                    1 => out.extend(c.to_lowercase()),
                    _ => out.push(c),
                }
            }
            out
        }
    })
}

/// Base64 of the secret, alone or between random bytes (`user:secret`,
/// `secret:`…), in either alphabet, padded or not.
fn base64(u: &mut Unstructured, secret: &str) -> Result<String> {
    let before: Vec<u8> = u.arbitrary()?;
    let after: Vec<u8> = u.arbitrary()?;
    let bytes = [before.as_slice(), secret.as_bytes(), after.as_slice()].concat();
    let engine = [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD][u.int_in_range(0..=3)?].clone();
    Ok(engine.encode(bytes))
}

/// Hex of the secret, between random bytes, in lower or upper case.
fn hex(u: &mut Unstructured, secret: &str) -> Result<String> {
    let before: Vec<u8> = u.arbitrary()?;
    let after: Vec<u8> = u.arbitrary()?;
    let bytes = [before.as_slice(), secret.as_bytes(), after.as_slice()].concat();
    Ok(if u.arbitrary()? { hex::encode_upper(bytes) } else { hex::encode(bytes) })
}

/// Whether a run of base64 characters of `piece`, read from any of its
/// four first offsets, decodes to bytes holding `secret`.
fn base64_reveals(piece: &str, secret: &str) -> bool {
    let sextet = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let reveals = |run: &[u8]| {
        (0..run.len().min(4)).any(|offset| {
            let (mut bits, mut count, mut out) = (0u32, 0, Vec::new());
            for &c in &run[offset..] {
                bits = (bits << 6) | u32::from(sextet(c).unwrap_or(0));
                count += 6;
                if count >= 8 {
                    count -= 8;
                    out.push((bits >> count) as u8);
                }
            }
            holds(&out, secret)
        })
    };
    piece.as_bytes().split(|&c| sextet(c).is_none()).any(reveals)
}

/// Whether a run of hex digits of `piece`, read from either parity,
/// decodes to bytes holding `secret`.
fn hex_reveals(piece: &str, secret: &str) -> bool {
    let digit = |c: u8| char::from(c).to_digit(16);
    let reveals = |run: &[u8]| {
        (0..run.len().min(2)).any(|offset| {
            let pairs = run[offset..].chunks_exact(2);
            let out: Vec<u8> =
                pairs.map(|p| (digit(p[0]).unwrap_or(0) * 16 + digit(p[1]).unwrap_or(0)) as u8).collect();
            holds(&out, secret)
        })
    };
    piece.as_bytes().split(|&c| digit(c).is_none()).any(reveals)
}

fn holds(bytes: &[u8], secret: &str) -> bool {
    bytes.windows(secret.len()).any(|w| w == secret.as_bytes())
}

/// One legal JSON spelling of `text`, each character escaped or not at random.
fn json(u: &mut Unstructured, text: &str) -> Result<String> {
    let mut out = String::new();
    for c in text.chars() {
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '/' => Some("\\/"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            _ => None,
        };
        let must = matches!(c, '"' | '\\') || c < ' ';
        match u.int_in_range(0..=2)? {
            0 if !must => out.push(c),
            1 if short.is_some() => out.push_str(short.unwrap_or_default()),
            _ => {
                let upper: bool = u.arbitrary()?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&if upper { format!("\\u{unit:04X}") } else { format!("\\u{unit:04x}") });
                }
            }
        }
    }
    Ok(out)
}

/// One legal percent-encoding of `text`: unreserved bytes as written or
/// escaped, a space as `+` or `%20`, every other byte escaped.
fn percent(u: &mut Unstructured, text: &str) -> Result<String> {
    let mut out = String::new();
    for b in text.bytes() {
        let unreserved = b.is_ascii_alphanumeric() || b"-._~".contains(&b);
        if (unreserved && u.arbitrary()?) || (b == b' ' && u.arbitrary()?) {
            out.push(if b == b' ' { '+' } else { char::from(b) });
        } else if u.arbitrary()? {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push_str(&format!("%{b:02x}"));
        }
    }
    Ok(out)
}

/// One HTML spelling of `text`: `& < > " '` always as references, any
/// other character as written, as a decimal or hex reference, or by a
/// few common names. Control characters HTML forbids as references
/// (C0 but tab, line feed, form feed, carriage return) stay as written.
fn html(u: &mut Unstructured, text: &str) -> Result<String> {
    const NAMES: [(char, &str); 8] = [
        ('&', "amp"),
        ('<', "lt"),
        ('>', "gt"),
        ('"', "quot"),
        ('\'', "apos"),
        ('\u{a0}', "nbsp"),
        ('é', "eacute"),
        ('©', "copy"),
    ];
    let mut out = String::new();
    for c in text.chars() {
        let name = NAMES.iter().find(|(n, _)| *n == c).map(|(_, name)| name);
        if c < ' ' && !matches!(c, '\t' | '\n' | '\u{c}' | '\r') {
            out.push(c);
            continue;
        }
        match u.int_in_range(0..=3)? {
            0 if !matches!(c, '&' | '<' | '>' | '"' | '\'') => out.push(c),
            1 if name.is_some() => out.push_str(&format!("&{};", name.unwrap_or(&""))),
            2 => out.push_str(&format!("&#{};", u32::from(c))),
            _ => {
                let x = if u.arbitrary()? { 'x' } else { 'X' };
                let hex = format!("{:x}", u32::from(c));
                out.push_str(&format!("&#{x}{};", if u.arbitrary()? { hex.to_uppercase() } else { hex }));
            }
        }
    }
    Ok(out)
}
