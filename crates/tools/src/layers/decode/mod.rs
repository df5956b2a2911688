//! Argument decoding: raw JSON in, typed parameters out, once per call.
//! A failure is `InvalidArguments` naming the tool and the offending field by its path.

mod layer;
mod service;

pub use layer::DecodeLayer;
pub use service::{Decode, decode_args};
