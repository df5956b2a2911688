//! The protected files on the real kernel, through the Sandbox service: bound read-only in a
//! user and mount namespace where the kernel allows it (a write fails with EROFS and git still
//! works), undone afterwards where it does not, and a linked worktree's shared git directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use strata_services::config::SandboxConfig;
use strata_services::process::sandbox::{Sandbox, SandboxInputs, Support};
use strata_services::process::{ChildProcessSpawner, CommandSpec, Output};

const LIMIT: Duration = Duration::from_secs(30);
const GIT_ID: &str = "-c user.name=t -c user.email=t@t";

/// A project outside every temp directory, with the sandbox the service decides for it.
struct Boxed {
    _root: tempfile::TempDir,
    base: PathBuf,
    project: PathBuf,
}

impl Boxed {
    /// `None` (after one skip line) when the kernel cannot enforce the sandbox.
    fn new() -> Option<Boxed> {
        let support = Support::probe();
        if !support.enforceable() {
            println!("skipped: {}", support.missing_reason());
            return None;
        }
        let root = tempfile::Builder::new()
            .prefix("protect-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        let project = base.join("project");
        std::fs::create_dir_all(&project).unwrap();
        Some(Boxed {
            _root: root,
            base,
            project,
        })
    }

    fn sandbox_for(&self, project: &Path, support: Support) -> Sandbox {
        let temp = std::env::temp_dir();
        let inputs = SandboxInputs {
            config: &SandboxConfig::default(),
            flag_mode: None,
            project,
            temp: &temp,
            home: &self.base,
        };
        Sandbox::resolve(&inputs, support).unwrap()
    }

    fn sandbox(&self, support: Support) -> Sandbox {
        self.sandbox_for(&self.project, support)
    }
}

/// Runs `script` in `cwd`, in `sandbox` when given, as the bash tool does: the snapshot
/// before, the restore after. Returns the output and the restored paths.
async fn run(sandbox: Option<&Sandbox>, cwd: &Path, script: &str) -> (Output, Vec<PathBuf>) {
    let spec = CommandSpec::shell("/bin/bash", script).cwd(cwd);
    let Some(sandbox) = sandbox else {
        let out = ChildProcessSpawner::live().run(spec, LIMIT).await.unwrap();
        return (out, Vec::new());
    };
    let snap = sandbox.protect();
    let spec = sandbox.command(spec, "ses_protect");
    let out = ChildProcessSpawner::live().run(spec, LIMIT).await.unwrap();
    (out, snap.map(|s| s.restore()).unwrap_or_default())
}

fn with_namespaces() -> Option<Support> {
    let support = Support::probe();
    if !support.user_namespaces {
        println!("skipped: this kernel refuses unprivileged user namespaces");
        return None;
    }
    Some(support)
}

#[tokio::test]
async fn protected_files_are_read_only_inside_and_git_still_works() {
    let Some(b) = Boxed::new() else { return };
    let Some(support) = with_namespaces() else {
        return;
    };
    let p = &b.project;
    let (init, _) = run(None, p, "git init -q . && echo '{}' > strata.json").await;
    assert!(init.success(), "{init:?}");
    let sandbox = b.sandbox(support);
    assert_eq!(sandbox.protection(), "read-only binds");

    for target in [".git/hooks/pre-commit", "strata.json", ".git/config"] {
        let before = std::fs::read(p.join(target)).ok();
        let (out, restored) = run(Some(&sandbox), p, &format!("echo evil > {target}")).await;
        assert!(!out.success(), "{target}: {out:?}");
        assert!(
            out.stderr_text().contains("Read-only file system"),
            "{target}: {out:?}"
        );
        assert_eq!(std::fs::read(p.join(target)).ok(), before, "{target}");
        assert!(restored.is_empty(), "nothing to undo: {restored:?}");
        let hint = sandbox.hint(&out.stderr_text()).unwrap();
        assert!(
            hint.starts_with(&format!("sandbox: {target} is protected")),
            "{hint}"
        );
    }

    let git = format!(
        "set -e; echo a > a.txt; git status --short; git add a.txt; \
         git {GIT_ID} commit -q -m first; git log --format=%s; stat -c %u a.txt; id -u"
    );
    let (out, _) = run(Some(&sandbox), p, &git).await;
    assert!(out.success(), "{out:?}");
    let text = out.stdout_text();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.contains(&"first"), "{out:?}");
    let owner = lines[lines.len() - 2];
    assert_eq!(
        owner,
        lines[lines.len() - 1],
        "ids map to themselves: {out:?}"
    );
    assert!(!out.stderr_text().contains("dubious"), "{out:?}");

    // The same write sticks without the sandbox.
    let (free, _) = run(None, p, "echo evil > strata.json").await;
    assert!(free.success(), "{free:?}");
    assert_eq!(
        std::fs::read_to_string(p.join("strata.json")).unwrap(),
        "evil\n"
    );
}

#[tokio::test]
async fn a_protected_file_that_does_not_exist_yet_is_still_undone() {
    let Some(b) = Boxed::new() else { return };
    let Some(support) = with_namespaces() else {
        return;
    };
    let sandbox = b.sandbox(support);
    let (out, restored) = run(
        Some(&sandbox),
        &b.project,
        "echo '{}' > strata.json && mkdir .strata && echo x > .strata/a.md",
    )
    .await;
    assert!(
        out.success(),
        "nothing to bind, so the write works: {out:?}"
    );
    assert_eq!(
        restored,
        [PathBuf::from(".strata/a.md"), PathBuf::from("strata.json")]
    );
    assert!(!b.project.join("strata.json").exists());
}

#[tokio::test]
async fn without_namespaces_the_change_is_undone_afterwards() {
    let Some(b) = Boxed::new() else { return };
    let support = Support {
        user_namespaces: false,
        ..Support::probe()
    };
    let p = &b.project;
    std::fs::create_dir_all(p.join(".git/hooks")).unwrap();
    std::fs::write(p.join("strata.json"), "{}").unwrap();
    let sandbox = b.sandbox(support);
    assert_eq!(sandbox.protection(), "snapshot and restore");
    let (out, restored) = run(
        Some(&sandbox),
        p,
        "echo evil > .git/hooks/pre-commit && echo evil > strata.json && cat strata.json",
    )
    .await;
    assert!(out.success(), "the write itself works: {out:?}");
    assert_eq!(out.stdout_text(), "evil\n");
    assert_eq!(
        restored,
        [
            PathBuf::from(".git/hooks/pre-commit"),
            PathBuf::from("strata.json")
        ]
    );
    assert!(!p.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(p.join("strata.json")).unwrap(),
        "{}"
    );
}

#[tokio::test]
async fn a_linked_worktree_can_commit_but_not_change_the_shared_hooks() {
    let Some(b) = Boxed::new() else { return };
    let main = b.base.join("main");
    let wt = b.base.join("wt");
    std::fs::create_dir_all(&main).unwrap();
    let setup = format!(
        "set -e; git init -q .; git {GIT_ID} commit -q --allow-empty -m root; \
         git worktree add -q {} -b side",
        wt.display()
    );
    let (out, _) = run(None, &main, &setup).await;
    assert!(out.success(), "{out:?}");

    let sandbox = b.sandbox_for(&wt, Support::probe());
    let common = main.join(".git");
    assert!(
        sandbox
            .report()
            .writable_roots
            .contains(&common.display().to_string()),
        "{:?}",
        sandbox.report()
    );
    let commit = format!("set -e; echo a > a.txt; git add a.txt; git {GIT_ID} commit -q -m in-wt");
    let (out, _) = run(Some(&sandbox), &wt, &commit).await;
    assert!(out.success(), "{out:?}");

    let hook = common.join("hooks/pre-commit");
    let (out, restored) = run(
        Some(&sandbox),
        &wt,
        &format!("echo evil > {}", hook.display()),
    )
    .await;
    assert!(!hook.exists(), "{out:?} {restored:?}");
    if Support::probe().user_namespaces {
        assert!(
            out.stderr_text().contains("Read-only file system"),
            "{out:?}"
        );
    }

    // Without the common directory among the roots the commit could not be made.
    let (log, _) = run(None, &wt, "git log --format=%s -1").await;
    assert_eq!(log.stdout_text(), "in-wt\n");
}

#[tokio::test]
async fn a_command_cannot_lift_the_read_only_bind() {
    let Some(b) = Boxed::new() else { return };
    let Some(support) = with_namespaces() else {
        return;
    };
    let p = &b.project;
    std::fs::write(p.join("strata.json"), "{}").unwrap();
    let sandbox = b.sandbox(support);
    for attempt in [
        "umount -l strata.json",
        "mount -o remount,bind,rw strata.json",
        "unshare -Urm sh -c 'umount -l strata.json'",
    ] {
        let script = format!("{attempt}; echo evil > strata.json");
        let (out, _) = run(Some(&sandbox), p, &script).await;
        assert_eq!(
            std::fs::read_to_string(p.join("strata.json")).unwrap(),
            "{}",
            "`{attempt}`: {out:?}"
        );
        assert!(
            out.stderr_text().contains("Read-only file system"),
            "{out:?}"
        );
    }
}
