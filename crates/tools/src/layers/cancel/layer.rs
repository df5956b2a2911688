use std::time::Duration;

use tower_layer::Layer;

use super::service::Cancel;

/// See the [module docs](super).
#[derive(Debug, Clone, Copy)]
pub struct CancelLayer {
    grace: Duration,
}

impl CancelLayer {
    pub fn new(grace: Duration) -> Self {
        Self { grace }
    }
}

impl<S> Layer<S> for CancelLayer {
    type Service = Cancel<S>;

    fn layer(&self, inner: S) -> Cancel<S> {
        Cancel::new(inner, self.grace)
    }
}
