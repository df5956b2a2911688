//! Helpers shared by several tools: the external-directory check, file writes and their
//! diagnostics, and directory walks.

pub mod bom;
pub mod diagnostics;
pub mod external;
pub mod filewrite;
pub mod walk;
