//! The project walk shared by `glob` and `grep`: ripgrep's `ignore` crate with its defaults
//! (spec §5, §6, §18 b). It reads directories itself, as ripgrep does: this is the one place a
//! tool's file access does not go through FsUtil, because the walker's ignore logic is the point.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use ignore::overrides::{Override, OverrideBuilder};
use ignore::{WalkBuilder, WalkState};

/// How a walk treats hidden files and which globs it applies.
pub struct WalkSpec<'a> {
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
pub fn walk_files<T: Send>(
    spec: &WalkSpec<'_>,
    visit: impl Fn(&Path, SystemTime) -> Option<T> + Sync,
) -> Result<Vec<T>, BadGlob> {
    let ov = overrides(spec.root, spec.glob)?;
    let out = Mutex::new(Vec::new());
    let walker = WalkBuilder::new(spec.root)
        .hidden(!spec.hidden)
        .overrides(ov)
        .threads(2)
        .build_parallel();
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

/// Newest first, then by path.
pub fn sort_newest_first<T>(items: &mut [T], key: impl Fn(&T) -> (&SystemTime, &PathBuf)) {
    items.sort_by(|a, b| {
        let (ta, pa) = key(a);
        let (tb, pb) = key(b);
        tb.cmp(ta).then_with(|| pa.cmp(pb))
    });
}
