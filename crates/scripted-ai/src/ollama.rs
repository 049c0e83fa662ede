//! Replies in the shape of Ollama's OpenAI-compatible endpoint
//! (`http://127.0.0.1:11434/v1`): the role repeated in every delta, each
//! tool call whole in one chunk (all the calls of a reply in the same
//! chunk), arguments given as a JSON object rather than a string, an id
//! present or not, and a tool-call reply that still ends with
//! `finish_reason: "stop"` — a client must not wait for `tool_calls`.
//! Also Ollama's two errors a player meets first.

use serde_json::{json, Value};

use crate::openai;
use crate::script::{Chunk, Step};
use crate::server::Route;

fn delta(mut delta: Value, finish: Option<&str>) -> Chunk {
    delta["role"] = json!("assistant");
    match openai::envelope(delta, finish) {
        Chunk::Raw(mut chunk) => {
            chunk["system_fingerprint"] = json!("fp_ollama");
            Chunk::Raw(chunk)
        }
        other => other,
    }
}

/// A text reply, one chunk per piece, then an empty one finished with `stop`.
pub fn text<S: AsRef<str>>(pieces: impl IntoIterator<Item = S>) -> Step {
    let mut chunks: Vec<Chunk> =
        pieces.into_iter().map(|piece| delta(json!({"content": piece.as_ref()}), None)).collect();
    chunks.push(delta(json!({"content": ""}), Some("stop")));
    Step::Stream(chunks)
}

/// Tool calls `(id, name, arguments)` whole in one chunk; `arguments` goes
/// on the wire as given (an object as Ollama sends it, or any other JSON
/// value for odd cases); `None` leaves the id out.
pub fn tool_calls(calls: &[(Option<&str>, &str, Value)]) -> Step {
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(index, (id, name, arguments))| {
            let mut call =
                json!({"index": index, "type": "function", "function": {"name": name, "arguments": arguments}});
            if let Some(id) = id {
                call["id"] = json!(id);
            }
            call
        })
        .collect();
    Step::Stream(vec![
        delta(json!({"content": "", "tool_calls": calls}), None),
        delta(json!({"content": ""}), Some("stop")),
    ])
}

/// Ollama's 400 for a model that cannot use tools.
pub fn no_tools(model: &str) -> Step {
    api_error(400, &format!("registry.ollama.ai/library/{model} does not support tools"))
}

/// Ollama's 404 for a model that was never pulled.
pub fn model_not_found(model: &str) -> Step {
    api_error(404, &format!("model \"{model}\" not found, try pulling it first"))
}

fn api_error(status: u16, message: &str) -> Step {
    Step::Status(status, json!({"error": {"message": message, "type": "api_error", "param": null, "code": null}}))
}

/// `POST /api/show` as Ollama answers it, in part: the model's details and
/// its `capabilities` (`"tools"` among them for a model that can use tools).
/// Ollama answers for the model named in the request; this one for any.
pub fn show(capabilities: &[&str]) -> Route {
    Route {
        method: "POST",
        path: "/api/show",
        body: json!({
            "modelfile": "FROM scripted",
            "template": "{{ .Prompt }}",
            "details": {"format": "gguf", "family": "llama", "parameter_size": "1B", "quantization_level": "Q4_K_M"},
            "model_info": {"general.architecture": "llama"},
            "capabilities": capabilities,
        }),
    }
}
