//! Decoding Responses stream events (`event: <type>` + `data: {...}`) into neutral events.
//!
//! A response is a list of output items, each announced by `response.output_item.added` and
//! closed by `response.output_item.done` (which restates it whole), with deltas between that
//! name the item they belong to: `response.output_text.delta` for a message's text,
//! `response.reasoning_summary_text.delta` for a reasoning item's summary (one reasoning part
//! per item, its summary parts joined by a blank line) and
//! `response.function_call_arguments.delta` for a call's arguments. A function call's
//! `call_id` is its id as a tool call; its item `id` is only what its deltas name. Items of
//! other types (web searches, shell calls run by the vendor, …) never become local calls.
//! `response.completed` or `response.incomplete` ends the response with its usage;
//! `response.failed` and `error` surface as [`ProviderError::Api`]. Other events are ignored.

use serde_json::Value;

use crate::provider::sse::SseEvent;
use crate::provider::{
    DecodeState, FinishReason, ProviderError, ReasoningItem, StreamEvent, Usage,
};

/// Handles one event of the stream (the driver skips events with blank data).
pub(super) fn decode(
    ev: SseEvent,
    state: &mut DecodeState,
    out: &mut Vec<StreamEvent>,
) -> Result<(), ProviderError> {
    let data = ev.data.trim();
    let event: Value = serde_json::from_str(data).map_err(|e| {
        let preview: String = data.chars().take(200).collect();
        state.decode_error(format!("an event is not JSON ({e}): {preview}"))
    })?;
    let kind = str_at(&event, "/type")
        .or(ev.event.as_deref())
        .unwrap_or_default();
    match kind {
        "response.output_text.delta" | "response.refusal.delta" => text(&event, state, out),
        "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
            reasoning(&event, state, out)
        }
        "response.output_item.added" => item_added(&event, state, out),
        "response.function_call_arguments.delta" => {
            if let Some(slot) = call_slot(&event, state) {
                let delta = str_at(&event, "/delta");
                out.extend(state.calls.push(slot, None, None, delta));
            }
        }
        "response.output_item.done" => item_done(&event, state, out),
        "response.completed" => finished(&event, state, false),
        "response.incomplete" => finished(&event, state, true),
        "response.failed" => return Err(failed(&event, state)),
        "error" => return Err(stream_error(&event, state)),
        _ => {}
    }
    Ok(())
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// A piece of a message's text; text from another message than the last starts after a
/// blank line, so a commentary and the answer after it do not run together. Only a call or
/// reasoning text in between resets this: they start parts of their own, which keep the texts
/// apart, while a vendor-side item or a reasoning item without text leaves the text running.
fn text(event: &Value, state: &mut DecodeState, out: &mut Vec<StreamEvent>) {
    let Some(delta) = str_at(event, "/delta").filter(|d| !d.is_empty()) else {
        return;
    };
    let item = str_at(event, "/item_id").unwrap_or_default();
    let text = match state.items.text_from.replace(item.to_string()) {
        Some(last) if last != item => format!("\n\n{delta}"),
        _ => delta.to_string(),
    };
    out.push(StreamEvent::TextDelta(text));
}

/// A piece of a reasoning summary; a new summary part of the same item starts after a blank
/// line.
fn reasoning(event: &Value, state: &mut DecodeState, out: &mut Vec<StreamEvent>) {
    let Some(delta) = str_at(event, "/delta").filter(|d| !d.is_empty()) else {
        return;
    };
    state.items.text_from = None;
    let item = str_at(event, "/item_id").unwrap_or_default().to_string();
    let index = event
        .get("summary_index")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let text = match state.items.summary.replace((item.clone(), index)) {
        Some((last, last_index)) if last == item && last_index != index => {
            format!("\n\n{delta}")
        }
        _ => delta.to_string(),
    };
    out.push(StreamEvent::ReasoningDelta(text));
}

/// The slot a call's events use: its `output_index`, or the next free one.
fn slot_of(event: &Value, state: &DecodeState) -> u64 {
    event
        .get("output_index")
        .and_then(Value::as_u64)
        .unwrap_or(state.items.slots.len() as u64)
}

/// The slot of the call an arguments delta names (by item id, else by output index); `None`
/// for an item that was never announced as a function call.
fn call_slot(event: &Value, state: &DecodeState) -> Option<u64> {
    match str_at(event, "/item_id") {
        Some(id) => state.items.slot(id),
        None => {
            let index = event.get("output_index").and_then(Value::as_u64)?;
            state
                .items
                .slots
                .iter()
                .any(|(_, s)| *s == index)
                .then_some(index)
        }
    }
}

/// Starts a call for a `function_call` item.
fn item_added(event: &Value, state: &mut DecodeState, out: &mut Vec<StreamEvent>) {
    let Some(item) = event.get("item") else {
        return;
    };
    if str_at(item, "/type") == Some("function_call") {
        start_call(event, item, state, out);
    }
}

/// Starts the call of a `function_call` item and returns its slot; the call ends the run of
/// text that the next message's text would continue.
fn start_call(
    event: &Value,
    item: &Value,
    state: &mut DecodeState,
    out: &mut Vec<StreamEvent>,
) -> u64 {
    state.items.text_from = None;
    let slot = slot_of(event, state);
    let id = str_at(item, "/id").unwrap_or_default();
    state.items.slots.push((id.to_string(), slot));
    out.extend(state.calls.push(
        slot,
        str_at(item, "/call_id"),
        str_at(item, "/name"),
        str_at(item, "/arguments"),
    ));
    slot
}

/// A finished item: a call is complete with the arguments the item restates; a reasoning item
/// ends its reasoning part, with what is needed to send it back.
fn item_done(event: &Value, state: &mut DecodeState, out: &mut Vec<StreamEvent>) {
    let Some(item) = event.get("item") else {
        return;
    };
    match str_at(item, "/type") {
        Some("function_call") => {
            let id = str_at(item, "/id").unwrap_or_default();
            let slot = match state.items.slot(id) {
                Some(slot) => slot,
                // Never announced: the item alone says everything.
                None => start_call(event, item, state, out),
            };
            let arguments = str_at(item, "/arguments").unwrap_or_default();
            out.extend(state.calls.complete_with(slot, arguments));
        }
        Some("reasoning") => {
            state.items.summary = None;
            let reasoning_item = str_at(item, "/id")
                .zip(str_at(item, "/encrypted_content").filter(|e| !e.is_empty()))
                .map(|(id, encrypted)| ReasoningItem {
                    id: id.to_string(),
                    encrypted_content: encrypted.to_string(),
                });
            out.push(StreamEvent::ReasoningEnd {
                signature: None,
                item: reasoning_item,
            });
        }
        _ => {}
    }
}

/// `response.completed` or `response.incomplete`: the usage, and for an incomplete response
/// why it stopped (a completed one's reason follows from its calls, by the end rule).
fn finished(event: &Value, state: &mut DecodeState, incomplete: bool) {
    let response = event.get("response");
    if let Some(usage) = response
        .and_then(|r| r.get("usage"))
        .filter(|u| u.is_object())
    {
        state.usage = Some(usage_of(usage));
    }
    if incomplete {
        let why = response
            .and_then(|r| str_at(r, "/incomplete_details/reason"))
            .unwrap_or("incomplete");
        state.reason = Some(match why {
            "max_output_tokens" => FinishReason::Length,
            other => FinishReason::Other(other.to_string()),
        });
    }
    state.done = true;
}

/// Reads a usage object: `input_tokens` counts the cached input too
/// (`input_tokens_details.cached_tokens`), `output_tokens` the reasoning too
/// (`output_tokens_details.reasoning_tokens`).
fn usage_of(usage: &Value) -> Usage {
    let at = |p: &str| usage.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    let input = at("/input_tokens");
    let cached = at("/input_tokens_details/cached_tokens").min(input);
    let output = at("/output_tokens");
    Usage {
        input_tokens: input - cached,
        output_tokens: output,
        reasoning_tokens: at("/output_tokens_details/reasoning_tokens").min(output),
        cache_read_tokens: cached,
        cache_write_tokens: 0,
    }
}

/// `response.failed`: the response's error, with its code.
fn failed(event: &Value, state: &DecodeState) -> ProviderError {
    let error = event.pointer("/response/error").unwrap_or(&Value::Null);
    api_error(error, "response.failed", state)
}

/// An `error` event: its code and message stand at the top (or under `error`, in older
/// streams).
fn stream_error(event: &Value, state: &DecodeState) -> ProviderError {
    match event.get("error").filter(|e| e.is_object()) {
        Some(error) => api_error(error, "error", state),
        None => api_error(event, "error", state),
    }
}

fn api_error(error: &Value, fallback: &str, state: &DecodeState) -> ProviderError {
    let kind = str_at(error, "/code")
        .or_else(|| str_at(error, "/type").filter(|t| *t != "error"))
        .unwrap_or(fallback);
    let message = str_at(error, "/message").map_or_else(
        || format!("the response failed and the vendor gave no message: {error}"),
        str::to_string,
    );
    ProviderError::Api {
        url: state.url.clone(),
        kind: kind.to_string(),
        message,
    }
}
