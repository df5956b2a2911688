//! The tool itself: ends one shell of the BackgroundShells registry.

use schemars::JsonSchema;
use serde::Deserialize;
use strata_services::background::BackgroundShells;

use crate::contract::{Effects, Tool, ToolCx, ToolError, ToolResult};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashKillParams {
    /// The id of the background shell to end (like `bg_1`).
    pub shell_id: String,
}

#[derive(Debug)]
pub struct BashKill {
    shells: BackgroundShells,
}

impl Tool for BashKill {
    const ID: &'static str = "bash_kill";
    // The shells are bash's: the rules that hide `bash` hide this too.
    const PERMISSION: &'static str = "bash";
    const EFFECTS: Effects = Effects {
        read_only: false,
        destructive: false,
        concurrency_safe: false,
        open_world: false,
    };
    type Params = BashKillParams;
    type Deps = (BackgroundShells,);

    fn init((shells,): Self::Deps) -> Self {
        BashKill { shells }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: BashKillParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        let was_running = self
            .shells
            .list(&cx.session_id)
            .iter()
            .any(|s| s.id == p.shell_id && !s.status.ended());
        let info = self
            .shells
            .kill(&cx.session_id, &p.shell_id)
            .await
            .map_err(|e| ToolError::model(e.to_string()))?;
        let output = if was_running {
            format!(
                "Background shell {} was ended, with every process it started.",
                info.id
            )
        } else {
            format!(
                "Background shell {} had already ended ({}); nothing was left to stop.",
                info.id,
                info.status.describe()
            )
        };
        Ok(ToolResult::new(format!("kill {}", info.id), output)
            .meta("shellId", info.id.as_str())
            .meta("status", info.status.name())
            .meta("exit", info.status.exit_code()))
    }
}
