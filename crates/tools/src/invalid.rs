//! The `invalid` tool: never advertised; the loop sends calls it cannot run here (an unknown
//! tool name) so the model gets an answer it can act on (spec §15).

use schemars::JsonSchema;
use serde::Deserialize;

use crate::contract::{Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct InvalidParams {
    pub tool: String,
    pub error: String,
}

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
        "Reports a tool call that could not be made. Never call this tool directly.".into()
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
