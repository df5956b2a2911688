//! The `invalid` tool itself.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::contract::{Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct InvalidParams {
    pub tool: String,
    pub error: String,
}

#[derive(Debug)]
pub struct Invalid;

impl Tool for Invalid {
    const ID: &'static str = "invalid";
    const VISIBILITY: Visibility = Visibility::Never;
    const EFFECTS: Effects = Effects::READ_ONLY;
    type Params = InvalidParams;
    type Deps = ();

    fn init((): ()) -> Self {
        Invalid
    }

    fn description(&self) -> String {
        // One line, without the file's final newline.
        include_str!("description.md").trim_end().to_string()
    }

    async fn execute(&self, p: InvalidParams, _cx: ToolCx) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::new(
            "Invalid tool call",
            format!(
                "The call to `{}` could not be made with the arguments given: {}",
                p.tool, p.error
            ),
        ))
    }
}
