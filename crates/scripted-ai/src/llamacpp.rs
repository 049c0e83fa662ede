//! Replies in the shape of llama.cpp's server (`http://127.0.0.1:8080/v1`):
//! `content: null` beside every tool-call delta, a call opened with its id
//! and name but no `arguments` field, the arguments then streamed in pieces
//! keyed by `index`, and after the finish a last chunk with an empty
//! `choices` list carrying `usage` and `timings` — a client must skip it.

use serde_json::{json, Value};

use crate::openai::{self, fragments};
use crate::script::{Chunk, Step, MODEL};
use crate::server::Route;

/// The closing chunk with no choice, only counts and timings.
fn timings() -> Chunk {
    Chunk::Raw(json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        "timings": {"prompt_n": 1, "prompt_ms": 1.0, "predicted_n": 1, "predicted_ms": 1.0},
    }))
}

fn tool_delta(call: Value) -> Chunk {
    openai::envelope(json!({"content": null, "tool_calls": [call]}), None)
}

/// A text reply: a role chunk with `content: null`, one chunk per piece,
/// the finish (`stop`), then the timings chunk.
pub fn text<S: AsRef<str>>(pieces: impl IntoIterator<Item = S>) -> Step {
    let mut chunks = vec![openai::envelope(json!({"role": "assistant", "content": null}), None)];
    chunks.extend(pieces.into_iter().map(|piece| openai::envelope(json!({"content": piece.as_ref()}), None)));
    chunks.push(openai::finish("stop"));
    chunks.push(timings());
    Step::Stream(chunks)
}

/// Tool calls `(id, name, arguments)`: the arguments text in pieces of
/// `fragment_size` characters (0: one piece), finished with `tool_calls`,
/// then the timings chunk. An empty id is left out of the wire.
pub fn tool_calls(calls: &[(&str, &str, &str)], fragment_size: usize) -> Step {
    let mut chunks = vec![openai::envelope(json!({"role": "assistant", "content": null}), None)];
    for (index, (id, name, arguments)) in calls.iter().enumerate() {
        let mut opening = json!({"index": index, "type": "function", "function": {"name": name}});
        if !id.is_empty() {
            opening["id"] = json!(id);
        }
        chunks.push(tool_delta(opening));
        for piece in fragments(arguments, fragment_size) {
            chunks.push(tool_delta(json!({"index": index, "function": {"arguments": piece}})));
        }
    }
    chunks.push(openai::finish("tool_calls"));
    chunks.push(timings());
    Step::Stream(chunks)
}

/// `GET /props` as llama.cpp's server answers it, in part: the model's
/// chat template and what it can do (`chat_template_caps`). With
/// `supports_tools: false` the server drops the `tools` of a request
/// without a word (issue 34).
pub fn props(supports_tools: bool) -> Route {
    Route {
        method: "GET",
        path: "/props",
        body: json!({
            "default_generation_settings": {"n_ctx": 4096},
            "total_slots": 1,
            "model_path": "models/scripted.gguf",
            "chat_template": "{% for message in messages %}{{ message.content }}{% endfor %}",
            "chat_template_caps": {
                "supports_parallel_tool_calls": supports_tools,
                "supports_preserve_reasoning": false,
                "supports_string_content": true,
                "supports_system_role": true,
                "supports_tool_calls": supports_tools,
                "supports_tools": supports_tools,
                "supports_typed_content": false,
            },
            "build_info": "b0-scripted",
        }),
    }
}
