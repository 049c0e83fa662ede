//! Feeds arbitrary answers to what the AI reads of them (§9, §11): the
//! status, content type and body come from the input, with and without
//! `pick`. It must never panic, and whatever comes out must hold the
//! rules: no secret (as written or percent-encoded), no line break, no
//! control or invisible character and no `<<` inside the frame (an answer
//! can neither close it early nor open another, nor hide text), and no
//! more than `maxChars` characters of content. A failure's text from the
//! server is framed the same way, and its own message holds none of the
//! body.

#![no_main]

use dcp_call::answer::{frame, read};
use dcp_call::build::encode;
use dcp_format::model::{PickPath, Response};
use dcp_format::text::is_hidden_char;
use dcp_vault::mask::Masker;
use libfuzzer_sys::fuzz_target;

const SECRETS: [&str; 2] = ["s3cr3t-K3Y-0042", "p@ss w/rd&x=1"];
const MAX_CHARS: u64 = 300;
const CONTENT_TYPES: [Option<&str>; 5] = [
    Some("application/json"),
    Some("text/plain; charset=utf-8"),
    Some("application/problem+json"),
    Some("image/png"),
    None,
];
const STATUSES: [u16; 6] = [200, 204, 301, 401, 429, 503];

fn path(raw: &str, head: &[&str], item: Option<&[&str]>) -> PickPath {
    let owned = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect();
    PickPath { raw: raw.into(), head: owned(head), item: item.map(owned) }
}

fn inner(framed: &str) -> &str {
    let (_, rest) = framed.split_once('\n').expect("a frame opens on its own line");
    rest.rsplit_once('\n').expect("and closes on its own line").0
}

fn no_secret(text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "secret shown: {text}");
        assert!(!text.contains(&encode(secret)), "encoded secret shown: {text}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, body)) = data.split_first() else {
        return;
    };
    let status = STATUSES[usize::from(choice % 6)];
    let content_type = CONTENT_TYPES[usize::from((choice / 6) % 5)];
    let pick = if choice >= 128 {
        vec![path("title", &["title"], None), path("items[].name", &["items"], Some(&["name"]))]
    } else {
        Vec::new()
    };
    let response = Response { pick, max_chars: MAX_CHARS };
    match read(status, content_type, body, &response, &Masker::new(SECRETS)) {
        Ok(text) => {
            framed_safely(&text);
            assert!(text.chars().count() <= MAX_CHARS as usize + "…[truncated]".chars().count());
        }
        Err(failure) => {
            assert_eq!(
                dcp_format::ToolCode::parse(&failure.code.as_str()),
                Some(failure.code),
                "a code that reads back"
            );
            no_secret(&failure.message);
            assert!(!failure.message.contains("<<"), "server text outside the frame: {}", failure.message);
            if let Some(text) = &failure.from_server {
                framed_safely(text);
            }
        }
    }
});

/// The frame of `text` holds no secret, line break, hidden character or
/// `<<` of its own.
fn framed_safely(text: &str) {
    let framed = frame("fx", "convert", text);
    let content = inner(&framed);
    assert!(!content.contains("<<"), "the frame can be broken: {framed}");
    assert!(!content.contains('\n'), "a line break inside the frame: {framed}");
    assert!(!content.chars().any(is_hidden_char), "a hidden character inside the frame: {content:?}");
    assert_eq!(framed.matches("<<").count(), 2);
    no_secret(&framed);
}
