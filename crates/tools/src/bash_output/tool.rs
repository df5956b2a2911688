//! The tool itself: one read of the BackgroundShells registry.

use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use strata_services::background::BackgroundShells;
use strata_services::fs::to_slash;

use crate::bash::background::report;
use crate::contract::{Effects, Tool, ToolCx, ToolError, ToolResult};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashOutputParams {
    /// The id `bash` returned when it started the shell (like `bg_1`).
    pub shell_id: String,
    /// A regular expression: only the new lines that match it are returned. The lines that
    /// do not match are consumed all the same and will not be shown again.
    pub filter: Option<String>,
}

#[derive(Debug)]
pub struct BashOutput {
    shells: BackgroundShells,
}

impl Tool for BashOutput {
    const ID: &'static str = "bash_output";
    // The shells are bash's: the rules that hide `bash` hide this too.
    const PERMISSION: &'static str = "bash";
    const EFFECTS: Effects = Effects {
        read_only: true,
        destructive: false,
        concurrency_safe: true,
        open_world: false,
    };
    type Params = BashOutputParams;
    type Deps = (BackgroundShells,);

    fn init((shells,): Self::Deps) -> Self {
        BashOutput { shells }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: BashOutputParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        let filter = match p.filter.as_deref().filter(|f| !f.is_empty()) {
            Some(f) => Some(Regex::new(f).map_err(|e| {
                ToolError::model(format!(
                    "`filter` is not a valid regular expression ({e}); fix it, or leave it out \
                     to get every new line. Nothing was read."
                ))
            })?),
            None => None,
        };
        let read = self
            .shells
            .read(&cx.session_id, &p.shell_id, filter.as_ref())
            .map_err(|e| ToolError::model(e.to_string()))?;
        let output = report(&p.shell_id, read.status, &read.output, read.hint.as_deref());
        let mut result = ToolResult::new(p.shell_id.clone(), output)
            .meta("shellId", p.shell_id.as_str())
            .meta("status", read.status.name())
            .meta("exit", read.status.exit_code());
        if let Some(file) = &read.output.file {
            result = result.meta("outputPath", to_slash(file));
        }
        Ok(result)
    }
}
