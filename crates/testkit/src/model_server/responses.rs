//! Rendering scripted pieces as OpenAI Responses events (`event: <type>` + `data: {...}`), the
//! third protocol the server speaks (`POST /v1/responses`). Reasoning, text and each call
//! become output items: announced (`response.output_item.added`), streamed as deltas naming
//! the item, and restated whole when done (`response.output_item.done`); a reasoning item
//! carries its summary and, when the turn gives a signature, that signature as its
//! `encrypted_content`. `response.completed` ends the response with the usage, part of the
//! input reported as read from the cache.

use serde_json::{Value, json};

use super::script::Piece;
use super::wire::{PAUSE_FRAME, USAGE_OUTPUT_TOKENS};

/// The Responses endpoint path.
pub const RESPONSES_PATH: &str = "/v1/responses";
/// Input tokens every scripted Responses answer reports as read from the cache, on top of the
/// input it reports as new.
pub const RESPONSES_CACHED_TOKENS: u64 = 5;
/// Output tokens a scripted Responses answer that reasoned reports as reasoning.
pub const RESPONSES_REASONING_TOKENS: u64 = 3;

/// The output item being streamed.
enum Open {
    Reasoning { id: String, summary: String },
    Message { id: String, text: String },
    Call { item: Value, arguments: String },
}

/// The events of one response, in order, with the items finished so far.
struct Output {
    frames: Vec<String>,
    sequence: u64,
    n: usize,
    open: Option<Open>,
    done: Vec<Value>,
    reasoned: bool,
}

impl Output {
    fn event(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        self.frames.push(format!("event: {kind}\ndata: {data}\n\n"));
    }

    /// The index of the item being streamed (items are numbered in order).
    fn index(&self) -> usize {
        self.done.len()
    }

    fn item_id(&self, prefix: &str) -> String {
        format!("{prefix}_scripted_{}_{}", self.n, self.index())
    }

    /// Announces `item` as the next output item.
    fn add(&mut self, item: &Value) {
        let index = self.index();
        self.event(
            "response.output_item.added",
            json!({"output_index": index, "item": item}),
        );
    }

    /// Streams a piece of reasoning summary, opening a reasoning item if none is open.
    fn reasoning(&mut self, delta: &str) {
        if !matches!(self.open, Some(Open::Reasoning { .. })) {
            self.close();
            let id = self.item_id("rs");
            self.add(&json!({"type": "reasoning", "id": id, "summary": []}));
            let index = self.index();
            self.event(
                "response.reasoning_summary_part.added",
                json!({"item_id": id, "output_index": index, "summary_index": 0,
                       "part": {"type": "summary_text", "text": ""}}),
            );
            self.open = Some(Open::Reasoning {
                id,
                summary: String::new(),
            });
        }
        let index = self.index();
        if let Some(Open::Reasoning { id, summary }) = &mut self.open {
            summary.push_str(delta);
            let data =
                json!({"item_id": id, "output_index": index, "summary_index": 0, "delta": delta});
            self.event("response.reasoning_summary_text.delta", data);
        }
    }

    /// Ends the reasoning item (an empty one when none is open).
    fn reasoning_end(&mut self, encrypted: Option<&str>) {
        let (id, summary) = match self.open.take() {
            Some(Open::Reasoning { id, summary }) => (id, summary),
            other => {
                self.open = other;
                self.close();
                let id = self.item_id("rs");
                self.add(&json!({"type": "reasoning", "id": id, "summary": []}));
                (id, String::new())
            }
        };
        self.reasoned = true;
        let index = self.index();
        let mut parts = Vec::new();
        if !summary.is_empty() {
            let part = json!({"type": "summary_text", "text": summary});
            let at = json!({"item_id": id, "output_index": index, "summary_index": 0});
            let mut text_done = at.clone();
            text_done["text"] = json!(summary);
            self.event("response.reasoning_summary_text.done", text_done);
            let mut part_done = at;
            part_done["part"] = part.clone();
            self.event("response.reasoning_summary_part.done", part_done);
            parts.push(part);
        }
        let item = json!({"type": "reasoning", "id": id, "encrypted_content": encrypted, "summary": parts});
        self.finish_item(item);
    }

    /// Streams a piece of text, opening a message if none is open.
    fn text(&mut self, delta: &str) {
        if !matches!(self.open, Some(Open::Message { .. })) {
            self.close();
            let id = self.item_id("msg");
            self.add(&json!({"type": "message", "id": id, "status": "in_progress", "role": "assistant", "content": []}));
            let index = self.index();
            self.event(
                "response.content_part.added",
                json!({"item_id": id, "output_index": index, "content_index": 0,
                       "part": {"type": "output_text", "text": "", "annotations": []}}),
            );
            self.open = Some(Open::Message {
                id,
                text: String::new(),
            });
        }
        let index = self.index();
        if let Some(Open::Message { id, text }) = &mut self.open {
            text.push_str(delta);
            let data =
                json!({"item_id": id, "output_index": index, "content_index": 0, "delta": delta});
            self.event("response.output_text.delta", data);
        }
    }

    fn call_start(&mut self, call_id: &str, name: &str) {
        self.close();
        let item = json!({"type": "function_call", "id": self.item_id("fc"), "status": "in_progress",
                          "call_id": call_id, "name": name, "arguments": ""});
        self.add(&item);
        self.open = Some(Open::Call {
            item,
            arguments: String::new(),
        });
    }

    fn call_args(&mut self, delta: &str) {
        let index = self.index();
        if let Some(Open::Call { item, arguments }) = &mut self.open {
            arguments.push_str(delta);
            let data = json!({"item_id": item["id"], "output_index": index, "delta": delta});
            self.event("response.function_call_arguments.delta", data);
        }
    }

    /// Ends the open item, restating it whole.
    fn close(&mut self) {
        if matches!(self.open, Some(Open::Reasoning { .. })) {
            return self.reasoning_end(None);
        }
        let index = self.index();
        match self.open.take() {
            None | Some(Open::Reasoning { .. }) => {}
            Some(Open::Message { id, text }) => {
                let at = json!({"item_id": id, "output_index": index, "content_index": 0});
                let part = json!({"type": "output_text", "text": text, "annotations": []});
                let mut text_done = at.clone();
                text_done["text"] = json!(text);
                self.event("response.output_text.done", text_done);
                let mut part_done = at;
                part_done["part"] = part.clone();
                self.event("response.content_part.done", part_done);
                self.finish_item(json!({"type": "message", "id": id, "status": "completed",
                                        "role": "assistant", "content": [part]}));
            }
            Some(Open::Call {
                mut item,
                arguments,
            }) => {
                let data =
                    json!({"item_id": item["id"], "output_index": index, "arguments": arguments});
                self.event("response.function_call_arguments.done", data);
                item["status"] = json!("completed");
                item["arguments"] = json!(arguments);
                self.finish_item(item);
            }
        }
    }

    fn finish_item(&mut self, item: Value) {
        let index = self.index();
        self.event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        self.done.push(item);
    }
}

/// Responses frames for `pieces`; the usage reports `input` new input tokens plus
/// [`RESPONSES_CACHED_TOKENS`] read from the cache.
pub(crate) fn frames(pieces: &[Piece], model: &str, n: usize, input: u64) -> Vec<String> {
    let mut out = Output {
        frames: Vec::new(),
        sequence: 0,
        n,
        open: None,
        done: Vec::new(),
        reasoned: false,
    };
    let response = |status: &str| {
        json!({"id": format!("resp_scripted_{n}"), "object": "response", "created_at": 0,
               "status": status, "model": model, "output": [], "usage": null})
    };
    out.event(
        "response.created",
        json!({"response": response("in_progress")}),
    );
    out.event(
        "response.in_progress",
        json!({"response": response("in_progress")}),
    );
    for piece in pieces {
        match piece {
            Piece::Reasoning(text) => out.reasoning(text),
            Piece::ReasoningEnd(signature) => out.reasoning_end(signature.as_deref()),
            // The API has no redacted reasoning.
            Piece::Redacted(_) => {}
            Piece::Text(text) => out.text(text),
            Piece::CallStart { id, name, .. } => out.call_start(id, name),
            Piece::CallArgs { delta, .. } => out.call_args(delta),
            Piece::Pause => out.frames.push(PAUSE_FRAME.to_string()),
            Piece::Finish { .. } => {
                out.close();
                let mut done = response("completed");
                done["output"] = json!(out.done);
                let reasoning = if out.reasoned {
                    RESPONSES_REASONING_TOKENS
                } else {
                    0
                };
                let all_input = input + RESPONSES_CACHED_TOKENS;
                done["usage"] = json!({
                    "input_tokens": all_input,
                    "input_tokens_details": {"cached_tokens": RESPONSES_CACHED_TOKENS},
                    "output_tokens": USAGE_OUTPUT_TOKENS,
                    "output_tokens_details": {"reasoning_tokens": reasoning},
                    "total_tokens": all_input + USAGE_OUTPUT_TOKENS,
                });
                out.event("response.completed", json!({"response": done}));
            }
        }
    }
    out.frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_server::script::{Turn, pieces};

    /// The `type` of each frame's event.
    fn kinds(frames: &[String]) -> Vec<String> {
        frames
            .iter()
            .map(|f| f.lines().next().unwrap_or_default().replace("event: ", ""))
            .collect()
    }

    fn data(frame: &str) -> Value {
        let line = frame.lines().nth(1).unwrap();
        serde_json::from_str(line.trim_start_matches("data: ")).unwrap()
    }

    #[test]
    fn reasoning_then_a_call_are_items_announced_streamed_and_restated() {
        let turn = Turn::reasoning(
            "Read it first.",
            Some("enc-1"),
            Turn::tool_call("c1", "read", r#"{"filePath":"a"}"#),
        );
        let (p, _) = pieces(&turn);
        let frames = frames(&p, "m", 2, 10);
        let kinds = kinds(&frames);
        assert_eq!(kinds[0], "response.created");
        let done: Vec<Value> = frames
            .iter()
            .filter(|f| f.starts_with("event: response.output_item.done"))
            .map(|f| data(f)["item"].clone())
            .collect();
        assert_eq!(
            done[0],
            json!({"type": "reasoning", "id": "rs_scripted_2_0", "encrypted_content": "enc-1",
                   "summary": [{"type": "summary_text", "text": "Read it first."}]})
        );
        assert_eq!(done[1]["call_id"], "c1");
        assert_eq!(done[1]["id"], "fc_scripted_2_1");
        assert_eq!(done[1]["arguments"], r#"{"filePath":"a"}"#);
        let deltas = kinds
            .iter()
            .filter(|k| *k == "response.function_call_arguments.delta")
            .count();
        assert!(deltas >= 4, "{kinds:?}");
        let completed = data(frames.last().unwrap());
        assert_eq!(completed["type"], "response.completed");
        assert_eq!(completed["response"]["usage"]["input_tokens"], 15);
        assert_eq!(
            completed["response"]["usage"]["output_tokens_details"]["reasoning_tokens"],
            RESPONSES_REASONING_TOKENS
        );
        let sequence: Vec<u64> = frames
            .iter()
            .map(|f| data(f)["sequence_number"].as_u64().unwrap())
            .collect();
        assert_eq!(sequence, (0..frames.len() as u64).collect::<Vec<_>>());
    }

    #[test]
    fn a_broken_turn_leaves_its_call_open_and_never_completes() {
        let (p, cut) = pieces(&Turn::broken_call(
            "Running.",
            "c7",
            "bash",
            r#"{"command":"ls"}"#,
        ));
        assert!(cut);
        let kinds = kinds(&frames(&p, "m", 1, 1));
        assert_eq!(
            kinds
                .iter()
                .filter(|k| *k == "response.output_item.done")
                .count(),
            1,
            "only the message is done: {kinds:?}"
        );
        assert!(!kinds.iter().any(|k| k == "response.completed"));
    }
}
