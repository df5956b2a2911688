//! The Responses dialect of the reader: a response is a list of output items, announced by
//! `response.output_item.added` and restated whole by `response.output_item.done`, with the
//! deltas between them naming their item. What the model produced, read item by item:
//!
//! - text: each message item's `output_text` (and `refusal`) deltas; a message's text follows
//!   the previous message's after a blank line, unless a function call or a reasoning item
//!   with text stands between them (those are stored as parts of their own, which keep the
//!   texts apart);
//! - reasoning: each reasoning item's summary parts (`summary_index`) joined by a blank line;
//! - calls: the finished `function_call` items (`call_id`, `name`, `arguments`); other items
//!   (web searches, shell calls, tool searches) run at the vendor and are never local calls;
//! - usage: `response.completed`'s, with the cached input and the reasoning counted apart;
//! - a failure: the vendor's message from an `error` event or `response.failed`.
//!
//! Everything stops at the first `response.completed`: a recording of the vendor's own tool
//! loop holds several responses, and a replay serves only the first.

use serde_json::Value;

use super::{Gathering, Said, Tokens, finish_calls, str_at};

/// One output item as the stream built it.
struct Item {
    id: String,
    kind: String,
    /// A message's text.
    text: String,
    /// A reasoning item's parts, by their key (`summary <i>` or `text <i>`).
    parts: Vec<(String, String)>,
}

impl Item {
    fn new(id: &str, kind: &str) -> Item {
        Item {
            id: id.to_string(),
            kind: kind.to_string(),
            text: String::new(),
            parts: Vec::new(),
        }
    }

    fn push_part(&mut self, key: String, delta: &str) {
        match self.parts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, text)) => text.push_str(delta),
            None => self.parts.push((key, delta.to_string())),
        }
    }
}

/// Reads the events of one Responses stream.
pub(super) fn read_responses(chunks: &[Value]) -> Said {
    let mut said = Said::default();
    let mut items: Vec<Item> = Vec::new();
    let mut calls: Vec<Gathering> = Vec::new();
    for chunk in chunks {
        let delta = str_at(chunk, "/delta");
        match str_at(chunk, "/type") {
            "response.output_item.added" => {
                let item = &chunk["item"];
                items.push(Item::new(str_at(item, "/id"), str_at(item, "/type")));
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                item_named(&mut items, chunk, "message")
                    .text
                    .push_str(delta);
            }
            "response.reasoning_summary_text.delta" => {
                let key = format!("summary {}", index_at(chunk, "summary_index"));
                item_named(&mut items, chunk, "reasoning").push_part(key, delta);
            }
            "response.reasoning_text.delta" => {
                let key = format!("text {}", index_at(chunk, "content_index"));
                item_named(&mut items, chunk, "reasoning").push_part(key, delta);
            }
            "response.output_item.done" => finished_item(&mut said, &mut calls, &chunk["item"]),
            "response.completed" => {
                said.tokens = responses_tokens(chunk.pointer("/response/usage"));
                break;
            }
            "response.failed" => {
                said.failure = Some(str_at(chunk, "/response/error/message").to_string());
                break;
            }
            "error" => {
                let message = match str_at(chunk, "/error/message") {
                    "" => str_at(chunk, "/message"),
                    message => message,
                };
                said.failure = Some(message.to_string());
                break;
            }
            _ => {}
        }
    }
    said.calls = finish_calls(calls);
    said.text = message_text(&items);
    said.reasoning = items
        .iter()
        .filter(|i| i.kind == "reasoning")
        .map(|i| {
            let parts: Vec<&str> = i.parts.iter().map(|(_, t)| t.as_str()).collect();
            parts.join("\n\n")
        })
        .collect();
    said
}

fn index_at(chunk: &Value, key: &str) -> u64 {
    chunk.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The item a delta names by `item_id`; one never announced is taken as a new item of `kind`.
fn item_named<'a>(items: &'a mut Vec<Item>, chunk: &Value, kind: &str) -> &'a mut Item {
    let id = str_at(chunk, "/item_id");
    let at = match items.iter().position(|i| i.id == id) {
        Some(at) => at,
        None => {
            items.push(Item::new(id, kind));
            items.len() - 1
        }
    };
    &mut items[at]
}

/// A finished item: a client call, or a reasoning item to send back.
fn finished_item(said: &mut Said, calls: &mut Vec<Gathering>, item: &Value) {
    match str_at(item, "/type") {
        "function_call" => calls.push(Gathering {
            key: str_at(item, "/id").to_string(),
            id: str_at(item, "/call_id").to_string(),
            name: str_at(item, "/name").to_string(),
            args: str_at(item, "/arguments").to_string(),
        }),
        "reasoning" => {
            let encrypted = str_at(item, "/encrypted_content");
            if !encrypted.is_empty() {
                said.reasoning_items
                    .push((str_at(item, "/id").to_string(), encrypted.to_string()));
            }
        }
        _ => {}
    }
}

/// The messages' texts: one that follows another message's text starts after a blank line,
/// unless a call or reasoning text came between; a message without text joins nothing.
fn message_text(items: &[Item]) -> String {
    let mut text = String::new();
    let mut after_message = false;
    for item in items {
        if item.kind != "message" {
            let own_part = item.kind == "function_call"
                || (item.kind == "reasoning" && item.parts.iter().any(|(_, t)| !t.is_empty()));
            after_message &= !own_part;
            continue;
        }
        if item.text.is_empty() {
            continue;
        }
        if after_message {
            text.push_str("\n\n");
        }
        text.push_str(&item.text);
        after_message = true;
    }
    text
}

/// Responses usage: `input_tokens` counts the cached input, `output_tokens` the reasoning.
fn responses_tokens(usage: Option<&Value>) -> Tokens {
    let n = |p: &str| {
        usage
            .and_then(|u| u.pointer(p))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let cached = n("/input_tokens_details/cached_tokens");
    let reasoning = n("/output_tokens_details/reasoning_tokens");
    Tokens {
        input: n("/input_tokens").saturating_sub(cached),
        output: n("/output_tokens").saturating_sub(reasoning),
        reasoning,
        cache_read: cached,
        cache_write: 0,
    }
}
