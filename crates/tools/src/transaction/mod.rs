//! The `transaction` tool: several edits applied as one, with an optional check command; a
//! failed write or a failed check puts every edited file back byte for byte (spec §20).

mod apply;
mod plan;
mod report;
mod tool;

pub use tool::{Transaction, TransactionParams};
