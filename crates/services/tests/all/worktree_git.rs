//! The Worktrees service on real git: making, listing, removing and resetting the worktrees
//! Strata keeps under the data directory, and what it refuses.

use std::path::{Path, PathBuf};
use std::process::Command;

use strata_services::process::ChildProcessSpawner;
use strata_services::worktree::{WorktreeError, Worktrees};

struct Repo {
    _root: tempfile::TempDir,
    repo: PathBuf,
    data: PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn repo() -> Repo {
    let root = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(root.path()).unwrap();
    let repo = base.join("repo");
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::write(repo.join("a.txt"), "one\n").unwrap();
    std::fs::write(repo.join("sub/b.txt"), "two\n").unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    Repo {
        _root: root,
        repo,
        data: base.join("data"),
    }
}

fn service(r: &Repo) -> Worktrees {
    Worktrees::new(ChildProcessSpawner::live(), &r.data)
}

#[tokio::test]
async fn a_worktree_is_made_on_its_branch_listed_and_removed_with_the_branch() {
    strata_testkit::require_external!("git", "apt-get install git");
    let r = repo();
    let wt = service(&r);
    let made = wt
        .create(&r.repo.join("sub"), Some("fix-1"), false)
        .await
        .unwrap();
    let w = &made.worktree;
    assert!(!made.reused);
    assert_eq!(w.name, "fix-1");
    assert_eq!(w.branch, "strata/fix-1");
    assert_eq!(w.repo, r.repo);
    assert!(
        w.path.starts_with(r.data.join("worktrees")),
        "{}",
        w.path.display()
    );
    assert_eq!(
        std::fs::read_to_string(w.path.join("a.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(
        git(&w.path, &["branch", "--show-current"]).trim(),
        "strata/fix-1"
    );
    assert_eq!(made.base, git(&r.repo, &["rev-parse", "HEAD"]).trim());

    // Found from the main checkout and from inside the worktree alike.
    for from in [&r.repo, &w.path] {
        let listed = wt.list(from).await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].worktree, *w);
        assert!(listed[0].changed.is_empty());
    }
    assert_eq!(wt.containing(&w.path.join("sub")).unwrap().0, "fix-1");
    assert!(wt.containing(&r.repo).is_none());

    let removed = wt.remove(&r.repo, "fix-1", false).await.unwrap();
    assert_eq!(removed.branch_kept, None);
    assert!(!w.path.exists());
    assert!(git(&r.repo, &["branch", "--list", "strata/fix-1"]).is_empty());
    assert!(wt.list(&r.repo).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_dirty_worktree_is_refused_without_force_and_a_branch_with_commits_is_kept() {
    strata_testkit::require_external!("git", "apt-get install git");
    let r = repo();
    let wt = service(&r);
    let w = wt
        .create(&r.repo, Some("dirty"), false)
        .await
        .unwrap()
        .worktree;
    std::fs::write(w.path.join("a.txt"), "changed\n").unwrap();
    std::fs::write(w.path.join("new.txt"), "new\n").unwrap();
    assert_eq!(wt.list(&r.repo).await.unwrap()[0].changed.len(), 2);

    let err = wt.remove(&r.repo, "dirty", false).await.unwrap_err();
    assert!(
        matches!(err, WorktreeError::Dirty { count: 2, .. }),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("2 uncommitted changed file(s)") && msg.contains("--force"),
        "{msg}"
    );
    assert!(w.path.join("new.txt").exists(), "nothing was removed");

    // A commit on the branch: with --force the worktree goes, the branch stays.
    git(&w.path, &["add", "a.txt"]);
    git(&w.path, &["commit", "-q", "-m", "work"]);
    let removed = wt
        .remove(&r.repo, &w.path.to_string_lossy(), true)
        .await
        .unwrap();
    assert!(!w.path.exists());
    let kept = removed.branch_kept.unwrap();
    assert!(kept.contains("git branch -D strata/dirty"), "{kept}");
    assert!(!git(&r.repo, &["branch", "--list", "strata/dirty"]).is_empty());
}

#[tokio::test]
async fn changes_count_untracked_files_and_commits_and_an_unchanged_worktree_is_removed() {
    strata_testkit::require_external!("git", "apt-get install git");
    let r = repo();
    let wt = service(&r);
    let clean = wt.create(&r.repo, None, false).await.unwrap();
    assert_eq!(
        clean.worktree.name.split('-').count(),
        3,
        "a generated name"
    );
    let changes = wt
        .remove_if_unchanged(&clean.worktree, &clean.base)
        .await
        .unwrap();
    assert!(changes.is_empty());
    assert!(!clean.worktree.path.exists());
    assert!(git(&r.repo, &["branch", "--list", "strata/*"]).is_empty());

    let busy = wt.create(&r.repo, Some("busy"), false).await.unwrap();
    let p = &busy.worktree.path;
    std::fs::write(p.join("added.txt"), "x\ny\n").unwrap();
    std::fs::write(p.join("sub/b.txt"), "two\nthree\n").unwrap();
    git(p, &["add", "sub/b.txt"]);
    git(p, &["commit", "-q", "-m", "b"]);
    let changes = wt
        .remove_if_unchanged(&busy.worktree, &busy.base)
        .await
        .unwrap();
    assert_eq!(changes.files, ["added.txt"]);
    assert_eq!(changes.commits, 1);
    assert!(
        changes.stat.contains("added.txt | 2 ++"),
        "{}",
        changes.stat
    );
    assert!(changes.stat.contains("sub/b.txt | 1 +"), "{}", changes.stat);
    assert!(changes.stat.contains("2 files changed"), "{}", changes.stat);
    assert!(p.exists(), "a changed worktree is kept");
    // The stat used an index of its own: the worktree's index still has `added.txt` untracked.
    assert!(git(p, &["status", "--porcelain"]).contains("?? added.txt"));
}

#[tokio::test]
async fn reset_puts_a_worktree_back_at_the_main_head() {
    strata_testkit::require_external!("git", "apt-get install git");
    let r = repo();
    let wt = service(&r);
    let w = wt
        .create(&r.repo, Some("r1"), false)
        .await
        .unwrap()
        .worktree;
    std::fs::write(w.path.join("a.txt"), "changed\n").unwrap();
    std::fs::write(w.path.join("junk.txt"), "junk\n").unwrap();
    std::fs::write(r.repo.join("c.txt"), "three\n").unwrap();
    git(&r.repo, &["add", "c.txt"]);
    git(&r.repo, &["commit", "-q", "-m", "second"]);
    wt.reset(&r.repo, "r1").await.unwrap();
    assert_eq!(
        std::fs::read_to_string(w.path.join("a.txt")).unwrap(),
        "one\n"
    );
    assert!(!w.path.join("junk.txt").exists());
    assert!(w.path.join("c.txt").exists(), "at the main checkout's HEAD");
}

#[tokio::test]
async fn bad_names_folders_and_repositories_are_refused_with_what_to_do() {
    strata_testkit::require_external!("git", "apt-get install git");
    let r = repo();
    let wt = service(&r);
    let err = wt
        .create(&r.repo, Some("has space"), false)
        .await
        .unwrap_err();
    assert!(matches!(err, WorktreeError::InvalidName { .. }), "{err}");

    let plain = r.data.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let err = wt.create(&plain, Some("x"), false).await.unwrap_err();
    assert!(matches!(err, WorktreeError::NotGit { .. }), "{err}");
    assert!(err.to_string().contains("git init"), "{err}");

    let empty = r.data.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    git(&empty, &["init", "-q"]);
    let err = wt.create(&empty, Some("x"), false).await.unwrap_err();
    assert!(matches!(err, WorktreeError::NoCommit { .. }), "{err}");

    let first = wt.create(&r.repo, Some("twice"), false).await.unwrap();
    let err = wt.create(&r.repo, Some("twice"), false).await.unwrap_err();
    assert!(matches!(err, WorktreeError::Exists { .. }), "{err}");
    let again = wt.create(&r.repo, Some("twice"), true).await.unwrap();
    assert!(again.reused);
    assert_eq!(again.worktree, first.worktree);

    git(&r.repo, &["branch", "strata/taken"]);
    let err = wt.create(&r.repo, Some("taken"), false).await.unwrap_err();
    assert!(matches!(err, WorktreeError::BranchExists { .. }), "{err}");

    let err = wt.remove(&r.repo, "nope", false).await.unwrap_err();
    assert!(matches!(err, WorktreeError::NotFound { .. }), "{err}");
    assert!(err.to_string().contains("strata worktree list"), "{err}");
}
