//! LM Studio's own REST API beside its OpenAI-compatible one
//! (`http://127.0.0.1:1234`): its model list, whose entries carry
//! `capabilities` since LM Studio 0.3.16 (`"tool_use"` for a model trained
//! for tools; issue 34).

use serde_json::json;

use crate::server::Route;

/// `GET /api/v0/models` listing `model` with these `capabilities` (`None`:
/// no such field, as before 0.3.16).
pub fn models(model: &str, capabilities: Option<&[&str]>) -> Route {
    let mut entry = json!({
        "id": model,
        "object": "model",
        "type": "llm",
        "publisher": "scripted",
        "arch": "llama",
        "compatibility_type": "gguf",
        "quantization": "Q4_K_M",
        "state": "loaded",
        "max_context_length": 4096,
    });
    if let Some(capabilities) = capabilities {
        entry["capabilities"] = json!(capabilities);
    }
    Route { method: "GET", path: "/api/v0/models", body: json!({"object": "list", "data": [entry]}) }
}
