//! The Chat Completions wire types: what is sent ([`ChatRequest`],
//! [`Message`], [`ToolSpec`]) and what a streamed answer becomes
//! ([`Reply`], [`ToolCall`], [`RawArgs`]). Serialized in the OpenAI wire
//! shape, the one every server of §13 reads.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Value};

/// One message of the conversation, in the OpenAI wire shape
/// (`{"role": …, "content": …}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// The system message (abilities list, language, rules).
    System {
        /// Its text.
        content: String,
    },
    /// What the player (or the event door) said.
    User {
        /// Its text.
        content: String,
    },
    /// What the AI answered: text, tool calls, or both.
    Assistant {
        /// Its text; `null` on the wire when it only called tools.
        content: Option<String>,
        /// The tool calls it asked for.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, answering the call of that id.
    Tool {
        /// The call's id.
        tool_call_id: String,
        /// The framed result, or the refusal's AI text.
        content: String,
    },
}

/// A tool offered to the AI; on the wire
/// `{"type":"function","function":{"name","description","parameters"}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The full tool name, `<slug>__<tool>`.
    pub name: String,
    /// The tool's description.
    pub description: String,
    /// Its JSON Schema (the tool's inputSchema).
    pub parameters: Value,
}

impl Serialize for ToolSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Function<'a> {
            name: &'a str,
            description: &'a str,
            parameters: &'a Value,
        }
        let function = Function { name: &self.name, description: &self.description, parameters: &self.parameters };
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "function")?;
        map.serialize_entry("function", &function)?;
        map.end()
    }
}

/// One request: the conversation and the tools offered.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    /// The messages, system message first.
    pub messages: Vec<Message>,
    /// The tools offered; none is sent as no `tools` field at all.
    pub tools: Vec<ToolSpec>,
    /// Ask for one tool call per step (`"parallel_tool_calls": false`), as
    /// §3 asks of an AI on the PC. Sent only with tools: services refuse
    /// the field without them.
    pub one_tool_per_step: bool,
}

/// The body of `POST /chat/completions`, borrowing the request.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    stream: bool,
    messages: &'a [Message],
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a [ToolSpec]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_tool_calls: Option<bool>,
    max_tokens: u32,
}

impl ChatRequest {
    /// The JSON body of `POST /chat/completions` for `model`, streamed,
    /// answering in `max_tokens` tokens at most (issue 34), written straight
    /// from the request: a `Value` in between copied every message and
    /// schema of every request (benches/turn.rs in dcp-companion).
    pub(crate) fn body(&self, model: &str, max_tokens: u32) -> Vec<u8> {
        let tools = (!self.tools.is_empty()).then_some(self.tools.as_slice());
        let body = Body {
            model,
            stream: true,
            messages: &self.messages,
            parallel_tool_calls: (tools.is_some() && self.one_tool_per_step).then_some(false),
            tools,
            max_tokens,
        };
        // Cannot fail: every map written has string keys.
        serde_json::to_vec(&body).unwrap_or_default()
    }
}

/// The arguments of a tool call as the AI sent them: a JSON text (OpenAI,
/// llama.cpp) or a JSON value (Ollama's whole calls).
#[derive(Debug, Clone, PartialEq)]
pub enum RawArgs {
    /// Sent as a string (possibly assembled from fragments).
    Text(String),
    /// Sent as a JSON value.
    Value(Value),
}

impl RawArgs {
    /// The arguments as JSON: `""` or `null` is `{}` (no arguments), a
    /// string is parsed (once more if it held a JSON string: a model that
    /// encoded twice), a value is itself. Err says what is not JSON.
    pub fn parse(&self) -> Result<Value, String> {
        match self {
            RawArgs::Value(Value::Null) => Ok(json!({})),
            RawArgs::Value(Value::String(text)) => parse_text(text),
            RawArgs::Value(value) => Ok(value.clone()),
            RawArgs::Text(text) => parse_text(text),
        }
    }

    /// The text the AI sent, when it is not JSON (issue 34: what the
    /// player is shown of a call that could not run); `None` for JSON.
    pub fn not_json(&self) -> Option<&str> {
        let text = match self {
            RawArgs::Text(text) | RawArgs::Value(Value::String(text)) => text,
            RawArgs::Value(_) => return None,
        };
        parse_text(text).is_err().then_some(text.as_str())
    }

    /// The arguments as the wire's string for the conversation sent back:
    /// canonical JSON, or `{}` for arguments that are not JSON (the tool
    /// message already tells the AI so, and servers that re-read the
    /// history, such as llama.cpp's templates, fail on text that is not JSON).
    pub(crate) fn wire_text(&self) -> String {
        self.parse().map(|value| value.to_string()).unwrap_or_else(|_| "{}".to_owned())
    }
}

fn parse_text(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Null) => Ok(json!({})),
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(value @ Value::Object(_)) => Ok(value),
            _ => Ok(Value::String(inner)),
        },
        Ok(value) => Ok(value),
        Err(e) => Err(format!("the arguments are not JSON ({e})")),
    }
}

/// One tool call the AI asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call's id, as sent, or `call_<n>` (n from 1, in order) when the
    /// server sent none.
    pub id: String,
    /// The tool name as sent (not checked here: the courtier does).
    pub name: String,
    /// The arguments as sent.
    pub arguments: RawArgs,
}

impl Serialize for ToolCall {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("type", "function")?;
        #[derive(Serialize)]
        struct Function<'a> {
            name: &'a str,
            arguments: String,
        }
        map.serialize_entry("function", &Function { name: &self.name, arguments: self.arguments.wire_text() })?;
        map.end()
    }
}

/// A whole answer: its text (`""` when it had none) and its tool calls.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    /// The answer's text.
    pub text: String,
    /// The tool calls, in order: at most [`CALLS_PER_ANSWER`](dcp_format::limits::CALLS_PER_ANSWER).
    pub tool_calls: Vec<ToolCall>,
    /// How many calls the answer asked for past [`CALLS_PER_ANSWER`](dcp_format::limits::CALLS_PER_ANSWER):
    /// dropped, so never run, answered nor sent back to the AI (issue 32).
    pub dropped_calls: usize,
    /// The server ended the answer at its length limit (`finish_reason`
    /// `length`: the request's `max_tokens`, or the model's context full):
    /// its text stops mid-way and its last tool call may be half sent
    /// (issue 34).
    pub cut: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s17_raw_args_parse() {
        let table: &[(RawArgs, Result<Value, ()>)] = &[
            (RawArgs::Text(String::new()), Ok(json!({}))),
            (RawArgs::Text("  ".into()), Ok(json!({}))),
            (RawArgs::Text("null".into()), Ok(json!({}))),
            (RawArgs::Text(r#"{"amount":100}"#.into()), Ok(json!({"amount": 100}))),
            (RawArgs::Text(r#""{\"amount\":100}""#.into()), Ok(json!({"amount": 100}))),
            (RawArgs::Text(r#"{"amount":"#.into()), Err(())),
            (RawArgs::Text("amount=100".into()), Err(())),
            (RawArgs::Value(Value::Null), Ok(json!({}))),
            (RawArgs::Value(json!({"a": 1})), Ok(json!({"a": 1}))),
            (RawArgs::Value(json!("")), Ok(json!({}))),
            (RawArgs::Value(json!(r#"{"a":1}"#)), Ok(json!({"a": 1}))),
            (RawArgs::Value(json!([1])), Ok(json!([1]))),
        ];
        for (raw, want) in table {
            assert_eq!(raw.parse().map_err(|_| ()), *want, "{raw:?}");
        }
        let err = RawArgs::Text("{oops".into()).parse().expect_err("not JSON");
        assert!(err.contains("not JSON"), "{err}");
        for (raw, _) in table {
            assert_eq!(raw.not_json().is_some(), raw.parse().is_err(), "{raw:?}");
        }
        assert_eq!(RawArgs::Text("amount=100".into()).not_json(), Some("amount=100"));
        assert_eq!(RawArgs::Value(json!("{oops")).not_json(), Some("{oops"));
    }

    #[test]
    fn s3_request_in_the_openai_wire_shape() {
        let call =
            ToolCall { id: "call_1".into(), name: "fx__convert".into(), arguments: RawArgs::Value(json!({"a": 1})) };
        let req = ChatRequest {
            messages: vec![
                Message::System { content: "s".into() },
                Message::User { content: "u".into() },
                Message::Assistant { content: None, tool_calls: vec![call] },
                Message::Tool { tool_call_id: "call_1".into(), content: "r".into() },
                Message::Assistant { content: Some("done".into()), tool_calls: vec![] },
            ],
            tools: vec![ToolSpec {
                name: "fx__convert".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
            }],
            one_tool_per_step: true,
        };
        assert_eq!(
            serde_json::from_slice::<Value>(&req.body("llama3.1", 64)).expect("JSON"),
            json!({
                "model": "llama3.1",
                "stream": true,
                "messages": [
                    {"role": "system", "content": "s"},
                    {"role": "user", "content": "u"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "fx__convert", "arguments": "{\"a\":1}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "r"},
                    {"role": "assistant", "content": "done"},
                ],
                "tools": [{"type": "function", "function": {"name": "fx__convert", "description": "d", "parameters": {"type": "object"}}}],
                "parallel_tool_calls": false,
                "max_tokens": 64,
            })
        );
    }

    #[test]
    fn s3_no_tools_no_tools_field() {
        let req = ChatRequest {
            messages: vec![Message::User { content: "u".into() }],
            tools: vec![],
            one_tool_per_step: true,
        };
        let body: Value = serde_json::from_slice(&req.body("m", 64)).expect("JSON");
        assert!(body.get("tools").is_none() && body.get("parallel_tool_calls").is_none(), "{body}");
        let online = ChatRequest {
            tools: vec![ToolSpec { name: "a__b".into(), description: "d".into(), parameters: json!({}) }],
            one_tool_per_step: false,
            ..req
        };
        let online: Value = serde_json::from_slice(&online.body("m", 64)).expect("JSON");
        assert!(online.get("parallel_tool_calls").is_none() && online.get("tools").is_some(), "{online}");
    }

    #[test]
    fn s17_arguments_not_json_go_back_as_an_empty_object() {
        let call = ToolCall { id: "x".into(), name: "a__b".into(), arguments: RawArgs::Text("{oops".into()) };
        assert_eq!(serde_json::to_value(&call).expect("json")["function"]["arguments"], json!("{}"));
    }
}
