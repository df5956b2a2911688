//! The data of stored messages: [`UserMessage`] and [`AssistantMessage`], with [`Tokens`] and
//! the opencode-style [`ErrorInfo`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `time` of a message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageTime {
    #[serde(default)]
    pub created: i64,
    /// When the assistant's step finished or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed: Option<i64>,
}

/// A user message's data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserMessage {
    #[serde(default)]
    pub time: MessageTime,
    #[serde(default)]
    pub agent: String,
    /// The model the prompt was sent to; opencode's clients read it back from the last user
    /// message. Absent in messages stored before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<UserModel>,
}

/// `model` of a user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserModel {
    #[serde(rename = "providerID")]
    pub provider_id: String,
    #[serde(rename = "modelID")]
    pub model_id: String,
}

impl UserMessage {
    pub fn new(created: i64, agent: &str) -> Self {
        Self {
            time: MessageTime {
                created,
                completed: None,
            },
            agent: agent.to_string(),
            model: None,
        }
    }

    /// The same, sent to `model_id` of `provider_id`.
    pub fn sent_to(mut self, provider_id: &str, model_id: &str) -> Self {
        self.model = Some(UserModel {
            provider_id: provider_id.to_string(),
            model_id: model_id.to_string(),
        });
        self
    }
}

/// An assistant message's data: one per step attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    #[serde(default)]
    pub time: MessageTime,
    #[serde(default)]
    pub agent: String,
    /// The same as `agent` (opencode keeps both).
    #[serde(default)]
    pub mode: String,
    #[serde(rename = "providerID", default)]
    pub provider_id: String,
    #[serde(rename = "modelID", default)]
    pub model_id: String,
    /// What the step cost in US dollars, from the model catalogue's prices (0 when the model is
    /// not catalogued).
    #[serde(default, serialize_with = "cost_number")]
    pub cost: f64,
    #[serde(default)]
    pub tokens: Tokens,
    /// Why the model stopped, once the step finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<String>,
    /// Why the step failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// A later attempt replaced this one; the history sent to the model leaves it out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retried: bool,
    /// This message holds a summary of the conversation before it (a compaction).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub summary: bool,
}

// A cost is never NaN (it is a sum of products of finite prices and counts), so equality is
// reflexive and the messages stay comparable as before.
impl Eq for AssistantMessage {}

/// Writes a cost as JSON does in JavaScript: a whole number without a fraction (`0`, not `0.0`),
/// so records from before costs were priced read the same.
pub fn cost_number<S: serde::Serializer>(cost: &f64, s: S) -> Result<S::Ok, S::Error> {
    if cost.fract() == 0.0 && cost.abs() < 9.0e15 {
        // Whole and within the exact integer range of an f64.
        #[allow(clippy::cast_possible_truncation)]
        s.serialize_i64(*cost as i64)
    } else {
        s.serialize_f64(*cost)
    }
}

impl AssistantMessage {
    pub fn new(created: i64, agent: &str, provider_id: &str, model_id: &str) -> Self {
        Self {
            time: MessageTime {
                created,
                completed: None,
            },
            agent: agent.to_string(),
            mode: agent.to_string(),
            provider_id: provider_id.to_string(),
            model_id: model_id.to_string(),
            cost: 0.0,
            tokens: Tokens::default(),
            finish: None,
            error: None,
            retried: false,
            summary: false,
        }
    }

    /// Reads a stored assistant message's data (lenient: missing fields take defaults).
    pub fn from_value(data: &Value) -> Result<Self, serde_json::Error> {
        Self::deserialize(data)
    }
}

/// Token counts in opencode's shape: `input` excludes cached input, `output` excludes
/// reasoning.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Tokens {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub reasoning: u64,
    #[serde(default)]
    pub cache: CacheTokens,
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct CacheTokens {
    #[serde(default)]
    pub read: u64,
    #[serde(default)]
    pub write: u64,
}

impl Tokens {
    pub fn new(input: u64, output: u64) -> Self {
        Self {
            input,
            output,
            ..Self::default()
        }
    }
}

/// An error as opencode names it: `{"name", "data": {"message"}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ErrorInfo {
    pub name: String,
    pub data: ErrorData,
}

// Read leniently: some of opencode's errors (an output-length error) carry no message. (A
// plain comment: a doc comment would become a description in the API document.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(transform = message_always_sent)]
pub struct ErrorData {
    #[serde(default)]
    pub message: String,
}

/// The API document lists `message` as required all the same: Strata always sends it, and
/// the default only makes the reader lenient.
fn message_always_sent(schema: &mut schemars::Schema) {
    if let Some(message) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("message"))
        .and_then(Value::as_object_mut)
    {
        message.remove("default");
    }
    match schema.get_mut("required").and_then(Value::as_array_mut) {
        Some(required) => required.push("message".into()),
        None => {
            schema.insert("required".into(), serde_json::json!(["message"]));
        }
    }
}

impl ErrorInfo {
    pub fn new(name: &str, message: &str) -> Self {
        Self {
            name: name.to_string(),
            data: ErrorData {
                message: message.to_string(),
            },
        }
    }

    /// The message when there is one, else the name.
    pub fn text(&self) -> &str {
        if self.data.message.is_empty() {
            &self.name
        } else {
            &self.data.message
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assistant_messages_keep_their_field_order_through_finish_and_failure() {
        let mut m = AssistantMessage::new(5, "build", "openai", "gpt");
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"time":{"created":5},"agent":"build","mode":"build","providerID":"openai","modelID":"gpt","cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}}"#
        );
        m.time.completed = Some(6);
        m.error = Some(ErrorInfo::new("APIError", "boom"));
        m.retried = true;
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"time":{"created":5,"completed":6},"agent":"build","mode":"build","providerID":"openai","modelID":"gpt","cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"error":{"name":"APIError","data":{"message":"boom"}},"retried":true}"#
        );
        assert_eq!(
            serde_json::to_string(&UserMessage::new(5, "build")).unwrap(),
            r#"{"time":{"created":5},"agent":"build"}"#
        );
    }
}
