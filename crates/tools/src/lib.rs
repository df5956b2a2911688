//! Strata's floor 3: the tool contract, the tower layers around every tool, and the tools.

pub mod apply_patch;
pub mod bash;
pub mod diff;
pub mod edit;
