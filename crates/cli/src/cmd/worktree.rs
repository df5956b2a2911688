//! `strata worktree list | remove NAME`, and `--worktree [NAME]` for `strata run` and the UI:
//! the git worktrees Strata makes under the data directory (see `docs/worktrees.md`).

use std::path::{Path, PathBuf};

use serde_json::json;
use strata_services::flags::RuntimeFlags;
use strata_services::process::ChildProcessSpawner;
use strata_services::worktree::{BRANCH_PREFIX, Worktrees};

use super::instance::project_dir;
use crate::args::{Format, WorktreeCommand};

fn worktrees() -> Worktrees {
    let flags = RuntimeFlags::from_env();
    Worktrees::new(ChildProcessSpawner::live(), &flags.data_dir)
}

pub(super) async fn worktree(cmd: WorktreeCommand) -> u8 {
    let result = match cmd {
        WorktreeCommand::List { dir, format } => list(dir, format).await,
        WorktreeCommand::Remove { name, force, dir } => remove(dir, &name, force).await,
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    }
}

async fn list(dir: Option<PathBuf>, format: Format) -> Result<(), String> {
    let dir = project_dir(dir)?;
    let all = worktrees().list(&dir).await.map_err(|e| e.to_string())?;
    if format == Format::Json {
        let items: Vec<_> = all.iter().map(|w| json!(w)).collect();
        println!("{}", serde_json::Value::Array(items));
        return Ok(());
    }
    if all.is_empty() {
        eprintln!(
            "strata: no Strata worktrees for this repository; `strata run --worktree` makes one"
        );
    }
    for w in &all {
        let state = match (w.missing, w.changed.len()) {
            (true, _) => "folder missing".to_string(),
            (false, 0) => "clean".to_string(),
            (false, n) => format!("{n} changed file(s)"),
        };
        println!(
            "{}  {}  {state}  {}",
            w.worktree.name,
            w.worktree.branch,
            w.worktree.path.display()
        );
    }
    Ok(())
}

async fn remove(dir: Option<PathBuf>, name: &str, force: bool) -> Result<(), String> {
    let dir = project_dir(dir)?;
    let removed = worktrees()
        .remove(&dir, name, force)
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "removed the worktree {} ({})",
        removed.worktree.name,
        removed.worktree.path.display()
    );
    match removed.branch_kept {
        Some(why) => eprintln!("strata: {why}"),
        None => println!("deleted the branch {}", removed.worktree.branch),
    }
    Ok(())
}

/// `--worktree [NAME]`: makes (or reuses) the worktree for the repository of `dir` and
/// gives the folder to run in: `dir`'s place inside the worktree. An empty name asks for a
/// generated one.
pub(super) async fn enter(dir: &Path, name: &str) -> Result<PathBuf, String> {
    let wt = worktrees();
    let name = Some(name).filter(|n| !n.is_empty());
    let dir = std::fs::canonicalize(dir)
        .map_err(|e| format!("cannot use the directory {} ({e})", dir.display()))?;
    let repo = wt.repo(&dir).await.map_err(|e| e.to_string())?;
    let created = wt
        .create(&dir, name, true)
        .await
        .map_err(|e| e.to_string())?;
    let w = &created.worktree;
    let how = if created.reused { "reusing" } else { "made" };
    eprintln!(
        "strata: {how} the worktree {} at {} (branch {})",
        w.name,
        w.path.display(),
        w.branch
    );
    let inner = dir.strip_prefix(&repo.toplevel).unwrap_or(Path::new(""));
    // `join("")` would add a trailing slash to the session's directory.
    let target = Some(inner)
        .filter(|i| !i.as_os_str().is_empty())
        .map(|i| w.path.join(i))
        .filter(|d| d.is_dir());
    Ok(target.unwrap_or_else(|| w.path.clone()))
}

/// The `session show` line naming the worktree a session ran in, if it ran in one.
pub(super) fn describe(directory: &Path) -> Option<String> {
    let (name, path) = worktrees().containing(directory)?;
    let gone = if path.is_dir() { "" } else { ", since removed" };
    Some(format!(
        "worktree {name} (branch {BRANCH_PREFIX}{name}) at {}{gone}",
        path.display()
    ))
}
