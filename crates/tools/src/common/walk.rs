//! The project walk shared by `glob` and `grep`: ripgrep's `ignore` crate with its defaults
//! (spec §5, §6, §18 b). It reads directories itself, as ripgrep does: this is the one place a
//! tool's file access does not go through FsUtil, because the walker's ignore logic is the point.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use ignore::overrides::{Override, OverrideBuilder};
use ignore::{WalkBuilder, WalkState};

/// How a walk treats hidden files and which globs it applies.
pub(crate) struct WalkSpec<'a> {
    pub root: &'a Path,
    pub hidden: bool,
    pub glob: Option<&'a str>,
}

/// An invalid glob, with the parser's reason.
#[derive(Debug, thiserror::Error)]
#[error("the glob `{glob}` is not valid: {reason}")]
pub struct BadGlob {
    pub glob: String,
    pub reason: String,
}

/// The model wrote the glob, so it can fix it.
impl From<BadGlob> for crate::contract::ToolError {
    fn from(e: BadGlob) -> Self {
        crate::contract::ToolError::model(e.to_string())
    }
}

fn overrides(root: &Path, glob: Option<&str>) -> Result<Override, BadGlob> {
    let mut b = OverrideBuilder::new(root);
    let mut add = |g: &str| {
        b.add(g).map(|_| ()).map_err(|e| BadGlob {
            glob: g.to_string(),
            reason: e.to_string(),
        })
    };
    if let Some(g) = glob {
        add(g)?;
    }
    add("!.git")?;
    add("!**/.git/**")?;
    b.build().map_err(|e| BadGlob {
        glob: glob.unwrap_or_default().to_string(),
        reason: e.to_string(),
    })
}

/// Walks files under `spec.root` in parallel, calling `visit` on each; returns what it kept.
///
/// A glob may name a hidden or ignored *file*, but it never opens a hidden or ignored
/// *directory*: a broad glob such as `*` would match directory names too, so the directories a
/// plain walk (no glob) would enter are listed first and the glob walk stays inside them.
pub(crate) fn walk_files<T: Send>(
    spec: &WalkSpec<'_>,
    visit: impl Fn(&Path, SystemTime) -> Option<T> + Sync,
) -> Result<Vec<T>, BadGlob> {
    let ov = overrides(spec.root, spec.glob)?;
    let mut builder = WalkBuilder::new(spec.root);
    builder.hidden(!spec.hidden).overrides(ov).threads(2);
    // Without a glob nothing can whitelist a directory, so no pre-walk is needed.
    if spec.glob.is_some() {
        let dirs = Arc::new(entered_dirs(spec)?);
        builder.filter_entry(move |e| {
            !e.file_type().is_some_and(|t| t.is_dir()) || dirs.contains(e.path())
        });
    }
    let out = Mutex::new(Vec::new());
    let walker = builder.build_parallel();
    walker.run(|| {
        Box::new(|entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let mtime = entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            if let Some(v) = visit(entry.path(), mtime) {
                out.lock().unwrap_or_else(|p| p.into_inner()).push(v);
            }
            WalkState::Continue
        })
    });
    Ok(out.into_inner().unwrap_or_else(|p| p.into_inner()))
}

/// The directories a walk without the glob enters (hidden and ignore rules applied).
fn entered_dirs(spec: &WalkSpec<'_>) -> Result<HashSet<PathBuf>, BadGlob> {
    let ov = overrides(spec.root, None)?;
    let dirs = Mutex::new(HashSet::new());
    WalkBuilder::new(spec.root)
        .hidden(!spec.hidden)
        .overrides(ov)
        .threads(2)
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                if let Ok(e) = entry
                    && e.file_type().is_some_and(|t| t.is_dir())
                {
                    dirs.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(e.path().to_path_buf());
                }
                WalkState::Continue
            })
        });
    Ok(dirs.into_inner().unwrap_or_else(|p| p.into_inner()))
}

/// Newest first, then by path.
pub(crate) fn sort_newest_first<T>(items: &mut [T], key: impl Fn(&T) -> (&SystemTime, &PathBuf)) {
    items.sort_by(|a, b| {
        let (ta, pa) = key(a);
        let (tb, pb) = key(b);
        tb.cmp(ta).then_with(|| pa.cmp(pb))
    });
}
