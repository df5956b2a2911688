//! The conversation sent to the model, rebuilt from the stored messages and parts, so a
//! resumed session (`--continue`) continues exactly where the table says it stopped.
//!
//! A user message becomes its text; an assistant message becomes its reasoning (for providers
//! that take it back), text and tool calls, followed by one result per call (the output, the
//! error, or a note that the call never finished). Attempts that a retry replaced (`retried`)
//! are left out. After a compaction, the history starts with its summary and the user's last
//! request before it, and goes on with the messages after it; outputs that compaction pruned
//! are replaced by a short note.

use serde_json::{Map, Value, json};
use strata_protocol::part::{FilePart, PartData, ReasoningPart};
use strata_protocol::tool::{Attachment, ToolState};

use super::compact::summary::{PRUNED_OUTPUT, is_retried, last_summary, resume_text};
use crate::provider::{ChatMessage, Media, ReasoningBlock, ReasoningItem, ToolCall};
use crate::store::{Message, Part, Role};

/// What the model is told about a call that was started but never finished (a crash, or
/// a stream that broke off).
pub const UNFINISHED_CALL: &str =
    "This tool call did not finish: the run stopped before its result was recorded.";

/// Builds the chat history from `(message, parts)` pairs in order.
pub fn chat_history(messages: &[(Message, Vec<Part>)]) -> Vec<ChatMessage> {
    let mut out = Vec::new();
    let mut messages = messages;
    if let Some((at, summary)) = last_summary(messages) {
        out.push(ChatMessage::user(resume_text(&summary)));
        // The request the user is waiting on goes on verbatim, not only as summarised.
        let request = messages[..at]
            .iter()
            .rev()
            .filter(|(m, _)| m.role == Role::User)
            .map(|(_, parts)| request_text(parts))
            .find(|text| !text.is_empty());
        out.extend(request.map(ChatMessage::user));
        messages = &messages[at + 1..];
    }
    for (message, stored) in messages {
        let parts: Vec<PartData> = stored.iter().filter_map(PartData::of).collect();
        match message.role {
            Role::User => {
                let text = joined_text(&parts);
                let media: Vec<Media> = stored.iter().filter_map(attached).collect();
                if !text.is_empty() || !media.is_empty() {
                    out.push(ChatMessage::User { text, media });
                }
            }
            Role::Assistant => {
                if is_retried(message) {
                    continue;
                }
                assistant(&parts, &mut out);
            }
        }
    }
    out
}

/// The text of a user message, as a history after a compaction repeats the user's request.
pub(crate) fn request_text(parts: &[Part]) -> String {
    joined_text(&parts.iter().filter_map(PartData::of).collect::<Vec<_>>())
}

/// A file the user attached, as the model gets it.
fn attached(part: &Part) -> Option<Media> {
    let file = FilePart::of(part)?;
    Some(Media {
        mime: file.mime,
        url: file.url,
        filename: file.filename,
    })
}

fn joined_text(parts: &[PartData]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            PartData::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("")
}

fn assistant(parts: &[PartData], out: &mut Vec<ChatMessage>) {
    let text = joined_text(parts);
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let reasoning: Vec<ReasoningBlock> = parts
        .iter()
        .filter_map(|p| match p {
            PartData::Reasoning(r) if r.is_finished() => Some(reasoning_block(r)),
            _ => None,
        })
        .collect();
    for part in parts {
        let PartData::Tool(part) = part else {
            continue;
        };
        let (output, is_error, media) = match &part.state {
            ToolState::Completed(done) if done.time.compacted.is_some() => {
                (PRUNED_OUTPUT.to_string(), false, Vec::new())
            }
            ToolState::Completed(done) => (done.output.clone(), false, media(&done.attachments)),
            ToolState::Error(failed) => (failed.error.clone(), true, Vec::new()),
            ToolState::Pending(_) | ToolState::Running(_) => {
                (UNFINISHED_CALL.to_string(), true, Vec::new())
            }
        };
        calls.push(ToolCall {
            id: part.call_id.clone(),
            name: part.tool.clone(),
            arguments: part.state.input().to_string(),
            meta: part.provider_meta().cloned(),
        });
        results.push(ChatMessage::ToolResult {
            call_id: part.call_id.clone(),
            name: part.tool.clone(),
            output,
            is_error,
            media,
        });
    }
    if text.is_empty() && calls.is_empty() {
        return;
    }
    out.push(ChatMessage::Assistant {
        text,
        tool_calls: calls,
        reasoning,
    });
    out.extend(results);
}

/// Where a Responses API reasoning item is kept on its part, as opencode keeps it:
/// `metadata.openai.{itemId, reasoningEncryptedContent}`.
const OPENAI: &str = "openai";
const ITEM_ID: &str = "itemId";
const ENCRYPTED: &str = "reasoningEncryptedContent";

/// The metadata a closed reasoning part keeps so that it can be sent back later: a signature
/// or redacted data under the provider's id, a Responses item under `openai`.
pub(crate) fn reasoning_metadata(
    signature: Option<String>,
    redacted: Option<String>,
    item: Option<ReasoningItem>,
) -> Option<Map<String, Value>> {
    let mut meta = Map::new();
    // Signatures come from the Messages wire only; they are kept under its name whatever the
    // provider is called (a gateway speaking Messages too), which is where they are read back.
    if let Some(signature) = signature {
        meta.insert("anthropic".into(), json!({"signature": signature}));
    } else if let Some(data) = redacted {
        meta.insert("anthropic".into(), json!({"redactedData": data}));
    }
    if let Some(item) = item {
        meta.insert(
            OPENAI.into(),
            json!({ITEM_ID: item.id, ENCRYPTED: item.encrypted_content}),
        );
    }
    (!meta.is_empty()).then_some(meta)
}

/// A finished reasoning part as the block sent back, read from what [`reasoning_metadata`]
/// kept; each wire picks the blocks it can use.
fn reasoning_block(r: &ReasoningPart) -> ReasoningBlock {
    let item = r
        .provider_string(OPENAI, ITEM_ID)
        .zip(r.provider_string(OPENAI, ENCRYPTED))
        .map(|(id, encrypted)| ReasoningItem {
            id: id.to_string(),
            encrypted_content: encrypted.to_string(),
        });
    ReasoningBlock {
        text: r.text.clone(),
        signature: r
            .provider_string("anthropic", "signature")
            .map(str::to_string),
        redacted: r
            .provider_string("anthropic", "redactedData")
            .map(str::to_string),
        item,
    }
}

/// The files a completed call attached; entries without a MIME type or URL are skipped.
fn media(attachments: &[Attachment]) -> Vec<Media> {
    attachments
        .iter()
        .filter(|a| !a.mime.is_empty() && !a.url.is_empty())
        .map(|a| Media {
            mime: a.mime.clone(),
            url: a.url.clone(),
            filename: a.filename.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::session::rows::{message, part};

    #[test]
    fn the_files_a_user_attached_travel_with_their_message() {
        let png = json!({"mime": "image/png", "filename": "dot.png", "url": "data:image/png;base64,iVBO"});
        let msgs = vec![(
            message("m1", Role::User, json!({})),
            vec![
                part("m1", 1, "text", json!({"text": "What is this?"})),
                part("m1", 2, "file", png),
            ],
        )];
        let h = chat_history(&msgs);
        assert_eq!(
            h,
            vec![ChatMessage::User {
                text: "What is this?".into(),
                media: vec![Media {
                    mime: "image/png".into(),
                    url: "data:image/png;base64,iVBO".into(),
                    filename: Some("dot.png".into()),
                }],
            }]
        );
    }

    #[test]
    fn calls_become_results_and_replaced_attempts_are_left_out() {
        let msgs = vec![
            (
                message("m1", Role::User, json!({})),
                vec![part("m1", 1, "text", json!({"text": "hi"}))],
            ),
            (
                message("m2", Role::Assistant, json!({"retried": true})),
                vec![part("m2", 1, "text", json!({"text": "cut off"}))],
            ),
            (
                message("m3", Role::Assistant, json!({})),
                vec![
                    part("m3", 1, "step-start", json!({})),
                    part("m3", 2, "text", json!({"text": "Reading."})),
                    part(
                        "m3",
                        3,
                        "tool",
                        json!({"callID": "c1", "tool": "read", "state": {"status": "completed", "input": {"filePath": "a"}, "output": "A"}}),
                    ),
                    part(
                        "m3",
                        4,
                        "tool",
                        json!({"callID": "c2", "tool": "read", "state": {"status": "error", "input": {}, "error": "bad"}}),
                    ),
                    part(
                        "m3",
                        5,
                        "tool",
                        json!({"callID": "c3", "tool": "grep", "state": {"status": "running", "input": {}}}),
                    ),
                ],
            ),
        ];
        let h = chat_history(&msgs);
        assert_eq!(h.len(), 5, "{h:#?}");
        assert_eq!(h[0], ChatMessage::user("hi"));
        let ChatMessage::Assistant {
            text, tool_calls, ..
        } = &h[1]
        else {
            panic!("{:?}", h[1]);
        };
        assert_eq!(text, "Reading.");
        assert_eq!(tool_calls[0].arguments, "{\"filePath\":\"a\"}");
        assert_eq!(
            h[3],
            ChatMessage::ToolResult {
                call_id: "c2".into(),
                name: "read".into(),
                output: "bad".into(),
                is_error: true,
                media: vec![],
            }
        );
        let ChatMessage::ToolResult { output, .. } = &h[4] else {
            panic!()
        };
        assert_eq!(output, UNFINISHED_CALL);
    }

    #[test]
    fn attached_files_of_a_call_travel_with_its_result() {
        let state = json!({
            "status": "completed", "input": {"filePath": "a.png"}, "output": "Image read.",
            "attachments": [
                {"type": "file", "mime": "image/png", "url": "data:image/png;base64,iVBO", "filename": "a.png"},
                {"type": "file", "url": "data:x;base64,"},
            ],
        });
        let msgs = vec![(
            message("m1", Role::Assistant, json!({})),
            vec![part(
                "m1",
                1,
                "tool",
                json!({"callID": "c1", "tool": "read", "state": state}),
            )],
        )];
        let h = chat_history(&msgs);
        let ChatMessage::ToolResult { media, .. } = &h[1] else {
            panic!("{h:?}")
        };
        assert_eq!(
            media,
            &vec![Media {
                mime: "image/png".into(),
                url: "data:image/png;base64,iVBO".into(),
                filename: Some("a.png".into()),
            }],
            "the entry without a MIME type is skipped"
        );
    }

    #[test]
    fn reasoning_text_travels_for_every_provider_and_signatures_only_for_anthropic() {
        let reasoning = |seq: i64, data: serde_json::Value| part("m1", seq, "reasoning", data);
        let msgs = vec![(
            message("m1", Role::Assistant, json!({})),
            vec![
                reasoning(
                    1,
                    json!({"text": "Plan: read.", "time": {"start": 1, "end": 2}}),
                ),
                reasoning(
                    2,
                    json!({"text": "Signed.", "time": {"start": 2, "end": 3},
                        "metadata": {"anthropic": {"signature": "sig"}}}),
                ),
                reasoning(3, json!({"text": "cut off", "time": {"start": 3}})),
                part(
                    "m1",
                    4,
                    "tool",
                    json!({"callID": "c1", "tool": "read", "state": {"status": "completed", "input": {}, "output": "A"}}),
                ),
            ],
        )];
        let h = chat_history(&msgs);
        let ChatMessage::Assistant { reasoning, .. } = &h[0] else {
            panic!("{h:?}")
        };
        let block = |text: &str, signature: Option<&str>| ReasoningBlock {
            text: text.into(),
            signature: signature.map(str::to_string),
            redacted: None,
            item: None,
        };
        assert_eq!(
            reasoning,
            &vec![block("Plan: read.", None), block("Signed.", Some("sig"))],
            "an unfinished part is left out"
        );
    }

    #[test]
    fn reasoning_metadata_round_trips_to_the_block_sent_back() {
        let part = |meta| ReasoningPart {
            text: "Plan.".into(),
            metadata: meta,
            time: strata_protocol::part::TextTime {
                start: 1,
                end: Some(2),
            },
        };
        let item = ReasoningItem {
            id: "rs_1".into(),
            encrypted_content: "enc".into(),
        };
        let meta = reasoning_metadata(None, None, Some(item.clone()));
        assert_eq!(
            meta.as_ref().map(|m| Value::Object(m.clone())),
            Some(json!({"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "enc"}}))
        );
        let block = reasoning_block(&part(meta));
        assert_eq!(block.item, Some(item));
        assert_eq!((block.signature, block.redacted), (None, None));

        let signed = reasoning_block(&part(reasoning_metadata(
            Some("sig".into()),
            Some("ignored".into()),
            None,
        )));
        assert_eq!(signed.signature.as_deref(), Some("sig"));
        assert_eq!((signed.redacted, signed.item), (None, None));
        assert_eq!(reasoning_metadata(None, None, None), None);
    }
}
