use std::task::{Context, Poll};

use futures::future::BoxFuture;
use tower_service::Service;
use tracing::Instrument;

use crate::layers::CallCx;

/// See [`TraceLayer`](super::TraceLayer).
#[derive(Debug, Clone)]
pub struct Trace<S> {
    inner: S,
    tool: &'static str,
}

impl<S> Trace<S> {
    pub fn new(inner: S, tool: &'static str) -> Self {
        Self { inner, tool }
    }
}

impl<S, R> Service<R> for Trace<S>
where
    S: Service<R>,
    S::Future: Send + 'static,
    R: CallCx,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: R) -> Self::Future {
        let tcx = req.cx();
        let span = tracing::info_span!(
            "Tool.execute",
            tool.name = self.tool,
            session.id = %tcx.session_id,
            message.id = %tcx.message_id,
            tool.call_id = tracing::field::Empty,
        );
        if !tcx.call_id.is_empty() {
            span.record("tool.call_id", tcx.call_id.as_str());
        }
        let fut = {
            let _enter = span.enter();
            self.inner.call(req)
        };
        Box::pin(fut.instrument(span))
    }
}
