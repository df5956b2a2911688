//! The payloads of stored parts by kind: [`TextPart`], [`ToolPart`], step
//! start (`{}`), [`StepFinish`], the model's [`ReasoningPart`] and the summary a compaction
//! left ([`CompactionPart`]); [`PartData`] reads any of them from a [`Part`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::message::Tokens;
use crate::store::Part;
use crate::tool::ToolPart;

/// Part kinds (`Part::kind`, the `type` of a part's view).
pub mod kinds {
    pub const TEXT: &str = "text";
    pub const TOOL: &str = "tool";
    pub const STEP_START: &str = "step-start";
    pub const STEP_FINISH: &str = "step-finish";
    pub const REASONING: &str = "reasoning";
    pub const COMPACTION: &str = "compaction";
    /// A file the user attached to a prompt (opencode's `file` part).
    pub const FILE: &str = "file";
}

/// A file the user attached to a prompt, as opencode stores it: its MIME type, its name, and
/// its content as a `data:<mime>;base64,…` URL. Stored under [`kinds::FILE`]; not a
/// [`PartData`] kind, so front-ends that do not draw files pass over it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilePart {
    pub mime: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    pub url: String,
}

impl FilePart {
    /// The file stored in `part`, when it is one.
    pub fn of(part: &Part) -> Option<FilePart> {
        (part.kind == kinds::FILE)
            .then(|| FilePart::deserialize(&part.data).ok())
            .flatten()
    }
}

/// The model's reasoning (thinking) as it streamed, with what the provider needs to accept it
/// back in a later request: `metadata.anthropic.signature` for a signed thinking block,
/// `metadata.anthropic.redactedData` for a redacted one, and
/// `metadata.openai.{itemId, reasoningEncryptedContent}` for a Responses API reasoning item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasoningPart {
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default)]
    pub time: TextTime,
}

impl ReasoningPart {
    /// Whether the reasoning is complete (it has `time.end`).
    pub fn is_finished(&self) -> bool {
        self.time.end.is_some()
    }

    /// A value under `metadata.<provider>.<key>`, when it is a string.
    pub fn provider_string(&self, provider: &str, key: &str) -> Option<&str> {
        self.metadata.as_ref()?.get(provider)?.get(key)?.as_str()
    }
}

/// A compaction: the conversation before it was summarised, and requests after it send the
/// summary instead of the messages it covers (which stay stored).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionPart {
    /// Started by the loop (the context window was nearly full), not by the user.
    #[serde(default)]
    pub auto: bool,
    /// Started because the provider said the request was too long.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overflow: bool,
    /// The model's summary of the conversation so far.
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub time: TextTime,
}

/// A piece of text. A user's text has no `time`, as in opencode, so front-ends that show
/// finished assistant text (`time.end`) do not echo the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextPart {
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TextTime>,
}

/// When assistant text started streaming and, once complete, when it ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextTime {
    #[serde(default)]
    pub start: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<i64>,
}

impl TextPart {
    /// A user's text.
    pub fn user(text: &str) -> Self {
        Self {
            text: text.to_string(),
            time: None,
        }
    }

    /// Assistant text; `end` once it is complete.
    pub fn assistant(text: &str, start: i64, end: Option<i64>) -> Self {
        Self {
            text: text.to_string(),
            time: Some(TextTime { start, end }),
        }
    }

    /// Whether this is complete assistant text (it has `time.end`).
    pub fn is_finished(&self) -> bool {
        self.time.is_some_and(|t| t.end.is_some())
    }
}

/// The end of a model step: why the model stopped and what it used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepFinish {
    /// `stop`, `tool-calls`, `length`, or the provider's own word.
    #[serde(default)]
    pub reason: String,
    /// What the step cost in US dollars (0 when the model is not catalogued).
    #[serde(default, serialize_with = "crate::message::cost_number")]
    pub cost: f64,
    #[serde(default)]
    pub tokens: Tokens,
}

/// A part's payload, typed by its kind.
#[derive(Debug, Clone, PartialEq)]
pub enum PartData {
    Text(TextPart),
    /// Boxed: a tool part is many times the size of the others.
    Tool(Box<ToolPart>),
    StepStart,
    StepFinish(StepFinish),
    Reasoning(ReasoningPart),
    Compaction(CompactionPart),
}

impl PartData {
    /// Reads `part`'s data by its kind; `None` for an unknown kind or data that does not fit.
    pub fn of(part: &Part) -> Option<PartData> {
        let data = &part.data;
        Some(match part.kind.as_str() {
            kinds::TEXT => PartData::Text(TextPart::deserialize(data).ok()?),
            kinds::TOOL => PartData::Tool(Box::new(ToolPart::deserialize(data).ok()?)),
            kinds::STEP_START => PartData::StepStart,
            kinds::STEP_FINISH => PartData::StepFinish(StepFinish::deserialize(data).ok()?),
            kinds::REASONING => PartData::Reasoning(ReasoningPart::deserialize(data).ok()?),
            kinds::COMPACTION => PartData::Compaction(CompactionPart::deserialize(data).ok()?),
            _ => return None,
        })
    }

    /// The kind to store the part under.
    pub fn kind(&self) -> &'static str {
        match self {
            PartData::Text(_) => kinds::TEXT,
            PartData::Tool(_) => kinds::TOOL,
            PartData::StepStart => kinds::STEP_START,
            PartData::StepFinish(_) => kinds::STEP_FINISH,
            PartData::Reasoning(_) => kinds::REASONING,
            PartData::Compaction(_) => kinds::COMPACTION,
        }
    }

    /// The data to store.
    pub fn to_value(&self) -> Value {
        let value = match self {
            PartData::Text(p) => serde_json::to_value(p),
            PartData::Tool(p) => serde_json::to_value(p),
            PartData::StepStart => Ok(json!({})),
            PartData::StepFinish(p) => serde_json::to_value(p),
            PartData::Reasoning(p) => serde_json::to_value(p),
            PartData::Compaction(p) => serde_json::to_value(p),
        };
        // Plain structs of strings, numbers and JSON values always serialize.
        value.unwrap_or(Value::Null)
    }
}

impl From<ToolPart> for PartData {
    fn from(p: ToolPart) -> Self {
        PartData::Tool(Box::new(p))
    }
}

impl From<TextPart> for PartData {
    fn from(p: TextPart) -> Self {
        PartData::Text(p)
    }
}

impl From<ReasoningPart> for PartData {
    fn from(p: ReasoningPart) -> Self {
        PartData::Reasoning(p)
    }
}

impl From<CompactionPart> for PartData {
    fn from(p: CompactionPart) -> Self {
        PartData::Compaction(p)
    }
}

impl From<StepFinish> for PartData {
    fn from(p: StepFinish) -> Self {
        PartData::StepFinish(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_step_parts_keep_their_shapes() {
        let text = |d: &PartData| serde_json::to_string(&d.to_value()).unwrap();
        assert_eq!(text(&TextPart::user("hi").into()), r#"{"text":"hi"}"#);
        assert_eq!(
            text(&TextPart::assistant("", 1, None).into()),
            r#"{"text":"","time":{"start":1}}"#
        );
        assert_eq!(
            text(&TextPart::assistant("a", 1, Some(2)).into()),
            r#"{"text":"a","time":{"start":1,"end":2}}"#
        );
        assert_eq!(text(&PartData::StepStart), "{}");
        let finish = StepFinish {
            reason: "stop".into(),
            cost: 0.0,
            tokens: Tokens::new(3, 4),
        };
        assert_eq!(
            text(&finish.into()),
            r#"{"reason":"stop","cost":0,"tokens":{"input":3,"output":4,"reasoning":0,"cache":{"read":0,"write":0}}}"#
        );
        let priced = StepFinish {
            reason: "stop".into(),
            cost: 0.0125,
            tokens: Tokens::new(3, 4),
        };
        assert!(text(&priced.into()).contains(r#""cost":0.0125"#));
    }

    #[test]
    fn reasoning_and_compaction_parts_round_trip_by_kind() {
        let mut meta = Map::new();
        meta.insert("anthropic".into(), json!({"signature": "sig-1"}));
        let reasoning = ReasoningPart {
            text: "think".into(),
            metadata: Some(meta),
            time: TextTime {
                start: 1,
                end: Some(2),
            },
        };
        assert_eq!(
            reasoning.provider_string("anthropic", "signature"),
            Some("sig-1")
        );
        let data = PartData::from(reasoning.clone());
        assert_eq!(data.kind(), "reasoning");
        assert_eq!(
            serde_json::to_string(&data.to_value()).unwrap(),
            r#"{"text":"think","metadata":{"anthropic":{"signature":"sig-1"}},"time":{"start":1,"end":2}}"#
        );
        let compaction = CompactionPart {
            auto: true,
            overflow: false,
            summary: "so far".into(),
            time: TextTime::default(),
        };
        for data in [data, compaction.into()] {
            let part = Part {
                id: "p".into(),
                message_id: "m".into(),
                session_id: "s".into(),
                seq: 1,
                kind: data.kind().into(),
                data: data.to_value(),
                updated_ms: 0,
            };
            assert_eq!(PartData::of(&part), Some(data));
        }
    }
}
