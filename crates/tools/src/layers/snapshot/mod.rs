//! Undo points: before a tool that may change files runs, the project is captured once for
//! the call's step (session + assistant message) through the Snapshots service, so the
//! server can later revert the session to that point. Read-only tools pass straight through,
//! so do read-only calls of other tools (`Tool::effects_for`, e.g. `bash` running `ls`), and so
//! does everything while snapshots are off. A capture that fails is logged and the
//! tool still runs: losing an undo point must not lose the user's work.

mod layer;
mod service;

pub use layer::SnapshotLayer;
pub use service::{MarkSnapshot, Marker, Undoable};
