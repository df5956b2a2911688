//! The bash scan (tree-sitter) and the arity table: any command line scans without a panic,
//! every always-pattern ends in ` *`, and an arity prefix is a prefix of its tokens. The
//! read-only classifier never calls a line read-only once a writing command runs before it.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use strata_tools::bash::arity::arity_prefix;
use strata_tools::bash::scan::{ProjectView, is_read_only, scan};

struct Project;

impl ProjectView for Project {
    fn is_inside(&self, path: &Path) -> bool {
        path.starts_with("/project")
    }
    fn is_dir(&self, _: &Path) -> bool {
        false
    }
    fn home(&self) -> Option<PathBuf> {
        Some(PathBuf::from("/home/user"))
    }
}

fuzz_target!(|data: &[u8]| {
    let command = String::from_utf8_lossy(data);
    let found = scan(&command, Path::new("/project"), &Project);
    for always in &found.always {
        assert!(always.ends_with(" *") || always == "*", "{always:?}");
    }
    let tokens: Vec<&str> = command.split_whitespace().collect();
    let prefix = arity_prefix(&tokens);
    assert!(prefix.len() <= tokens.len());
    assert_eq!(prefix, &tokens[..prefix.len()]);
    let _ = is_read_only(&command);
    let prefixed = format!("rm x; {command}");
    assert!(!is_read_only(&prefixed), "{prefixed:?}");
});
