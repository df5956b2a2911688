//! Provider-neutral request and stream types: what the loop sends to a model and what it gets
//! back, independent of any vendor's wire format.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One request to a model: the whole conversation so far plus the tools it may call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The API model id (without the `openai/` or `anthropic/` prefix).
    pub model: String,
    /// System prompt; omitted from the wire when empty.
    pub system: String,
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolSpec>,
    /// Upper bound on generated tokens; each provider documents its default.
    pub max_tokens: Option<u32>,
    /// How much the model should reason, for models that do.
    #[serde(default)]
    pub reasoning: Reasoning,
    /// Sampling temperature (the agent's); the provider's default when unset.
    #[serde(default)]
    pub temperature: Option<f64>,
    /// A stable key for the provider's prompt cache (the session id): sent as
    /// `prompt_cache_key` where the wire accepts it, so the steps of one session share a cache.
    #[serde(default)]
    pub cache_key: Option<String>,
    /// Prompt caching off (the config's `options.cache: false`): no cache breakpoints and no
    /// `prompt_cache_key` are sent. Off by default, so caching is on.
    #[serde(default)]
    pub no_cache: bool,
    /// For models whose reasoning must travel back with their tool calls (the catalogue's
    /// `interleaved`): the assistant-message field that carries it on chat-completions wires
    /// (`reasoning_content`, `reasoning_details`). `None`: reasoning is not sent back there.
    #[serde(default)]
    pub interleaved: Option<String>,
}

/// Reasoning settings: an effort for OpenAI-compatible models (`reasoning_effort`), a thinking
/// budget for Anthropic ones. Unset fields send nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reasoning {
    pub effort: Option<String>,
    pub budget_tokens: Option<u32>,
}

/// A piece of the model's reasoning sent back in history: what its provider needs to accept
/// it again. Anthropic: the text and signature of a thinking block, or the redacted data; the
/// Responses API: the reasoning item ([`ReasoningItem`]), its text being the item's summary.
/// Each wire sends only the blocks it can use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasoningBlock {
    pub text: String,
    pub signature: Option<String>,
    /// The opaque payload of a `redacted_thinking` block.
    pub redacted: Option<String>,
    /// The Responses API reasoning item this block came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<ReasoningItem>,
}

/// A Responses API reasoning item as it must be sent back when nothing is stored on the
/// vendor's side (`store: false`): its id and its encrypted content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasoningItem {
    pub id: String,
    pub encrypted_content: String,
}

/// A tool as the model sees it: its id, description and JSON Schema for the arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// One entry of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    User {
        text: String,
        /// Files the user attached to the prompt (images, PDFs), sent after the text.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        media: Vec<Media>,
    },
    Assistant {
        text: String,
        tool_calls: Vec<ToolCall>,
        /// The reasoning that came before the text and calls, when it must be sent back.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reasoning: Vec<ReasoningBlock>,
    },
    /// The result of one tool call, answered in the turn after the call.
    ToolResult {
        call_id: String,
        name: String,
        output: String,
        is_error: bool,
        /// Files the tool attached (an image or PDF `read` loaded), sent beside the output.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        media: Vec<Media>,
    },
}

/// A file sent to the model as content rather than text: an image or a PDF.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Media {
    pub mime: String,
    /// `data:<mime>;base64,<payload>`, as tools attach it.
    pub url: String,
    pub filename: Option<String>,
}

impl Media {
    /// The base64 payload of the data URL; `None` when the URL is not a base64 data URL.
    pub fn base64(&self) -> Option<&str> {
        self.url
            .strip_prefix("data:")
            .and_then(|rest| rest.split_once(";base64,"))
            .map(|(_, data)| data)
    }

    pub fn is_image(&self) -> bool {
        self.mime.starts_with("image/")
    }

    pub fn is_pdf(&self) -> bool {
        self.mime == "application/pdf"
    }

    /// A name to show the model: the file name, else the MIME type.
    pub fn label(&self) -> &str {
        self.filename.as_deref().unwrap_or(&self.mime)
    }

    /// The line that introduces this file when wires without files in tool results send it
    /// in a user message after the results.
    pub fn attached_by(&self, call_id: &str) -> String {
        format!("Attached by tool call {call_id}: {}", self.label())
    }

    /// The line sent instead of a file the user attached when the wire cannot carry its type.
    pub fn not_sendable_from_user(&self) -> String {
        format!(
            "The user attached {} ({}), which cannot be sent to this model.",
            self.label(),
            self.mime
        )
    }

    /// The line sent instead of this file when the wire cannot carry its type.
    pub fn not_sendable(&self, call_id: &str) -> String {
        format!(
            "Tool call {call_id} attached {} ({}), which cannot be sent to this model.",
            self.label(),
            self.mime
        )
    }
}

impl ChatMessage {
    pub fn user(text: impl Into<String>) -> Self {
        ChatMessage::User {
            text: text.into(),
            media: Vec::new(),
        }
    }

    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        ChatMessage::Assistant {
            text: text.into(),
            tool_calls,
            reasoning: Vec::new(),
        }
    }
}

/// A complete tool call: `arguments` is a JSON text that parsed (`{}` when the model sent none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// What the provider attached to the call and wants back with it in the next request
    /// (Gemini's `extra_content` with its thought signature), kept verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// One event of a streamed model response, in the order the model produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// A piece of assistant text.
    TextDelta(String),
    /// A piece of the model's reasoning (thinking); a reasoning part opens with the first.
    ReasoningDelta(String),
    /// The open reasoning is complete; `signature` (Anthropic) or `item` (the Responses API)
    /// is what the provider needs to accept it back.
    ReasoningEnd {
        signature: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item: Option<ReasoningItem>,
    },
    /// A whole reasoning block the provider redacted: only its opaque data can be sent back.
    RedactedReasoning(String),
    /// The model began a tool call; its arguments follow as deltas.
    ToolCallStarted { id: String, name: String },
    /// A fragment of a call's JSON arguments (for live display only).
    ToolCallDelta { id: String, delta: String },
    /// The call is complete and its arguments are valid JSON: it may be executed.
    ToolCallReady(ToolCall),
    /// The response ended normally. Always the last event of a successful stream.
    Finish {
        reason: FinishReason,
        usage: Option<Usage>,
    },
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model finished its answer.
    Stop,
    /// The model wants the tool calls it made executed and their results sent back.
    ToolCalls,
    /// The output hit the token limit.
    Length,
    /// A vendor-specific reason, kept verbatim.
    Other(String),
}

/// Token counts reported by the provider for one response, normalised across vendors:
/// `input_tokens` is the input not read from or written to the cache, `output_tokens` all
/// generated tokens (reasoning included, as billed), `reasoning_tokens` the part of them that
/// was reasoning, when the provider says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub reasoning_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Usage {
    /// Input and output counts only (tests and providers that report no more).
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            output_tokens,
            ..Self::default()
        }
    }

    /// How much of the context window the conversation used: all input plus the answer,
    /// which the next request carries too.
    pub fn context_tokens(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_write_tokens + self.output_tokens
    }
}

/// A whole response gathered from a stream (see [`collect`](super::collect)).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Completion {
    pub text: String,
    pub reasoning: String,
    pub tool_calls: Vec<ToolCall>,
    pub finish: Option<FinishReason>,
    pub usage: Option<Usage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_through_json_with_a_role_tag() {
        let msgs = vec![
            ChatMessage::user("hi"),
            ChatMessage::assistant(
                "",
                vec![ToolCall {
                    id: "c1".into(),
                    name: "read".into(),
                    arguments: "{}".into(),
                    meta: None,
                }],
            ),
            ChatMessage::ToolResult {
                call_id: "c1".into(),
                name: "read".into(),
                output: "x".into(),
                is_error: false,
                media: vec![],
            },
        ];
        let json = serde_json::to_value(&msgs).unwrap();
        assert_eq!(json[0]["role"], "user");
        assert_eq!(json[2]["role"], "tool_result");
        let back: Vec<ChatMessage> = serde_json::from_value(json).unwrap();
        assert_eq!(back, msgs);
    }

    #[test]
    fn media_exposes_its_payload_and_kind() {
        let png = Media {
            mime: "image/png".into(),
            url: "data:image/png;base64,iVBO".into(),
            filename: Some("a.png".into()),
        };
        assert_eq!(png.base64(), Some("iVBO"));
        assert!(png.is_image() && !png.is_pdf());
        assert_eq!(png.label(), "a.png");
        let odd = Media {
            mime: "application/pdf".into(),
            url: "https://example.invalid/a.pdf".into(),
            filename: None,
        };
        assert_eq!(odd.base64(), None);
        assert!(odd.is_pdf());
        assert_eq!(odd.label(), "application/pdf");
    }
}
