//! DiffBudget: the optional cap on how much one session may change the project
//! (`limits.diff: { lines, files }` in strata.json; off when absent).
//!
//! The service keeps the state: the limits, and for each session the content every project file
//! had when the session first changed it. The tools floor's diff-budget layer does the counting
//! and the undoing after each file-changing call.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use strata_graph::{BoxError, Node, Scope, Tier};

use crate::config::Config;
use crate::fs::journal::Before;
use crate::instance::InstanceInfo;

/// `limits.diff`: the most changed lines (added + removed) and changed files a session may
/// leave in the project. A missing field is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffLimits {
    pub lines: Option<u64>,
    pub files: Option<u64>,
}

impl DiffLimits {
    /// Whether `lines` changed lines in `files` files go over these limits.
    pub fn exceeded_by(&self, lines: u64, files: u64) -> bool {
        self.lines.is_some_and(|l| lines > l) || self.files.is_some_and(|f| files > f)
    }
}

impl std::fmt::Display for DiffLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lines = self
            .lines
            .map_or("no limit".into(), |l| format!("{l} lines"));
        let files = self
            .files
            .map_or("no limit".into(), |n| format!("{n} files"));
        write!(f, "{lines}, {files}")
    }
}

/// `limits.diff` is not an object of non-negative integers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "in strata.json, `{field}` must be {expected}; fix it or remove `limits.diff` to turn the \
     diff budget off"
)]
pub struct DiffLimitsError {
    pub field: String,
    pub expected: &'static str,
}

/// Reads `limits.diff` from the merged config document; `None` when it is absent.
pub fn parse_limits(raw: &Value) -> Result<Option<DiffLimits>, DiffLimitsError> {
    let Some(diff) = raw.get("limits").and_then(|l| l.get("diff")) else {
        return Ok(None);
    };
    let Some(map) = diff.as_object() else {
        return Err(DiffLimitsError {
            field: "limits.diff".into(),
            expected: "an object like { \"lines\": 400, \"files\": 10 }",
        });
    };
    let field = |name: &str| -> Result<Option<u64>, DiffLimitsError> {
        match map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| DiffLimitsError {
                field: format!("limits.diff.{name}"),
                expected: "a non-negative integer",
            }),
        }
    };
    Ok(Some(DiffLimits {
        lines: field("lines")?,
        files: field("files")?,
    }))
}

/// Handle to the budget and its per-session record. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct DiffBudget {
    limits: Option<DiffLimits>,
    /// Files under this directory count as the project.
    root: PathBuf,
    originals: Arc<Mutex<HashMap<String, BTreeMap<PathBuf, Before>>>>,
}

impl strata_graph::Service for DiffBudget {
    const KEY: &'static str = "DiffBudget";
}

impl DiffBudget {
    pub fn new(limits: Option<DiffLimits>, root: PathBuf) -> Self {
        DiffBudget {
            limits,
            root,
            originals: Arc::default(),
        }
    }

    /// The instance-tier node: the limits from config, the project's worktree as its root.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(config, info): (Config, InstanceInfo), _scope: Scope| async move {
                let limits = parse_limits(&config.data().raw)?;
                Ok::<_, BoxError>(DiffBudget::new(limits, info.worktree.clone()))
            },
        )
    }

    /// `None` when the budget is off.
    pub fn limits(&self) -> Option<DiffLimits> {
        self.limits
    }

    /// Whether `path` is part of the project the budget watches.
    pub fn in_project(&self, path: &Path) -> bool {
        crate::fs::contains(&self.root, path)
    }

    /// Records what `path` held before `session_id` first changed it; later calls for the same
    /// path keep the first record.
    pub fn note_original(&self, session_id: &str, path: &Path, before: &Before) {
        self.lock()
            .entry(session_id.to_string())
            .or_default()
            .entry(path.to_path_buf())
            .or_insert_with(|| before.clone());
    }

    /// Every file the session changed, with what it held before the first change.
    pub fn originals(&self, session_id: &str) -> Vec<(PathBuf, Before)> {
        self.lock()
            .get(session_id)
            .map(|m| m.iter().map(|(p, b)| (p.clone(), b.clone())).collect())
            .unwrap_or_default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, BTreeMap<PathBuf, Before>>> {
        // Each statement leaves the map whole, so a poisoned lock is still usable.
        self.originals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn limits_parse_from_config_and_are_off_when_absent() {
        assert_eq!(parse_limits(&json!({})), Ok(None));
        assert_eq!(
            parse_limits(&json!({"limits": {"diff": {"lines": 10}}})),
            Ok(Some(DiffLimits {
                lines: Some(10),
                files: None
            }))
        );
        let err = parse_limits(&json!({"limits": {"diff": {"files": "two"}}})).unwrap_err();
        assert!(err.to_string().contains("`limits.diff.files`"), "{err}");
        let limits = DiffLimits {
            lines: Some(5),
            files: Some(1),
        };
        assert!(!limits.exceeded_by(5, 1));
        assert!(limits.exceeded_by(6, 1));
        assert!(limits.exceeded_by(0, 2));
    }

    #[test]
    fn the_first_original_of_a_path_stays() {
        let budget = DiffBudget::new(None, PathBuf::from("/p"));
        let path = Path::new("/p/a");
        budget.note_original("s", path, &Before::Absent);
        let x = Before::File {
            bytes: b"x".to_vec(),
            mode: 0o644,
        };
        budget.note_original("s", path, &x);
        assert_eq!(
            budget.originals("s"),
            vec![(path.to_path_buf(), Before::Absent)]
        );
        assert!(budget.originals("other").is_empty());
        assert!(budget.in_project(path));
        assert!(!budget.in_project(Path::new("/q/a")));
    }
}
