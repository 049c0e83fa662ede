//! A streamed answer assembled: the data of each server-sent event (a
//! `chat.completion.chunk`) → text pieces, and tool calls made whole.
//!
//! What small models and their servers send, all accepted (§17):
//!
//! * arguments in fragments over many chunks, keyed by `index` (OpenAI,
//!   llama.cpp); each call whole in one chunk, with or without `index`
//!   (Ollama); several calls; a call without `id` (one is made:
//!   `call_<n>`); arguments as a JSON string, as an object, or `""`;
//! * a fragment whose `index` is taken by a call with another `id` is a new
//!   call (servers that number every call 0); a fragment without `index` is
//!   a new call when it names a tool or carries an id, else the rest of the
//!   last call;
//! * the whole answer as one `message` instead of `delta` (a server that
//!   ignores `"stream": true`);
//! * `{"error": …}` inside the stream is an error, not an answer;
//! * a `finish_reason` of `length` (in any chunk of choice 0) marks the
//!   answer cut ([`Reply::cut`], issue 34).
//!
//! Which tool names were offered, and whether the arguments are valid JSON,
//! is judged later (the courtier, [`crate::RawArgs::parse`]).
//!
//! Bounded whatever the answer (issue 32): a fragment finds its call by its
//! `index` in a map, in constant time (a backward scan made 100,000
//! fragments cost 15 s); at most [`CALLS_PER_ANSWER`] calls are kept, and
//! the fragments of any further call are dropped as they come, only
//! counted ([`Reply::dropped_calls`]), so what is kept, and what goes back
//! to the AI, stays small.

use dcp_format::limits::CALLS_PER_ANSWER;
use serde::de::{Deserializer, IgnoredAny};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;

use crate::wire::{RawArgs, Reply, ToolCall};

/// What one event's data said.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Pieces of the answer's text (may be none: a tool-call fragment).
    Text(Vec<String>),
    /// `[DONE]`: the answer is complete.
    Done,
    /// The service reported an error inside the stream: its message.
    Error(String),
}

/// Where the fragments of a call go: a kept call (its place in
/// `Assembler::calls`), or nowhere (a call past [`CALLS_PER_ANSWER`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Kept(usize),
    Dropped,
}

#[derive(Debug, Default)]
struct Partial {
    id: String,
    name: String,
    text: String,
    value: Option<Value>,
}

/// A chunk of the usual shape (`choices`, each with its `delta` object),
/// read without making a `Value` of the fields the assembler does not use
/// (`id`, `model`, `created`, …). Any other shape fails to read and goes
/// to the `Value` reading, which decides what it means.
#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(borrow)]
    choices: Vec<Choice<'a>>,
    /// `error` is there at all (even `null`): left to the `Value` reading.
    #[serde(default, deserialize_with = "present")]
    error: bool,
}

#[derive(Deserialize)]
struct Choice<'a> {
    index: Option<u64>,
    #[serde(borrow)]
    delta: Delta<'a>,
    #[serde(borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow)]
    content: Option<Cow<'a, str>>,
    tool_calls: Option<Vec<Value>>,
}

fn present<'de, D: Deserializer<'de>>(value: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(value).map(|_| true)
}

/// Collects the chunks of one answer.
#[derive(Debug, Default)]
pub struct Assembler {
    text: String,
    calls: Vec<Partial>,
    /// The latest call opened at each `index` of a kept call (a dropped
    /// call is noted only where it takes over a kept call's index, so the
    /// map never outgrows the kept calls).
    at_index: HashMap<u64, Slot>,
    /// The latest call opened: where a fragment without `index` goes.
    last: Option<Slot>,
    dropped: usize,
    cut: bool,
}

impl Assembler {
    /// An empty answer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one event's data. Err when it is not JSON.
    pub fn feed(&mut self, data: &str) -> Result<Piece, String> {
        let data = data.trim();
        if data == "[DONE]" {
            return Ok(Piece::Done);
        }
        // The usual chunk read as it is; every chunk went through a `Value`
        // before, a third of decoding a turn's streams (benches/turn.rs in
        // dcp-companion).
        if let Ok(chunk) = serde_json::from_str::<Chunk>(data) {
            if !chunk.error {
                // One answer is asked for: choice 0 (or the first there is).
                let Some(choice) = chunk.choices.into_iter().find(|c| c.index.unwrap_or(0) == 0) else {
                    return Ok(Piece::Text(Vec::new()));
                };
                self.finished(choice.finish_reason.as_deref());
                let calls = choice.delta.tool_calls.unwrap_or_default();
                return Ok(self.delta(choice.delta.content.as_deref(), &calls));
            }
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| format!("an event is not JSON ({e})"))?;
        if let Some(error) = chunk.get("error") {
            return Ok(Piece::Error(error_message(error)));
        }
        self.feed_value(&chunk)
    }

    /// Reads a chunk (or a whole completion) already parsed.
    pub fn feed_value(&mut self, chunk: &Value) -> Result<Piece, String> {
        let choices = chunk.get("choices").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        // One answer is asked for: choice 0 (or the first there is).
        let choice = choices.iter().find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0);
        self.finished(choice.and_then(|c| c.get("finish_reason")).and_then(Value::as_str));
        let Some(delta) = choice.and_then(|c| c.get("delta").or_else(|| c.get("message"))) else {
            return Ok(Piece::Text(Vec::new()));
        };
        let calls = delta.get("tool_calls").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        Ok(self.delta(delta.get("content").and_then(Value::as_str), calls))
    }

    /// Notes an answer ended at its length limit: the one reason that
    /// changes what the answer means (`stop`, `tool_calls` and others do not).
    fn finished(&mut self, reason: Option<&str>) {
        self.cut |= reason == Some("length");
    }

    /// One delta's text and tool-call fragments.
    fn delta(&mut self, content: Option<&str>, calls: &[Value]) -> Piece {
        let mut pieces = Vec::new();
        if let Some(text) = content.filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            pieces.push(text.to_owned());
        }
        for fragment in calls {
            self.fragment(fragment);
        }
        Piece::Text(pieces)
    }

    fn fragment(&mut self, fragment: &Value) {
        let index = fragment.get("index").and_then(Value::as_u64);
        let id = fragment.get("id").and_then(Value::as_str).unwrap_or_default();
        let function = fragment.get("function");
        let name = function.and_then(|f| f.get("name")).and_then(Value::as_str).unwrap_or_default();
        let arguments = function.and_then(|f| f.get("arguments"));
        let found = match index.and_then(|index| self.at_index.get(&index)) {
            Some(&Slot::Kept(at)) if id.is_empty() || self.calls[at].id.is_empty() || self.calls[at].id == id => {
                Some(Slot::Kept(at))
            }
            Some(&Slot::Dropped) if id.is_empty() && name.is_empty() => Some(Slot::Dropped),
            Some(_) => None,
            None if index.is_none() && id.is_empty() && name.is_empty() => self.last,
            None => None,
        };
        let slot = found.unwrap_or_else(|| self.open(index, name));
        let Slot::Kept(at) = slot else { return };
        let call = &mut self.calls[at];
        if call.id.is_empty() {
            call.id = id.to_owned();
        }
        if call.name.is_empty() {
            call.name = name.to_owned();
        }
        match arguments {
            Some(Value::String(piece)) => call.text.push_str(piece),
            Some(Value::Null) | None => {}
            Some(value) => call.value = Some(value.clone()),
        }
    }

    /// A new call at `index`, kept while there is room. A dropped call is
    /// counted when it names a tool (what opens a call in every shape), so
    /// the rest of a dropped call, arriving without its name, is not
    /// counted again.
    fn open(&mut self, index: Option<u64>, name: &str) -> Slot {
        let slot = if self.calls.len() < CALLS_PER_ANSWER {
            self.calls.push(Partial::default());
            Slot::Kept(self.calls.len() - 1)
        } else {
            self.dropped += usize::from(!name.is_empty());
            Slot::Dropped
        };
        if let Some(index) = index {
            match slot {
                Slot::Kept(_) => {
                    self.at_index.insert(index, slot);
                }
                Slot::Dropped => {
                    if let Some(taken) = self.at_index.get_mut(&index) {
                        *taken = slot;
                    }
                }
            }
        }
        self.last = Some(slot);
        slot
    }

    /// The whole answer.
    pub fn finish(self) -> Reply {
        let tool_calls = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(n, call)| ToolCall {
                id: if call.id.is_empty() { format!("call_{}", n + 1) } else { call.id },
                name: call.name,
                arguments: match call.value {
                    Some(value) if call.text.is_empty() => RawArgs::Value(value),
                    _ => RawArgs::Text(call.text),
                },
            })
            .collect();
        Reply { text: self.text, tool_calls, dropped_calls: self.dropped, cut: self.cut }
    }
}

/// The message of an error body: `{"error":{"message"}}`, `{"error":"…"}`,
/// `{"message"}`, `{"detail"}`; else the JSON as text.
pub fn error_message(error: &Value) -> String {
    let field = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    match error {
        Value::String(text) => text.clone(),
        Value::Object(_) => field(error, "message")
            .or_else(|| error.get("error").map(error_message))
            .or_else(|| field(error, "detail"))
            .unwrap_or_else(|| error.to_string()),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::SseDecoder;
    use serde_json::json;

    /// Runs SSE bytes, cut into `size`-byte chunks, through the decoder and
    /// the assembler.
    fn run(stream: &str, size: usize) -> (Vec<String>, Reply) {
        let mut sse = SseDecoder::new();
        let mut asm = Assembler::new();
        let mut pieces = Vec::new();
        let mut events: Vec<String> = stream.as_bytes().chunks(size).flat_map(|c| sse.feed(c)).collect();
        events.extend(sse.finish());
        for data in events {
            match asm.feed(&data).expect("JSON") {
                Piece::Text(text) => pieces.extend(text),
                Piece::Done => break,
                Piece::Error(e) => panic!("{e}"),
            }
        }
        (pieces, asm.finish())
    }

    fn sse(chunks: &[Value]) -> String {
        let mut out: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        out.push_str("data: [DONE]\n\n");
        out
    }

    fn delta(delta: Value) -> Value {
        json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    }

    fn every_chunking(stream: &str) -> (Vec<String>, Reply) {
        let want = run(stream, stream.len());
        for size in [1, 2, 3, 7, 16, 61] {
            assert_eq!(run(stream, size), want, "chunks of {size}");
        }
        want
    }

    #[test]
    fn s3_text_streams_in_pieces() {
        let stream = sse(&[
            delta(json!({"role": "assistant", "content": ""})),
            delta(json!({"content": "Hel"})),
            delta(json!({"content": "lo"})),
        ]);
        let (pieces, reply) = every_chunking(&stream);
        assert_eq!(pieces, ["Hel", "lo"]);
        assert_eq!(reply, Reply { text: "Hello".into(), ..Reply::default() });
    }

    #[test]
    fn s17_openai_fragments_keyed_by_index_several_calls() {
        let stream = sse(&[
            delta(
                json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "fx__convert", "arguments": ""}}]}),
            ),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"amo"}}]})),
            delta(
                json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "fx__rates", "arguments": "{}"}}]}),
            ),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "unt\":100}"}}]})),
        ]);
        let (pieces, reply) = every_chunking(&stream);
        assert!(pieces.is_empty());
        assert_eq!(reply.text, "");
        assert_eq!(
            reply.tool_calls,
            [
                ToolCall {
                    id: "call_a".into(),
                    name: "fx__convert".into(),
                    arguments: RawArgs::Text("{\"amount\":100}".into())
                },
                ToolCall { id: "call_b".into(), name: "fx__rates".into(), arguments: RawArgs::Text("{}".into()) },
            ]
        );
    }

    #[test]
    fn s17_ollama_whole_calls_objects_no_index_no_id() {
        let stream = sse(&[
            delta(json!({"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "fx__convert", "arguments": {"amount": 100}}},
                {"id": "call_x", "function": {"name": "fx__rates", "arguments": {}}},
            ]})),
            delta(json!({"tool_calls": [{"function": {"name": "pomodoro__start", "arguments": ""}}]})),
        ]);
        let (_, reply) = every_chunking(&stream);
        assert_eq!(
            reply.tool_calls,
            [
                ToolCall {
                    id: "call_1".into(),
                    name: "fx__convert".into(),
                    arguments: RawArgs::Value(json!({"amount": 100}))
                },
                ToolCall { id: "call_x".into(), name: "fx__rates".into(), arguments: RawArgs::Value(json!({})) },
                ToolCall {
                    id: "call_3".into(),
                    name: "pomodoro__start".into(),
                    arguments: RawArgs::Text(String::new())
                },
            ]
        );
        assert_eq!(reply.tool_calls[2].arguments.parse(), Ok(json!({})));
    }

    #[test]
    fn s17_every_call_numbered_zero_is_still_several_calls() {
        let stream = sse(&[
            delta(json!({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "x__one", "arguments": "{}"}}]})),
            delta(json!({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "x__two", "arguments": "{}"}}]})),
        ]);
        let names: Vec<String> = every_chunking(&stream).1.tool_calls.into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["x__one", "x__two"]);
    }

    #[test]
    fn s17_llamacpp_text_then_a_call_and_arguments_not_json() {
        let stream = sse(&[
            delta(json!({"content": "Let me check."})),
            delta(
                json!({"tool_calls": [{"index": 0, "id": "", "type": "function", "function": {"name": "fx__convert"}}]}),
            ),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "amount=100"}}]})),
        ]);
        let (pieces, reply) = every_chunking(&stream);
        assert_eq!(pieces, ["Let me check."]);
        assert_eq!(reply.tool_calls[0].id, "call_1");
        assert!(reply.tool_calls[0].arguments.parse().is_err());
    }

    #[test]
    fn a_whole_message_and_an_error_inside_the_stream() {
        let mut asm = Assembler::new();
        let whole = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi", "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "a__b", "arguments": "{\"x\":1}"}}]}}]});
        assert_eq!(asm.feed_value(&whole), Ok(Piece::Text(vec!["Hi".into()])));
        assert_eq!(asm.finish().tool_calls[0].arguments.parse(), Ok(json!({"x": 1})));
        let mut asm = Assembler::new();
        assert_eq!(asm.feed(r#"{"error":{"message":"model crashed"}}"#), Ok(Piece::Error("model crashed".into())));
        assert!(asm.feed("not json").is_err());
        assert_eq!(asm.feed(r#"{"choices":[]}"#), Ok(Piece::Text(vec![])));
    }

    /// §17: a chunk of an unusual shape means what it meant when every
    /// chunk was read as a `Value`: only the usual shape takes the short
    /// way, and a chunk with an `error` key is an error even when it is null.
    #[test]
    fn s17_unusual_chunks_mean_what_they_always_meant() {
        let text = |t: &[&str]| Piece::Text(t.iter().map(|p| p.to_string()).collect());
        let cases = [
            (
                r#"{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}"#,
                text(&["ok"]),
            ),
            (
                r#"{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"a\"b\u00e9"}}]}"#,
                text(&["a\"b\u{e9}"]),
            ),
            (r#"{"error":null,"choices":[{"delta":{"content":"x"}}]}"#, Piece::Error("null".into())),
            (r#"{"choices":[{"delta":null,"message":{"content":"m"}}]}"#, text(&[])),
            (r#"{"choices":[{"message":{"content":"m"}}]}"#, text(&["m"])),
            (r#"{"choices":[{"index":0,"delta":{"content":["parts"]}}]}"#, text(&[])),
            (r#"{"choices":null}"#, text(&[])),
            (r#"{"choices":[{"index":-1,"delta":{"content":"neg"}}]}"#, text(&["neg"])),
            (r#"{"choices":[{"delta":{"content":"a"}}],"choices":[{"delta":{"content":"b"}}]}"#, text(&["b"])),
        ];
        for (data, want) in cases {
            assert_eq!(Assembler::new().feed(data), Ok(want), "{data}");
        }
        assert!(Assembler::new().feed("{oops").is_err_and(|e| e.starts_with("an event is not JSON")));
    }

    /// Issue 32: calls past [`CALLS_PER_ANSWER`] are dropped and counted
    /// once each, in every shape (indexed fragments, every call numbered 0,
    /// whole calls without index), and the rest of a dropped call never
    /// lands in a kept one.
    #[test]
    fn issue_32_calls_past_the_cap_are_dropped_and_counted_once() {
        let extra = 8;
        let count = CALLS_PER_ANSWER + extra;
        let indexed: Vec<Value> = (0..count)
            .flat_map(|n| {
                [
                    delta(json!({"tool_calls": [{"index": n, "id": format!("c{n}"), "function": {"name": "x__y", "arguments": ""}}]})),
                    delta(json!({"tool_calls": [{"index": n, "function": {"arguments": format!("{{\"n\":{n}}}")}}]})),
                ]
            })
            .collect();
        let numbered_zero: Vec<Value> = (0..count)
            .flat_map(|n| {
                [
                    delta(json!({"tool_calls": [{"index": 0, "id": format!("c{n}"), "function": {"name": "x__y", "arguments": ""}}]})),
                    delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": format!("{{\"n\":{n}}}")}}]})),
                ]
            })
            .collect();
        let whole: Vec<Value> = (0..count)
            .flat_map(|n| {
                [
                    delta(
                        json!({"tool_calls": [{"id": format!("c{n}"), "function": {"name": "x__y", "arguments": ""}}]}),
                    ),
                    delta(json!({"tool_calls": [{"function": {"arguments": format!("{{\"n\":{n}}}")}}]})),
                ]
            })
            .collect();
        for (shape, chunks) in [("indexed", indexed), ("numbered 0", numbered_zero), ("no index", whole)] {
            let reply = run(&sse(&chunks), 4096).1;
            assert_eq!((reply.tool_calls.len(), reply.dropped_calls), (CALLS_PER_ANSWER, extra), "{shape}");
            for (n, call) in reply.tool_calls.iter().enumerate() {
                assert_eq!(call.id, format!("c{n}"), "{shape}");
                assert_eq!(call.arguments.parse(), Ok(json!({"n": n})), "{shape}: nothing of a dropped call");
            }
        }
    }

    /// Issue 34: `finish_reason: "length"` marks the answer cut, in the
    /// streamed shape and the whole-message one; `stop` and `tool_calls` do
    /// not; a call cut mid-arguments is kept as sent (not JSON), for the
    /// turn to refuse rather than run.
    #[test]
    fn issue_34_a_length_finish_marks_the_answer_cut() {
        let finish = |reason: &str| json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]});
        let text = [delta(json!({"content": "Once upon"}))];
        for (reason, cut) in [("length", true), ("stop", false), ("tool_calls", false)] {
            let stream = sse(&[text[0].clone(), finish(reason)]);
            assert_eq!(every_chunking(&stream).1.cut, cut, "{reason}");
        }
        let half = sse(&[
            delta(
                json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "fx__convert", "arguments": ""}}]}),
            ),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"amount\":1"}}]})),
            finish("length"),
        ]);
        let reply = every_chunking(&half).1;
        assert!(reply.cut && reply.tool_calls[0].arguments.parse().is_err(), "{reply:?}");
        let mut asm = Assembler::new();
        let whole = json!({"choices": [{"index": 0, "message": {"content": "Once"}, "finish_reason": "length"}]});
        asm.feed_value(&whole).expect("a whole message");
        assert!(asm.finish().cut);
    }

    #[test]
    fn error_messages_in_every_shape() {
        assert_eq!(error_message(&json!({"error": {"message": "m"}})), "m");
        assert_eq!(error_message(&json!({"error": "m"})), "m");
        assert_eq!(error_message(&json!({"detail": "m"})), "m");
        assert_eq!(error_message(&json!("m")), "m");
    }
}
