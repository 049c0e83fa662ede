//! Random secrets through random echo spellings (§11): a server may echo a
//! secret as written, JSON-escaped in any legal form (short escapes or
//! `\uXXXX` in either case, surrogate pairs), percent-encoded (either case,
//! `+` or `%20` for a space), or one of these inside another. Whatever the
//! spelling and the text around it, neither the secret nor its spelling
//! comes out of the mask.

#![no_main]

use dcp_call::mask::{Masker, MASK};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = check(&mut Unstructured::new(data));
});

fn check(u: &mut Unstructured) -> Result<()> {
    let secret: String = u.arbitrary()?;
    // A secret inside the stand-in itself cannot be told from it.
    if secret.is_empty() || MASK.contains(secret.as_str()) {
        return Ok(());
    }
    let mut spelled = secret.clone();
    for _ in 0..u.int_in_range(0..=2)? {
        spelled = if u.arbitrary()? { json(u, &spelled)? } else { percent(u, &spelled)? };
    }
    // Text around the echo; a `\` or `%` just before it would change what
    // its first escape means, which no server writes.
    let prefix: String = u.arbitrary::<String>()?.replace(['\\', '%'], " ");
    let suffix: String = u.arbitrary::<String>()?.replace(['\\', '%'], " ");
    let masked = Masker::new([secret.as_str()]).mask(&format!("{prefix}{spelled}{suffix}"));
    for piece in masked.split(MASK) {
        assert!(!piece.contains(&secret), "secret {secret:?} shown in {masked:?}");
        assert!(!piece.contains(&spelled), "spelling {spelled:?} shown in {masked:?}");
    }
    Ok(())
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
