//! Replies in OpenAI's own wire shape, as its streaming Chat Completions
//! sends them: a first chunk carrying the role, text in `content` deltas,
//! each tool call opened with its `index`, `id` and name and its arguments
//! then spread over many chunks keyed by that `index`.

use serde_json::{json, Value};

use crate::script::{Chunk, Step, MODEL};

/// One `chat.completion.chunk` whose only choice carries `delta`
/// (and `finish_reason`, null when `None`). The other builders start from it.
pub fn envelope(delta: Value, finish: Option<&str>) -> Chunk {
    Chunk::Raw(json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
    }))
}

/// The last chunk of a reply: an empty delta with this `finish_reason`.
pub fn finish(reason: &str) -> Chunk {
    envelope(json!({}), Some(reason))
}

/// The role chunk, then one `content` delta per piece (no finish).
/// With no pieces, a reply with no text.
pub fn text_chunks<S: AsRef<str>>(pieces: impl IntoIterator<Item = S>) -> Vec<Chunk> {
    let mut chunks = vec![envelope(json!({"role": "assistant", "content": "", "refusal": null}), None)];
    chunks.extend(pieces.into_iter().map(|piece| envelope(json!({"content": piece.as_ref()}), None)));
    chunks
}

/// A text reply streamed piece by piece, finished with `stop`. Chunk 0 is
/// the role chunk: `text(["Hel", "lo"]).pause_after(2)` stops after "Hel".
pub fn text<S: AsRef<str>>(pieces: impl IntoIterator<Item = S>) -> Step {
    let mut chunks = text_chunks(pieces);
    chunks.push(finish("stop"));
    Step::Stream(chunks)
}

/// A text reply the server ended at its length limit (`max_tokens`, or
/// the context full): finished with `length` (issue 34).
pub fn cut_text<S: AsRef<str>>(pieces: impl IntoIterator<Item = S>) -> Step {
    let mut chunks = text_chunks(pieces);
    chunks.push(finish("length"));
    Step::Stream(chunks)
}

/// Tool calls `(id, name, arguments)` as OpenAI streams them (no finish):
/// the role chunk, then for each call at `index` i a chunk naming it with
/// `"arguments": ""`, then its arguments in pieces of `fragment_size`
/// characters (0: in one piece). An empty id is left out of the wire (a
/// server that gives none). The arguments text is sent as it is, JSON or not.
pub fn tool_call_chunks(calls: &[(&str, &str, &str)], fragment_size: usize) -> Vec<Chunk> {
    let mut chunks = vec![envelope(json!({"role": "assistant", "content": null, "refusal": null}), None)];
    for (index, (id, name, arguments)) in calls.iter().enumerate() {
        let mut opening = json!({"index": index, "type": "function", "function": {"name": name, "arguments": ""}});
        if !id.is_empty() {
            opening["id"] = json!(id);
        }
        chunks.push(envelope(json!({"tool_calls": [opening]}), None));
        for piece in fragments(arguments, fragment_size) {
            chunks.push(envelope(json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}), None));
        }
    }
    chunks
}

/// [`tool_call_chunks`] finished with `tool_calls`.
pub fn tool_calls(calls: &[(&str, &str, &str)], fragment_size: usize) -> Step {
    let mut chunks = tool_call_chunks(calls, fragment_size);
    chunks.push(finish("tool_calls"));
    Step::Stream(chunks)
}

/// A whole answer, as OpenAI sends one to a request with `"stream": false`
/// (issue 34's probe): one `chat.completion` whose message has this text
/// and these tool calls `(id, name, arguments)`, finished with `tool_calls`
/// when there are calls, else `stop`.
pub fn completion(text: Option<&str>, calls: &[(&str, &str, &str)]) -> Step {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}))
        .collect();
    let finish = if calls.is_empty() { "stop" } else { "tool_calls" };
    let mut message = json!({"role": "assistant", "content": text, "refusal": null});
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    Step::Status(
        200,
        json!({
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 0,
            "model": MODEL,
            "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
        }),
    )
}

/// An error as OpenAI answers one: `{"error":{"message","type","param","code"}}`.
pub fn error(status: u16, message: &str) -> Step {
    Step::Status(
        status,
        json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}}),
    )
}

/// `text` cut into pieces of `size` characters (never inside a character);
/// nothing for an empty text, as a server sends no fragment then.
pub(crate) fn fragments(text: &str, size: usize) -> Vec<String> {
    if size == 0 {
        return if text.is_empty() { Vec::new() } else { vec![text.to_owned()] };
    }
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|piece| piece.iter().collect()).collect()
}
