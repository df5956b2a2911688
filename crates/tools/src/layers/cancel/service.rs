use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::BoxFuture;
use tower_service::Service;

use crate::contract::ToolError;
use crate::layers::CallCx;

/// See [`CancelLayer`](super::CancelLayer).
#[derive(Debug, Clone)]
pub struct Cancel<S> {
    inner: S,
    grace: Duration,
}

impl<S> Cancel<S> {
    pub fn new(inner: S, grace: Duration) -> Self {
        Self { inner, grace }
    }
}

impl<S, R> Service<R> for Cancel<S>
where
    S: Service<R, Error = ToolError>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
    R: CallCx,
{
    type Response = S::Response;
    type Error = ToolError;
    type Future = BoxFuture<'static, Result<S::Response, ToolError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ToolError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: R) -> Self::Future {
        let abort = req.cx().abort.clone();
        let grace = self.grace;
        let fut = self.inner.call(req);
        Box::pin(async move {
            tokio::pin!(fut);
            tokio::select! {
                result = &mut fut => return result,
                () = abort.cancelled() => {}
            }
            // Cancelled: the tool may still finish with a result of its own.
            match tokio::time::timeout(grace, fut).await {
                Ok(result) => result,
                Err(_) => Err(ToolError::Cancelled),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use tokio_util::sync::CancellationToken;
    use tower::{Layer, ServiceExt, service_fn};

    use super::super::CancelLayer;
    use super::*;
    use crate::contract::{ToolCall, ToolCx, ToolResult};

    fn call(abort: &CancellationToken) -> ToolCall {
        ToolCall {
            input: "{}".into(),
            cx: ToolCx::builder("ses").abort(abort.clone()).build(),
        }
    }

    #[tokio::test]
    async fn a_tool_that_ignores_the_abort_is_dropped_after_the_grace() {
        let svc =
            CancelLayer::new(Duration::from_millis(50)).layer(service_fn(|_c: ToolCall| async {
                std::future::pending::<Result<ToolResult, ToolError>>().await
            }));
        let abort = CancellationToken::new();
        let stop = abort.clone();
        tokio::spawn(async move { stop.cancel() });
        let started = Instant::now();
        let r = tokio::time::timeout(Duration::from_secs(5), svc.oneshot(call(&abort))).await;
        assert!(matches!(r, Ok(Err(ToolError::Cancelled))), "{r:?}");
        assert!(started.elapsed() >= Duration::from_millis(50));
    }

    #[tokio::test]
    async fn a_tool_that_reacts_to_the_abort_keeps_its_own_result() {
        let svc =
            CancelLayer::new(Duration::from_secs(5)).layer(service_fn(|c: ToolCall| async move {
                c.cx.abort.cancelled().await;
                Ok::<_, ToolError>(ToolResult::new("t", "partial output, then stopped"))
            }));
        let abort = CancellationToken::new();
        let stop = abort.clone();
        tokio::spawn(async move { stop.cancel() });
        let r = svc.oneshot(call(&abort)).await.unwrap();
        assert_eq!(r.output, "partial output, then stopped");
    }

    #[tokio::test]
    async fn an_uncancelled_call_passes_through() {
        let svc =
            CancelLayer::new(Duration::from_millis(1)).layer(service_fn(|_c: ToolCall| async {
                Ok::<_, ToolError>(ToolResult::new("t", "done"))
            }));
        let r = svc.oneshot(call(&CancellationToken::new())).await.unwrap();
        assert_eq!(r.output, "done");
    }
}
