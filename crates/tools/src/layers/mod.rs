//! Tower layers wrapped around every tool, outermost first: tracing, argument decoding,
//! undo points (snapshots), cancellation, output truncation. Each is its own small module.

pub mod cancel;
pub mod decode;
pub mod snapshot;
pub mod trace;
pub mod truncate;

use crate::contract::{Decoded, ToolCall, ToolCx};

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
