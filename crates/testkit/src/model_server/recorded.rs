//! Recorded vendor streams served verbatim: a [`Recording`] is the JSON chunks one real
//! response was streamed as (one per line in a `.chunks.txt` file), and [`Turn::Recorded`]
//! answers a request with them, framed for the protocol the request used:
//!
//! - chat completions: `data: <chunk>` per chunk, then `data: [DONE]`;
//! - Anthropic Messages: `event: <chunk's type>` + `data: <chunk>` per chunk, up to and
//!   including the first `message_stop` (a recording may hold the vendor's next responses too).
//!
//! The only change a test may make is [`Recording::rename_tool`], so that a recorded client
//! tool (`weather`) is one the client under test offers (`read`).
//!
//! [`Turn::Recorded`]: super::Turn::Recorded

use std::path::Path;

use serde_json::Value;

use super::Protocol;

/// The chunks of one recorded response, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// Each chunk's JSON text, as recorded.
    pub chunks: Vec<String>,
}

impl Recording {
    /// A recording of these chunks (JSON texts).
    pub fn new<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Recording {
        Recording {
            chunks: chunks.into_iter().map(Into::into).collect(),
        }
    }

    /// Reads a recording from text with one chunk per line (blank lines are skipped).
    pub fn parse(text: &str) -> Recording {
        Recording::new(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        )
    }

    /// Reads a `.chunks.txt` file; the error names the file.
    pub fn load(path: &Path) -> Result<Recording, String> {
        std::fs::read_to_string(path)
            .map(|text| Recording::parse(&text))
            .map_err(|e| format!("cannot read the recording {}: {e}", path.display()))
    }

    /// The chunks as JSON; a chunk that is not JSON is an error naming its line (from 1).
    pub fn values(&self) -> Result<Vec<Value>, String> {
        self.chunks
            .iter()
            .enumerate()
            .map(|(i, chunk)| {
                serde_json::from_str(chunk)
                    .map_err(|e| format!("chunk {} of the recording is not JSON: {e}", i + 1))
            })
            .collect()
    }

    /// Renames the client tool `from` to `to` wherever a chunk names it: chat-completions
    /// `tool_calls[].function.name`, Anthropic `tool_use` blocks and Responses `function_call`
    /// items. Server-side blocks
    /// (`server_tool_use`, `mcp_tool_use`, …) are left alone. Returns how many names changed;
    /// only the chunks that changed are written anew (keys keep their order).
    pub fn rename_tool(&mut self, from: &str, to: &str) -> usize {
        let mut renamed = 0;
        for chunk in &mut self.chunks {
            let Ok(mut value) = serde_json::from_str::<Value>(chunk) else {
                continue;
            };
            let n = rename_in(&mut value, from, to);
            if n > 0 {
                *chunk = value.to_string();
                renamed += n;
            }
        }
        renamed
    }

    /// The SSE frames this recording is served as to a request of `protocol`.
    pub(super) fn frames(&self, protocol: Protocol) -> Vec<String> {
        match protocol {
            Protocol::OpenAi => self
                .chunks
                .iter()
                .map(|c| format!("data: {c}\n\n"))
                .chain(std::iter::once("data: [DONE]\n\n".to_string()))
                .collect(),
            // Typed events, up to the end of the first response: a recording of the
            // vendor's own tool loop holds several.
            Protocol::Anthropic => self.typed_frames("message_stop"),
            Protocol::Responses => self.typed_frames("response.completed"),
        }
    }

    /// `event: <type>` + `data:` frames, up to and including the first of type `last`.
    fn typed_frames(&self, last: &str) -> Vec<String> {
        let mut frames = Vec::with_capacity(self.chunks.len());
        for chunk in &self.chunks {
            let kind = event_type(chunk);
            frames.push(format!("event: {kind}\ndata: {chunk}\n\n"));
            if kind == last {
                break;
            }
        }
        frames
    }
}

/// The `type` of an Anthropic chunk (`unknown` when it has none, so the frame still goes out).
fn event_type(chunk: &str) -> String {
    serde_json::from_str::<Value>(chunk)
        .ok()
        .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| "unknown".to_string())
}

/// Renames tool `from` in one chunk of either wire; returns how many names changed.
fn rename_in(chunk: &mut Value, from: &str, to: &str) -> usize {
    let mut renamed = 0;
    let mut swap = |name: Option<&mut Value>| {
        if let Some(name) = name.filter(|n| n.as_str() == Some(from)) {
            *name = Value::String(to.to_string());
            renamed += 1;
        }
    };
    if let Some(block) = chunk
        .get_mut("content_block")
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
    {
        swap(block.get_mut("name"));
    }
    // Responses: a client call is a `function_call` item.
    if let Some(item) = chunk
        .get_mut("item")
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call"))
    {
        swap(item.get_mut("name"));
    }
    let choices = chunk.get_mut("choices").and_then(Value::as_array_mut);
    for choice in choices.into_iter().flatten() {
        let calls = choice
            .pointer_mut("/delta/tool_calls")
            .and_then(Value::as_array_mut);
        for call in calls.into_iter().flatten() {
            swap(call.pointer_mut("/function/name"));
        }
    }
    renamed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_chunks_become_data_frames_ending_in_done() {
        let r = Recording::parse("{\"choices\":[]}\n\n{\"a\":1}\n");
        assert_eq!(
            r.frames(Protocol::OpenAi),
            vec![
                "data: {\"choices\":[]}\n\n",
                "data: {\"a\":1}\n\n",
                "data: [DONE]\n\n"
            ]
        );
    }

    #[test]
    fn anthropic_chunks_are_named_by_type_and_stop_at_the_first_message_stop() {
        let r = Recording::new([
            r#"{"type":"message_start","message":{"id":"m1"}}"#,
            r#"{"type":"message_stop"}"#,
            r#"{"type":"message_start","message":{"id":"m2"}}"#,
        ]);
        let frames = r.frames(Protocol::Anthropic);
        assert_eq!(frames.len(), 2, "{frames:?}");
        assert_eq!(
            frames[0],
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\"}}\n\n"
        );
        assert!(frames[1].starts_with("event: message_stop\n"));
    }

    #[test]
    fn renaming_touches_client_tools_only_and_keeps_key_order() {
        let mut r = Recording::new([
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"c","function":{"name":"weather","arguments":""}}]}}]}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"weather","input":{}}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"s","name":"weather","input":{}}}"#,
            r#"{"choices":[{"delta":{"content":"weather"}}]}"#,
        ]);
        let untouched = r.chunks[2..].to_vec();
        assert_eq!(r.rename_tool("weather", "read"), 2);
        assert_eq!(
            r.chunks[0],
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"c","function":{"name":"read","arguments":""}}]}}]}"#
        );
        assert_eq!(
            r.chunks[1],
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"read","input":{}}}"#
        );
        assert_eq!(r.chunks[2..], untouched[..]);
    }

    #[test]
    fn a_chunk_that_is_not_json_is_named_by_its_line() {
        let r = Recording::parse("{}\nnot json\n");
        let err = r.values().unwrap_err();
        assert!(err.contains("chunk 2"), "{err}");
        let missing = Recording::load(Path::new("no/such/file.chunks.txt")).unwrap_err();
        assert!(missing.contains("no/such/file.chunks.txt"), "{missing}");
    }
}
