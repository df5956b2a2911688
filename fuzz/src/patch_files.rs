//! apply_patch on real files, all or nothing: patches built from fuzz bytes run through the
//! real tool (its wrapper, verification and writer) on a small tree in a temporary project,
//! and when the tool fails, every file and folder of the tree is byte for byte what it was.
//!
//! The patch's paths come from a fixed list inside the tree (the tool would ask before
//! writing outside the project, and the test instance allows every ask), so only the
//! sections, their order and their lines are fuzzed. The tree holds the cases that fail at
//! write time rather than at verification: a file where a folder must be created and a file
//! without write permission.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::json;
use strata_testkit::TestInstance;

use crate::reducer::Bytes;

/// The tree every run starts from, under the project's `w/` (`None`: a folder).
const TREE: [(&str, Option<&str>); 6] = [
    ("a.txt", Some("alpha\nbeta\ngamma\n")),
    ("b.txt", Some("one\ntwo\n")),
    ("d/c.txt", Some("x\ny\n")),
    ("blocker", Some("file\n")),
    ("ro.txt", Some("read\nonly\n")),
    ("dir", None),
];
const PATHS: [&str; 10] = [
    "a.txt",
    "b.txt",
    "d/c.txt",
    "blocker",
    "blocker/x.txt",
    "ro.txt",
    "dir",
    "new.txt",
    "d/new/n.txt",
    "d",
];
const LINES: [&str; 12] = [
    "alpha", "beta", "gamma", "one", "two", "x", "y", "file", "read", "", " beta", "new",
];

/// A patch from the bytes: up to four sections of any kind on paths of [`PATHS`].
pub fn patch(b: &mut Bytes<'_>) -> String {
    let mut out = vec!["*** Begin Patch".to_string()];
    for _ in 0..b.byte() % 4 + 1 {
        let path = format!("w/{}", b.pick(&PATHS));
        match b.byte() % 4 {
            0 => {
                out.push(format!("*** Add File: {path}"));
                for _ in 0..b.byte() % 3 {
                    out.push(format!("+{}", b.pick(&LINES)));
                }
            }
            1 => out.push(format!("*** Delete File: {path}")),
            kind => {
                out.push(format!("*** Update File: {path}"));
                if kind == 3 {
                    out.push(format!("*** Move to: w/{}", b.pick(&PATHS)));
                }
                for _ in 0..b.byte() % 4 + 1 {
                    let prefix = b.pick(&[" ", "-", "+", "@@ ", "@@"]);
                    out.push(format!("{prefix}{}", b.pick(&LINES)));
                }
                if b.byte() % 5 == 0 {
                    out.push("*** End of File".into());
                }
            }
        }
    }
    out.push("*** End Patch".into());
    out.join("\n")
}

/// Every entry under `dir`, by relative path: a file's bytes and mode, or `None` for a folder.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Option<(Vec<u8>, u32)>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let rel = path
                .strip_prefix(dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            if path.is_dir() {
                stack.push(path);
                out.insert(rel, None);
            } else {
                let mode = e.metadata().map_or(0, |m| m.permissions().mode());
                out.insert(rel, Some((std::fs::read(&path).unwrap_or_default(), mode)));
            }
        }
    }
    out
}

/// Puts the tree back as [`TREE`] says.
fn reset(root: &Path) {
    let _ = std::fs::remove_dir_all(root);
    for (rel, content) in TREE {
        let path = root.join(rel);
        match content {
            None => std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("{rel}: {e}")),
            Some(text) => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{rel}: {e}"));
                }
                std::fs::write(&path, text).unwrap_or_else(|e| panic!("{rel}: {e}"));
            }
        }
    }
    let ro = std::fs::Permissions::from_mode(0o444);
    std::fs::set_permissions(root.join("ro.txt"), ro).unwrap_or_else(|e| panic!("ro.txt: {e}"));
}

struct Fixture {
    runtime: tokio::runtime::Runtime,
    instance: TestInstance,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let runtime = crate::core::runtime();
        let instance = runtime.block_on(TestInstance::builder().build());
        Fixture { runtime, instance }
    })
}

/// Runs the tool on the patch the bytes build; returns whether it succeeded.
pub fn check(data: &[u8]) -> bool {
    let f = fixture();
    let root = f.instance.path("w");
    reset(&root);
    let before = snapshot(&root);
    let text = patch(&mut Bytes::new(data));
    let result = f
        .runtime
        .block_on(f.instance.call("apply_patch", json!({"patchText": text})));
    if let Err(e) = &result {
        let after = snapshot(&root);
        assert_eq!(
            after, before,
            "the failed patch changed files ({e:?}):\n{text}"
        );
    }
    result.is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_are_built_from_the_bytes() {
        // One section, on a.txt, an add, of one line: "beta".
        let p = patch(&mut Bytes::new(&[0, 0, 0, 1, 1]));
        assert_eq!(
            p,
            "*** Begin Patch\n*** Add File: w/a.txt\n+beta\n*** End Patch"
        );
    }

    #[test]
    fn a_write_failure_after_a_good_section_leaves_the_tree() {
        // Update a.txt (" alpha"), then add blocker/x.txt, which cannot be written.
        assert!(!check(&[1, 0, 2, 0, 0, 0, 1, 4, 0, 1, 0]));
        assert!(check(&[0, 7, 0, 1, 11]));
    }
}
