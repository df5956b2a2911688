//! The `Service` trait: what every capability in the graph implements.

/// Which part of the process a node lives in.
///
/// Global nodes are built once per process; instance nodes once per project directory, on top
/// of the global context. A global node may not depend on an instance service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    Global,
    Instance,
}

impl std::fmt::Display for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Tier::Global => "global",
            Tier::Instance => "instance",
        })
    }
}

/// A capability held in a [`Context`](crate::Context).
///
/// Services are cheap-to-clone handles (usually an `Arc<dyn Trait>` in a newtype). `KEY` is a
/// stable, human-readable name used in every error message about the service.
pub trait Service: Clone + Send + Sync + 'static {
    const KEY: &'static str;
}
