//! Helpers shared by several tools: the external-directory check, file writes, their approval
//! and diagnostics, directory walks, and undoing a multi-file write.

pub(crate) mod approval;
pub(crate) mod bom;
pub(crate) mod diagnostics;
pub(crate) mod external;
pub(crate) mod filewrite;
pub(crate) mod undo;
pub(crate) mod walk;
