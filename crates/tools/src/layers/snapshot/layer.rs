use tower_layer::Layer;

use super::service::{MarkSnapshot, Undoable};

/// See the [module docs](super). `None` (a read-only tool) passes calls straight through; so
/// does a call whose parameters the function calls read-only.
#[derive(Debug)]
pub struct SnapshotLayer<P> {
    marker: Undoable<P>,
}

impl<P> Clone for SnapshotLayer<P> {
    fn clone(&self) -> Self {
        Self {
            marker: self.marker.clone(),
        }
    }
}

impl<P> SnapshotLayer<P> {
    /// `marker` says where undo points go and, from a call's parameters, whether the call may
    /// change files.
    pub fn new(marker: Undoable<P>) -> Self {
        Self { marker }
    }
}

impl<S, P> Layer<S> for SnapshotLayer<P> {
    type Service = MarkSnapshot<S, P>;

    fn layer(&self, inner: S) -> MarkSnapshot<S, P> {
        MarkSnapshot::new(inner, self.marker.clone())
    }
}
