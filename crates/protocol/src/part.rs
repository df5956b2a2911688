//! The payloads of stored parts by kind: [`TextPart`], [`ToolPart`], step
//! start (`{}`) and [`StepFinish`]; [`PartData`] reads any of them from a [`Part`].

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::message::Tokens;
use crate::store::Part;
use crate::tool::ToolPart;

/// Part kinds (`Part::kind`, the `type` of a part's view).
pub mod kinds {
    pub const TEXT: &str = "text";
    pub const TOOL: &str = "tool";
    pub const STEP_START: &str = "step-start";
    pub const STEP_FINISH: &str = "step-finish";
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepFinish {
    /// `stop`, `tool-calls`, `length`, or the provider's own word.
    #[serde(default)]
    pub reason: String,
    /// Always 0: tokens are not priced.
    #[serde(default)]
    pub cost: u64,
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
        }
    }

    /// The data to store.
    pub fn to_value(&self) -> Value {
        let value = match self {
            PartData::Text(p) => serde_json::to_value(p),
            PartData::Tool(p) => serde_json::to_value(p),
            PartData::StepStart => Ok(json!({})),
            PartData::StepFinish(p) => serde_json::to_value(p),
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
            cost: 0,
            tokens: Tokens::new(3, 4),
        };
        assert_eq!(
            text(&finish.into()),
            r#"{"reason":"stop","cost":0,"tokens":{"input":3,"output":4,"reasoning":0,"cache":{"read":0,"write":0}}}"#
        );
    }
}
