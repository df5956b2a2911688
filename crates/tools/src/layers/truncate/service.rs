use serde_json::Value;
use strata_services::truncate::{Direction, Truncate, TruncateOptions};
use tower_service::Service;

use crate::contract::{ToolError, ToolResult};
use crate::layers::CallCx;

/// See [`TruncateLayer`](super::TruncateLayer).
#[derive(Debug, Clone)]
pub struct TruncateOutput<S> {
    inner: S,
    truncate: Truncate,
    max_lines: Option<usize>,
    max_bytes: Option<usize>,
}

impl<S> TruncateOutput<S> {
    pub fn new(
        inner: S,
        truncate: Truncate,
        max_lines: Option<usize>,
        max_bytes: Option<usize>,
    ) -> Self {
        Self {
            inner,
            truncate,
            max_lines,
            max_bytes,
        }
    }
}

impl<S, R> Service<R> for TruncateOutput<S>
where
    S: Service<R, Response = ToolResult, Error = ToolError>,
    S::Future: Send + 'static,
    R: CallCx,
{
    crate::layers::tool_result_service!();

    fn call(&mut self, req: R) -> Self::Future {
        let opts = TruncateOptions {
            max_lines: self.max_lines,
            max_bytes: self.max_bytes,
            direction: Direction::Head,
            agent_may_task: req.cx().agent_may_task,
        };
        let truncate = self.truncate.clone();
        let fut = self.inner.call(req);
        Box::pin(async move {
            let mut result = fut.await?;
            if result.reports_truncation() {
                return Ok(result);
            }
            let text = std::mem::take(&mut result.output);
            // Saving a large output is blocking file IO: keep it off the async workers.
            let cut = tokio::task::spawn_blocking(move || truncate.output(&text, opts))
                .await
                .map_err(|e| ToolError::fatal(format!("output truncation stopped: {e}")))?
                .map_err(|e| {
                    ToolError::fatal(format!("could not save the full tool output: {e}"))
                })?;
            result.output = cut.content;
            result
                .metadata
                .insert("truncated".into(), Value::Bool(cut.truncated));
            if let Some(path) = cut.output_path {
                result.metadata.insert(
                    "outputPath".into(),
                    Value::String(path.to_string_lossy().into_owned()),
                );
            }
            Ok(result)
        })
    }
}
