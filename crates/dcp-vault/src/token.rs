//! Random tokens from the OS random generator.
//!
//! Event tokens (§16, a later feature) are random strings the app hands to
//! the player's program and keeps sealed in the vault like any other
//! secret. They are made here so that every random value the app relies on
//! for security comes from one place: the operating system's generator
//! (through `getrandom`), never a seeded user-space PRNG.

use zeroize::Zeroizing;

/// `bytes` random bytes from the OS generator, as lowercase hex
/// (`2 * bytes` characters: 64 for 32 bytes).
///
/// # Panics
///
/// If the operating system's random generator fails, which on the
/// platforms the app supports does not happen once the system has booted.
/// A token made from anything weaker would be worse than no token.
pub fn random_token_hex(bytes: usize) -> String {
    let mut buf = Zeroizing::new(vec![0u8; bytes]);
    if let Err(err) = getrandom::fill(&mut buf) {
        panic!("the OS random generator failed: {err}");
    }
    to_hex(&buf)
}

/// Lowercase hex of `bytes`.
pub(crate) fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// The bytes of a hex string (either case), or `None` if it is not hex.
pub(crate) fn from_hex(text: &str) -> Option<Vec<u8>> {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let pairs = text.as_bytes().chunks_exact(2);
    if !pairs.remainder().is_empty() {
        return None;
    }
    pairs.map(|pair| Some(nibble(pair[0])? << 4 | nibble(pair[1])?)).collect()
}
