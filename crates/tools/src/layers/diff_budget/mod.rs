//! The diff budget (`limits.diff`): after each successful file-changing call (the tools that
//! ask `edit`), the session's changes to the project are summed against what each file held
//! when the session first changed it; a call that goes over is undone byte for byte and fails
//! with a message naming the budget and the total. State lives in the DiffBudget service; the
//! filesystem journal tells the layer what the call changed.

mod layer;
mod service;

pub use layer::DiffBudgetLayer;
pub use service::DiffBudgetCheck;
