//! Rendering scripted pieces as the two streaming wire formats: OpenAI chat-completion chunks
//! (`data: {...}` … `data: [DONE]`) and Anthropic Messages events (`event: …` + `data: {...}`).

use serde_json::{Value, json};

use super::script::Piece;

/// Stands for a pause in a list of frames; never written to the wire.
pub(crate) const PAUSE_FRAME: &str = "";

/// Token counts every scripted response reports.
pub const USAGE_INPUT_TOKENS: u64 = 21;
pub const USAGE_OUTPUT_TOKENS: u64 = 7;

fn data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

fn event(name: &str, v: &Value) -> String {
    format!("event: {name}\ndata: {v}\n\n")
}

/// OpenAI frames for `pieces`. `usage` adds the final usage chunk (`stream_options.include_usage`)
/// reporting `input` prompt tokens.
pub(crate) fn openai(
    pieces: &[Piece],
    model: &str,
    n: usize,
    usage: bool,
    input: u64,
) -> Vec<String> {
    let id = format!("chatcmpl-scripted-{n}");
    let chunk = |delta: Value, finish: Value| {
        data(&json!({
            "id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }))
    };
    let mut frames = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in pieces {
        frames.push(match piece {
            Piece::Text(text) => chunk(json!({"content": text}), Value::Null),
            Piece::Reasoning(text) => chunk(json!({"reasoning_content": text}), Value::Null),
            Piece::ReasoningEnd(_) | Piece::Redacted(_) => continue,
            Piece::CallStart { index, id, name } => chunk(
                json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
                Value::Null,
            ),
            Piece::CallArgs { index, delta } => chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": delta}}]}),
                Value::Null,
            ),
            Piece::Pause => PAUSE_FRAME.to_string(),
            Piece::Finish { tools } => {
                let reason = if *tools { "tool_calls" } else { "stop" };
                let mut end = vec![chunk(json!({}), json!(reason))];
                if usage {
                    end.push(data(&json!({
                        "id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
                        "choices": [],
                        "usage": {"prompt_tokens": input, "completion_tokens": USAGE_OUTPUT_TOKENS,
                                  "total_tokens": input + USAGE_OUTPUT_TOKENS},
                    })));
                }
                end.push("data: [DONE]\n\n".to_string());
                frames.extend(end);
                continue;
            }
        });
    }
    frames
}

/// The content blocks of one Anthropic message, as frames: at most one is open at a time.
struct Blocks {
    frames: Vec<String>,
    /// The open block's index and kind.
    open: Option<(usize, Kind)>,
    next: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Thinking,
    Text,
    Other,
}

impl Blocks {
    fn close(&mut self) {
        if let Some((index, _)) = self.open.take() {
            self.frames.push(event(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": index}),
            ));
        }
    }

    /// Closes the open block and opens `block` as the next one.
    fn start(&mut self, kind: Kind, block: Value) -> usize {
        self.close();
        let index = self.next;
        self.next += 1;
        self.frames.push(event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
        ));
        self.open = Some((index, kind));
        index
    }

    /// The open block when it is of `kind`, else a new one started with `block`.
    fn continue_or_start(&mut self, kind: Kind, block: Value) -> usize {
        match self.open {
            Some((index, open)) if open == kind => index,
            _ => self.start(kind, block),
        }
    }

    fn delta(&mut self, index: usize, delta: Value) {
        self.frames.push(event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        ));
    }
}

/// Anthropic frames for `pieces`: reasoning, text and each call become content blocks; the
/// usage reports `input` input tokens.
pub(crate) fn anthropic(pieces: &[Piece], model: &str, n: usize, input: u64) -> Vec<String> {
    let frames = vec![
        event(
            "message_start",
            &json!({"type": "message_start", "message": {
                "id": format!("msg_scripted_{n}"), "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": input, "output_tokens": 1},
            }}),
        ),
        event("ping", &json!({"type": "ping"})),
    ];
    let mut b = Blocks {
        frames,
        open: None,
        next: 0,
    };
    for piece in pieces {
        match piece {
            Piece::Reasoning(text) => {
                let block = json!({"type": "thinking", "thinking": ""});
                let index = b.continue_or_start(Kind::Thinking, block);
                b.delta(index, json!({"type": "thinking_delta", "thinking": text}));
            }
            Piece::ReasoningEnd(signature) => {
                if let (Some((index, _)), Some(signature)) = (b.open, signature) {
                    b.delta(
                        index,
                        json!({"type": "signature_delta", "signature": signature}),
                    );
                }
                b.close();
            }
            Piece::Redacted(data) => {
                b.start(
                    Kind::Other,
                    json!({"type": "redacted_thinking", "data": data}),
                );
                b.close();
            }
            Piece::Text(text) => {
                let index = b.continue_or_start(Kind::Text, json!({"type": "text", "text": ""}));
                b.delta(index, json!({"type": "text_delta", "text": text}));
            }
            Piece::CallStart { id, name, .. } => {
                let block = json!({"type": "tool_use", "id": id, "name": name, "input": {}});
                b.start(Kind::Other, block);
            }
            Piece::CallArgs { delta, .. } => {
                let index = b.open.map_or(0, |(i, _)| i);
                b.delta(
                    index,
                    json!({"type": "input_json_delta", "partial_json": delta}),
                );
            }
            Piece::Pause => b.frames.push(PAUSE_FRAME.to_string()),
            Piece::Finish { tools } => {
                b.close();
                let reason = if *tools { "tool_use" } else { "end_turn" };
                b.frames.push(event(
                    "message_delta",
                    &json!({
                        "type": "message_delta",
                        "delta": {"stop_reason": reason, "stop_sequence": null},
                        "usage": {"output_tokens": USAGE_OUTPUT_TOKENS},
                    }),
                ));
                b.frames
                    .push(event("message_stop", &json!({"type": "message_stop"})));
            }
        }
    }
    b.frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_server::script::{Turn, pieces};

    #[test]
    fn openai_frames_end_with_finish_usage_and_done() {
        let (p, _) = pieces(&Turn::text("hello there"));
        let frames = openai(&p, "m", 1, true, USAGE_INPUT_TOKENS);
        assert!(frames[1].contains("\"content\":\"hell\""), "{frames:?}");
        let n = frames.len();
        assert!(frames[n - 3].contains("\"finish_reason\":\"stop\""));
        assert!(frames[n - 2].contains("\"usage\""));
        assert_eq!(frames[n - 1], "data: [DONE]\n\n");
        let without = openai(&p, "m", 1, false, USAGE_INPUT_TOKENS);
        assert_eq!(without.len(), n - 1);
    }

    #[test]
    fn anthropic_frames_open_and_close_blocks() {
        let (p, _) = pieces(&Turn::TextAndToolCalls(
            "ok".into(),
            vec![("t1".into(), "read".into(), "{}".into())],
        ));
        let frames = anthropic(&p, "m", 1, USAGE_INPUT_TOKENS);
        let names: Vec<&str> = frames
            .iter()
            .map(|f| {
                f.lines()
                    .next()
                    .unwrap_or_default()
                    .trim_start_matches("event: ")
            })
            .collect();
        assert_eq!(
            names,
            vec![
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
            ]
        );
        assert!(frames[5].contains("\"tool_use\"") && frames[5].contains("\"t1\""));
    }

    #[test]
    fn reasoning_becomes_a_signed_thinking_block_or_reasoning_content() {
        let turn = Turn::reasoning("why not", Some("sig"), Turn::text("ok"));
        let (p, _) = pieces(&turn);
        let frames = anthropic(&p, "m", 1, 5).join("");
        assert!(frames.contains(r#""type":"thinking""#), "{frames}");
        assert!(
            frames.contains(r#""signature_delta","signature":"sig""#),
            "{frames}"
        );
        assert!(frames.contains(r#""input_tokens":5"#));
        let frames = openai(&p, "m", 1, true, 9).join("");
        assert!(frames.contains(r#""reasoning_content":"why ""#), "{frames}");
        assert!(frames.contains(r#""prompt_tokens":9"#));
    }
}
