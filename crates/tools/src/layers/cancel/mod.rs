//! Cancellation for every tool: when the call's `abort` token fires, the tool gets a short grace
//! to finish with its own result (`bash` reports what was printed and why it stopped); a tool
//! that does not react in time is dropped and the call ends as `Cancelled`.

mod layer;
mod service;

pub use layer::CancelLayer;
pub use service::Cancel;

use std::time::Duration;

/// How long a cancelled tool may take to wrap up: enough for `bash` to stop a process group
/// (SIGTERM, then SIGKILL after 3 s) and drain its pipes.
pub const GRACE: Duration = Duration::from_secs(6);
