//! Helpers shared by several tools: the external-directory check and instruction files.

pub mod external;
pub mod filewrite;
pub mod walk;
