//! Output truncation through the Truncate service, for tools that did not bound their own
//! output (`metadata.truncated` absent).

mod layer;
mod service;

pub use layer::TruncateLayer;
pub use service::TruncateOutput;
