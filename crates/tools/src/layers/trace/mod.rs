//! The `Tool.execute` span around every call.

mod layer;
mod service;

pub use layer::TraceLayer;
pub use service::Trace;
