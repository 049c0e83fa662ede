//! Feeds arbitrary bytes to the AI connection's reading of a streamed
//! answer (issue 22): server-sent events cut at a point taken from the
//! input, each event's data assembled into text and tool calls. It must
//! never panic, the cut must not change what is read, the reply's text
//! must be its deltas joined, every tool call must have an id, and
//! `RawArgs::parse` must answer (Ok or Err) for every call. The same bytes
//! are also judged as an AI URL, which must never panic and never call a
//! non-loopback `http://` URL an AI on the PC.

#![no_main]

use dcp_ai::assemble::{Assembler, Piece};
use dcp_ai::sse::SseDecoder;
use dcp_ai::{judge_ai_url, Place, Reply};
use libfuzzer_sys::fuzz_target;

/// Everything read from `chunks`: the deltas, and the reply or the error.
fn read(chunks: &[&[u8]]) -> (Vec<String>, Result<Reply, String>) {
    let mut sse = SseDecoder::new();
    let mut events: Vec<String> = chunks.iter().flat_map(|chunk| sse.feed(chunk)).collect();
    events.extend(sse.finish());
    let mut asm = Assembler::new();
    let mut deltas = Vec::new();
    for data in events {
        match asm.feed(&data) {
            Ok(Piece::Text(pieces)) => deltas.extend(pieces),
            Ok(Piece::Done) => break,
            Ok(Piece::Error(message)) => return (deltas, Err(message)),
            Err(detail) => return (deltas, Err(detail)),
        }
    }
    (deltas, Ok(asm.finish()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&cut, stream)) = data.split_first() else {
        return;
    };
    let at = usize::from(cut).min(stream.len());
    let whole = read(&[stream]);
    assert_eq!(read(&[&stream[..at], &stream[at..]]), whole, "the cut changed the answer");
    if let (deltas, Ok(reply)) = &whole {
        assert_eq!(reply.text, deltas.concat());
        for call in &reply.tool_calls {
            assert!(!call.id.is_empty(), "a call without an id");
            let _ = call.arguments.parse();
        }
    }
    if let Ok(text) = std::str::from_utf8(stream) {
        if let Ok(url) = judge_ai_url(text) {
            assert!(!url.as_str().ends_with('/'), "not normalized: {url}");
            if url.as_str().starts_with("http://") {
                assert_eq!(url.place(), Place::Pc, "plain http online: {url}");
            }
        }
    }
});
