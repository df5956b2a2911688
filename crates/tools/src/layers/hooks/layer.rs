use std::sync::Arc;

use tower_layer::Layer;

use super::binding::HookBinding;
use super::service::RunHooks;

/// See the [module docs](super). Without a binding calls pass straight through.
#[derive(Debug, Clone, Default)]
pub struct HooksLayer {
    binding: Option<Arc<HookBinding>>,
}

impl HooksLayer {
    pub fn new(binding: HookBinding) -> Self {
        Self {
            binding: Some(Arc::new(binding)),
        }
    }

    /// No hooks (tools built outside an instance).
    pub fn off() -> Self {
        Self::default()
    }
}

impl<S> Layer<S> for HooksLayer {
    type Service = RunHooks<S>;

    fn layer(&self, inner: S) -> RunHooks<S> {
        RunHooks::new(inner, self.binding.clone())
    }
}
