//! `ToolResult`: what a finished call hands back to the model and the front-end.

use serde::Serialize;
use serde_json::{Map, Value};

/// A file handed to the model beside the text output (images, PDFs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attachment {
    #[serde(rename = "type")]
    pub kind: String,
    pub mime: String,
    /// `data:<mime>;base64,<payload>`
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

impl Attachment {
    pub fn file(mime: impl Into<String>, base64: &str, filename: Option<String>) -> Self {
        let mime = mime.into();
        Self {
            kind: "file".into(),
            url: format!("data:{mime};base64,{base64}"),
            mime,
            filename,
        }
    }

    /// A file attachment of raw `bytes` (base64-encoded into the data URL).
    pub fn from_bytes(mime: impl Into<String>, bytes: &[u8], filename: Option<String>) -> Self {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        Self::file(mime, &b64, filename)
    }
}

/// `{ title, output, metadata, attachments }`: `output` is what the model sees.
/// A final result always has a boolean `metadata.truncated` (set by the tool or the wrapper).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResult {
    pub title: String,
    pub output: String,
    pub metadata: Map<String, Value>,
    pub attachments: Vec<Attachment>,
}

impl ToolResult {
    pub fn new(title: impl Into<String>, output: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            output: output.into(),
            metadata: Map::new(),
            attachments: Vec::new(),
        }
    }

    /// Adds one metadata key.
    pub fn meta(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.to_string(), value.into());
        self
    }

    pub fn attach(mut self, a: Attachment) -> Self {
        self.attachments.push(a);
        self
    }

    /// Whether the tool bounded its own output (then the truncation layer leaves it alone).
    pub fn reports_truncation(&self) -> bool {
        self.metadata
            .get("truncated")
            .is_some_and(Value::is_boolean)
    }
}
