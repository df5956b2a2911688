//! The tools crate's integration tests, one binary (each module was once its own test file):
//! tools called through a real instance's registry and wrapper.

// Test helpers outside `#[test]` functions fail the test by panicking too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod apply_patch_basic;
mod apply_patch_match;
mod apply_patch_rollback;
mod approval_recheck;
mod bash_background;
mod bash_effects;
mod bash_escape;
mod bash_limits;
mod bash_permission;
mod bash_run;
mod bash_sandbox;
mod edit_basic;
mod edit_diagnostics;
mod edit_external;
mod edit_format;
mod edit_line_endings;
mod edit_read_first;
mod edit_support;
mod edit_wire;
mod glob_dirs;
mod glob_search;
mod grep_external;
mod grep_search;
mod invalid_tool;
mod lsp_tool;
mod question_tool;
mod read_dir;
mod read_instructions;
mod read_media;
mod read_permission;
mod read_stream_stop;
mod read_text;
mod skill_tool;
mod smoke;
mod todowrite_tool;
mod transaction;
mod webfetch;
mod webfetch_limits;
mod webfetch_support;
mod websearch;
mod wrapper_decode;
mod wrapper_external;
mod wrapper_schema;
mod wrapper_support;
mod wrapper_truncate;
mod write_basic;
