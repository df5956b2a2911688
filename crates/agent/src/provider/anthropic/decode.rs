//! Decoding Messages stream events into neutral events.
//!
//! `message_start` carries the message id and the usage so far; each content block opens with
//! `content_block_start` (`text`, `thinking`, `redacted_thinking`, or `tool_use` with id and
//! name), grows with `content_block_delta` (`text_delta`, `thinking_delta`, `signature_delta`,
//! `input_json_delta`) and closes with `content_block_stop`; `message_delta` carries the stop
//! reason and the final usage (its counts replace the start's); `message_stop` ends the
//! response. `ping` is ignored and `error` surfaces as [`ProviderError::Api`].
//!
//! Blocks the vendor runs itself (`server_tool_use`, `mcp_tool_use`, `web_search_tool_result`
//! and the other `*_tool_result`s, …) are not the client's calls: only `tool_use` blocks start
//! a call, and deltas of any other block are dropped. A `message_start` repeated for the open
//! message is ignored; one for another message while the first is still open means the first
//! was cut off, which is reported as [`ProviderError::Interrupted`] (retried like a dropped
//! connection).

use serde_json::Value;

use crate::provider::sse::SseEvent;
use crate::provider::{DecodeState, FinishReason, ProviderError, StreamEvent, Usage};

/// Adds a usage report to the totals: each count it has replaces the one before.
fn add_usage(state: &mut DecodeState, usage: Option<&Value>) {
    let Some(usage) = usage.filter(|u| u.is_object()) else {
        return;
    };
    let count = |k: &str| usage.get(k).and_then(Value::as_u64);
    let total = state.usage.get_or_insert_with(Usage::default);
    // Later events report final totals; a zero count (some gateways) keeps the earlier one.
    if let Some(input) = count("input_tokens").filter(|n| *n > 0) {
        total.input_tokens = input;
    }
    if let Some(output) = count("output_tokens") {
        total.output_tokens = output;
    }
    if let Some(read) = count("cache_read_input_tokens").filter(|n| *n > 0) {
        total.cache_read_tokens = read;
    }
    if let Some(write) = count("cache_creation_input_tokens").filter(|n| *n > 0) {
        total.cache_write_tokens = write;
    }
}

fn stop_reason(text: &str) -> FinishReason {
    match text {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" => FinishReason::Length,
        other => FinishReason::Other(other.to_string()),
    }
}

/// A `message_start`: the first opens the message; a repeat for the same id changes nothing;
/// another message's start while this one is open means this one was cut off.
fn message_start(state: &mut DecodeState, message: Option<&Value>) -> Result<(), ProviderError> {
    let id = message
        .and_then(|m| m.get("id"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    match &state.message {
        Some(open) if open == id => Ok(()),
        Some(open) => Err(ProviderError::Interrupted {
            url: state.url.clone(),
            call_ids: state.calls.open_ids(),
            detail: format!(
                "message `{id}` started while message `{open}` was still streaming, so `{open}` is incomplete and was dropped"
            ),
        }),
        None => {
            state.message = Some(id.to_string());
            add_usage(state, message.and_then(|m| m.get("usage")));
            Ok(())
        }
    }
}

/// The string field `k` of `v`.
fn str_of(v: Option<&Value>, k: &str) -> Option<String> {
    v.and_then(|v| v.get(k))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Handles one event of the stream (the driver skips events with blank data).
pub(super) fn decode(
    ev: SseEvent,
    state: &mut DecodeState,
    out: &mut Vec<StreamEvent>,
) -> Result<(), ProviderError> {
    let data: Value = serde_json::from_str(&ev.data).map_err(|e| ProviderError::Decode {
        url: state.url.clone(),
        detail: format!(
            "an event is not JSON ({e}): {}",
            ev.data.chars().take(200).collect::<String>()
        ),
    })?;
    let kind = data
        .get("type")
        .and_then(Value::as_str)
        .or(ev.event.as_deref())
        .unwrap_or_default();
    let slot = data.get("index").and_then(Value::as_u64).unwrap_or(0);
    match kind {
        "message_start" => message_start(state, data.get("message"))?,
        "content_block_start" => block_start(state, slot, data.get("content_block"), out),
        "content_block_delta" => block_delta(state, slot, data.get("delta"), out),
        "content_block_stop" => match state.reasoning.take() {
            Some((open, signature)) if open == slot => out.push(StreamEvent::ReasoningEnd {
                signature: Some(signature).filter(|s| !s.is_empty()),
                item: None,
            }),
            other => {
                state.reasoning = other;
                out.extend(state.calls.complete(slot));
            }
        },
        "message_delta" => {
            if let Some(reason) = str_of(data.get("delta"), "stop_reason") {
                state.reason = Some(stop_reason(&reason));
            }
            add_usage(state, data.get("usage"));
        }
        "message_stop" => state.done = true,
        "error" => {
            let err = data.get("error");
            return Err(ProviderError::Api {
                url: state.url.clone(),
                kind: str_of(err, "type").unwrap_or_else(|| "error".into()),
                message: str_of(err, "message").unwrap_or_else(|| data.to_string()),
            });
        }
        _ => {}
    }
    Ok(())
}

/// A content block starts: text, thinking, redacted thinking, or a client `tool_use` call.
/// Server-side blocks (`server_tool_use`, `*_tool_result`) start nothing of ours.
fn block_start(
    state: &mut DecodeState,
    slot: u64,
    block: Option<&Value>,
    out: &mut Vec<StreamEvent>,
) {
    match str_of(block, "type").as_deref() {
        Some("text") => {
            if let Some(text) = str_of(block, "text").filter(|t| !t.is_empty()) {
                out.push(StreamEvent::TextDelta(text));
            }
        }
        Some("thinking") => {
            state.reasoning = Some((slot, str_of(block, "signature").unwrap_or_default()));
            if let Some(text) = str_of(block, "thinking").filter(|t| !t.is_empty()) {
                out.push(StreamEvent::ReasoningDelta(text));
            }
        }
        Some("redacted_thinking") => {
            let data = str_of(block, "data").unwrap_or_default();
            out.push(StreamEvent::RedactedReasoning(data));
        }
        Some("tool_use") => {
            let id = str_of(block, "id");
            let name = str_of(block, "name");
            // Streamed blocks start with `input: {}`; a gateway may send it whole.
            let input = block
                .and_then(|b| b.get("input"))
                .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                .map(Value::to_string);
            let pushed = state
                .calls
                .push(slot, id.as_deref(), name.as_deref(), input.as_deref());
            out.extend(pushed);
        }
        _ => {}
    }
}

/// A piece of the open block: text, thinking, a signature, or a call's arguments.
fn block_delta(
    state: &mut DecodeState,
    slot: u64,
    delta: Option<&Value>,
    out: &mut Vec<StreamEvent>,
) {
    match str_of(delta, "type").as_deref() {
        Some("text_delta") => {
            if let Some(text) = str_of(delta, "text").filter(|t| !t.is_empty()) {
                out.push(StreamEvent::TextDelta(text));
            }
        }
        Some("thinking_delta") => {
            if let Some(text) = str_of(delta, "thinking").filter(|t| !t.is_empty()) {
                out.push(StreamEvent::ReasoningDelta(text));
            }
        }
        Some("signature_delta") => {
            if let (Some((_, signature)), Some(part)) =
                (&mut state.reasoning, str_of(delta, "signature"))
            {
                signature.push_str(&part);
            }
        }
        // Only a client `tool_use` block started a call in this slot.
        Some("input_json_delta") if state.calls.has_slot(slot) => {
            let part = str_of(delta, "partial_json");
            out.extend(state.calls.push(slot, None, None, part.as_deref()));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
