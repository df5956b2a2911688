//! A diagnostic as language servers publish it (`textDocument/publishDiagnostics`), kept in the
//! protocol's shape so it can be shown to front-ends as is.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A zero-based position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

/// One problem a server found in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub range: Range,
    /// 1 error, 2 warning, 3 information, 4 hint; servers may leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<u8>,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Value>,
}

pub const ERROR: u8 = 1;

impl Diagnostic {
    pub fn is_error(&self) -> bool {
        self.severity == Some(ERROR)
    }
}

/// The file and diagnostics of a `publishDiagnostics` notification's params; `None` when the
/// URI is not a file URI or the params do not parse.
pub fn from_publish(params: &Value) -> Option<(PathBuf, Vec<Diagnostic>)> {
    let uri = params.get("uri")?.as_str()?;
    let path = url::Url::parse(uri).ok()?.to_file_path().ok()?;
    let list = params.get("diagnostics")?.as_array()?;
    // One malformed entry does not hide the others.
    let diagnostics = list
        .iter()
        .filter_map(|d| serde_json::from_value(d.clone()).ok())
        .collect();
    Some((path, diagnostics))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_publish_gives_the_path_and_every_readable_diagnostic() {
        let (path, diags) = from_publish(&json!({
            "uri": "file:///p/my%20dir/a.c",
            "version": 3,
            "diagnostics": [
                {"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 9}},
                 "severity": 1, "message": "use of undeclared identifier 'x'", "source": "clang", "code": "undeclared_var_use"},
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                 "message": "no severity"},
                {"message": "no range"},
            ],
        }))
        .unwrap();
        assert_eq!(path, PathBuf::from("/p/my dir/a.c"));
        assert_eq!(diags.len(), 2);
        assert!(diags[0].is_error() && !diags[1].is_error());
        assert_eq!(
            diags[0].range.start,
            Position {
                line: 1,
                character: 4
            }
        );
        let back = serde_json::to_value(&diags[1]).unwrap();
        assert_eq!(back.get("severity"), None, "absent fields stay absent");
        assert!(from_publish(&json!({"uri": "untitled:1", "diagnostics": []})).is_none());
    }
}
