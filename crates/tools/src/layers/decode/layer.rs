use std::marker::PhantomData;

use tower_layer::Layer;

use super::service::Decode;

/// Turns a service of `Decoded<P>` into a service of raw [`ToolCall`](crate::contract::ToolCall)s.
#[derive(Debug)]
pub struct DecodeLayer<P> {
    tool: &'static str,
    _params: PhantomData<fn() -> P>,
}

impl<P> DecodeLayer<P> {
    pub fn new(tool: &'static str) -> Self {
        Self {
            tool,
            _params: PhantomData,
        }
    }
}

impl<P> Clone for DecodeLayer<P> {
    fn clone(&self) -> Self {
        Self::new(self.tool)
    }
}

impl<S, P> Layer<S> for DecodeLayer<P> {
    type Service = Decode<S, P>;

    fn layer(&self, inner: S) -> Decode<S, P> {
        Decode::new(inner, self.tool)
    }
}
