//! Decoding chat-completions stream chunks (`data: {...}` … `data: [DONE]`) into neutral events.
//!
//! Text arrives as `choices[0].delta.content`: a string, or (Mistral's reasoning models) a list
//! of typed items, `text` ones for the answer and `thinking` ones for the reasoning. Reasoning
//! otherwise arrives as `delta.reasoning_content` (DeepSeek, Moonshot, xAI, vLLM) or
//! `delta.reasoning` (Groq, OpenRouter, Ollama). Tool calls arrive as
//! `choices[0].delta.tool_calls`, keyed by `index`, the first fragment carrying `id` and
//! `function.name`, later ones pieces of `function.arguments`; Mistral sends no `index`, so
//! its fragments are keyed by `id`. A call may come whole in one fragment. `finish_reason`
//! closes the choice; usage comes in the last chunks (see [`usage`](super::usage)), often in
//! one whose `choices` is empty; `[DONE]` ends the stream.

use serde_json::Value;

use super::usage::chunk_usage;
use crate::provider::assembler::ToolCallAssembler;
use crate::provider::sse::SseEvent;
use crate::provider::{DecodeState, FinishReason, ProviderError, StreamEvent};

fn finish_reason(text: &str) -> FinishReason {
    match text {
        "stop" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        other => FinishReason::Other(other.to_string()),
    }
}

fn preview(text: &str) -> String {
    text.chars().take(200).collect()
}

/// The events of a delta's `content`: a string is text; a list holds typed items, `text`
/// (`text`) and `thinking` (its `thinking`: a list of `text` items, or a string), in order.
fn content_events(content: &Value, out: &mut Vec<StreamEvent>) {
    fn text(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str).filter(|t| !t.is_empty())
    }
    if let Some(t) = text(Some(content)) {
        out.push(StreamEvent::TextDelta(t.to_string()));
    }
    for item in content.as_array().into_iter().flatten() {
        match item.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = text(item.get("text")) {
                    out.push(StreamEvent::TextDelta(t.to_string()));
                }
            }
            Some("thinking") => {
                let thinking = item.get("thinking");
                let pieces = thinking.and_then(Value::as_array).into_iter().flatten();
                let joined: String = text(thinking)
                    .into_iter()
                    .chain(pieces.filter_map(|p| text(p.get("text"))))
                    .collect();
                if !joined.is_empty() {
                    out.push(StreamEvent::ReasoningDelta(joined));
                }
            }
            _ => {}
        }
    }
}

/// Which call a tool-call fragment belongs to: its `index` when it has one; else (Mistral) the
/// call with its `id`, a new call for an id not seen yet, and the last call for a fragment
/// with neither.
fn slot_for(calls: &ToolCallAssembler, index: Option<u64>, id: Option<&str>) -> u64 {
    if let Some(index) = index {
        return index;
    }
    match id.filter(|id| !id.is_empty()) {
        Some(id) => calls.slot_of(id).unwrap_or_else(|| calls.fresh_slot()),
        None => calls.last_slot().unwrap_or(0),
    }
}

/// Handles one chunk of the stream (the driver skips chunks with blank data).
pub(super) fn decode(
    ev: SseEvent,
    state: &mut DecodeState,
    out: &mut Vec<StreamEvent>,
) -> Result<(), ProviderError> {
    let data = ev.data.trim();
    if data == "[DONE]" {
        state.done = true;
        return Ok(());
    }
    let chunk: Value = serde_json::from_str(data)
        .map_err(|e| state.decode_error(format!("a chunk is not JSON ({e}): {}", preview(data))))?;
    if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
        let kind = err
            .get("type")
            .or_else(|| err.get("code"))
            .map(|k| k.as_str().map_or_else(|| k.to_string(), str::to_string))
            .unwrap_or_else(|| "error".into());
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| err.to_string(), str::to_string);
        return Err(ProviderError::Api {
            url: state.url.clone(),
            kind,
            message,
        });
    }
    if let Some(usage) = chunk_usage(&chunk) {
        state.usage = Some(usage);
    }
    // A chunk with no choice (usage only, or a keep-alive) has nothing more to read.
    let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
        return Ok(());
    };
    if let Some(delta) = choice.get("delta") {
        let reasoning = ["reasoning_content", "reasoning"]
            .iter()
            .find_map(|k| delta.get(*k).and_then(Value::as_str));
        if let Some(text) = reasoning.filter(|t| !t.is_empty()) {
            out.push(StreamEvent::ReasoningDelta(text.to_string()));
        }
        if let Some(content) = delta.get("content") {
            content_events(content, out);
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                let id = call.get("id").and_then(Value::as_str);
                let index = call.get("index").and_then(Value::as_u64);
                let slot = slot_for(&state.calls, index, id);
                let function = call.get("function");
                let field = |k: &str| function.and_then(|f| f.get(k)).and_then(Value::as_str);
                out.extend(
                    state
                        .calls
                        .push(slot, id, field("name"), field("arguments")),
                );
                // Gemini's thought signature, which must come back with the call.
                if let Some(extra) = call.get("extra_content").filter(|e| !e.is_null()) {
                    state.calls.set_meta(slot, extra.clone());
                }
            }
        }
    }
    if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
        state.reason = Some(finish_reason(reason));
        // The choice is over: its calls are complete (the end rule reports broken ones).
        out.extend(state.calls.finish().0);
    }
    Ok(())
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
