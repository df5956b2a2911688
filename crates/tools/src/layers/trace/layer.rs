use tower_layer::Layer;

use super::service::Trace;

/// Wraps a tool in a `Tool.execute` span with `tool.name`, `session.id`, `message.id` and, when
/// the call has one, `tool.call_id`.
#[derive(Debug, Clone)]
pub struct TraceLayer {
    tool: &'static str,
}

impl TraceLayer {
    pub fn new(tool: &'static str) -> Self {
        Self { tool }
    }
}

impl<S> Layer<S> for TraceLayer {
    type Service = Trace<S>;

    fn layer(&self, inner: S) -> Trace<S> {
        Trace::new(inner, self.tool)
    }
}
