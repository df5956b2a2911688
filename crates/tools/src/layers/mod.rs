//! Tower layers wrapped around every tool, outermost first: tracing, Claude Code's tool
//! hooks, argument decoding, undo points (snapshots), cancellation, output truncation, the
//! diff budget. Each is its own small module.

pub mod cancel;
pub mod decode;
pub mod diff_budget;
pub mod hooks;
pub mod snapshot;
pub mod trace;
pub mod truncate;

use crate::contract::{Decoded, ToolCall, ToolCx};

/// The part of a layer's `Service` impl that every layer directly around the tool shares: it
/// answers a tool result or a tool error as a boxed future, and is ready when the tool is.
/// Expands inside the `impl` block; the layer's field for the wrapped service is `inner`.
macro_rules! tool_result_service {
    () => {
        type Response = $crate::contract::ToolResult;
        type Error = $crate::contract::ToolError;
        type Future = ::futures::future::BoxFuture<'static, Result<Self::Response, Self::Error>>;

        fn poll_ready(
            &mut self,
            cx: &mut ::std::task::Context<'_>,
        ) -> ::std::task::Poll<Result<(), Self::Error>> {
            self.inner.poll_ready(cx)
        }
    };
}
pub(crate) use tool_result_service;

/// Gives a layer the call context of its request, whatever the request's shape.
pub trait CallCx {
    fn cx(&self) -> &ToolCx;
}

impl CallCx for ToolCall {
    fn cx(&self) -> &ToolCx {
        &self.cx
    }
}

impl<P> CallCx for Decoded<P> {
    fn cx(&self) -> &ToolCx {
        &self.cx
    }
}
