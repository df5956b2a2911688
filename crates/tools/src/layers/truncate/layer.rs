use strata_services::truncate::Truncate;
use tower_layer::Layer;

use super::service::TruncateOutput;

/// Limits come from config (`tool_output`), else the service's defaults.
#[derive(Debug, Clone)]
pub struct TruncateLayer {
    truncate: Truncate,
    max_lines: Option<usize>,
    max_bytes: Option<usize>,
}

impl TruncateLayer {
    pub fn new(truncate: Truncate, max_lines: Option<usize>, max_bytes: Option<usize>) -> Self {
        Self {
            truncate,
            max_lines,
            max_bytes,
        }
    }
}

impl<S> Layer<S> for TruncateLayer {
    type Service = TruncateOutput<S>;

    fn layer(&self, inner: S) -> TruncateOutput<S> {
        TruncateOutput::new(inner, self.truncate.clone(), self.max_lines, self.max_bytes)
    }
}
