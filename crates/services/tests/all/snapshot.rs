//! Snapshots against real git: capture, mark once per message, list changes, restore exactly.

use std::fs;
use std::path::Path;

use strata_services::flags::RuntimeFlags;
use strata_services::process::ChildProcessSpawner;
use strata_services::snapshot::Snapshots;
use strata_testkit::require_external;

struct Project {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    snapshots: Snapshots,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/a.txt"), "one\ntwo\n").unwrap();
    fs::write(root.join("keep.txt"), "keep\n").unwrap();
    fs::write(root.join(".gitignore"), "target/\n").unwrap();
    fs::create_dir_all(root.join("target")).unwrap();
    fs::write(root.join("target/big.bin"), "ignored\n").unwrap();
    let flags = RuntimeFlags::for_dirs(dir.path().join("data"), dir.path().join("cfg"));
    let snapshots = Snapshots::new(ChildProcessSpawner::live(), &flags);
    snapshots.set_enabled(true);
    Project {
        _dir: dir,
        root,
        snapshots,
    }
}

fn read(root: &Path, rel: &str) -> Option<Vec<u8>> {
    fs::read(root.join(rel)).ok()
}

#[tokio::test]
async fn restore_puts_back_changed_deleted_and_removes_added_files_but_not_ignored_ones() {
    require_external!("git", "apt-get install git");
    let p = project();
    let before = p.snapshots.capture(&p.root).await.unwrap();
    let original_a = read(&p.root, "src/a.txt").unwrap();

    fs::write(p.root.join("src/a.txt"), b"one\nTWO\nthree\n").unwrap();
    fs::remove_file(p.root.join("keep.txt")).unwrap();
    fs::write(p.root.join("src/new.txt"), "new\n").unwrap();
    fs::write(p.root.join("target/other.bin"), "still ignored\n").unwrap();

    let mut changes = p.snapshots.changes(&p.root, &before, None).await.unwrap();
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    let summary: Vec<_> = changes
        .iter()
        .map(|c| (c.path.as_str(), c.status, c.additions, c.deletions))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("keep.txt", "deleted", 0, 1),
            ("src/a.txt", "modified", 2, 1),
            ("src/new.txt", "added", 1, 0),
        ]
    );
    assert!(changes[1].patch.contains("+TWO"), "{}", changes[1].patch);

    let touched = p.snapshots.restore(&p.root, &before).await.unwrap();
    assert_eq!(touched.len(), 3, "{touched:?}");
    assert_eq!(read(&p.root, "src/a.txt").unwrap(), original_a);
    assert_eq!(read(&p.root, "keep.txt").unwrap(), b"keep\n");
    assert_eq!(read(&p.root, "src/new.txt"), None);
    // Ignored files are never captured, so never removed.
    assert_eq!(
        read(&p.root, "target/other.bin").unwrap(),
        b"still ignored\n"
    );
    let after = p.snapshots.changes(&p.root, &before, None).await.unwrap();
    assert!(after.is_empty(), "{after:?}");
}

#[tokio::test]
async fn a_message_is_marked_once_and_marks_are_listed_per_session() {
    require_external!("git", "apt-get install git");
    let p = project();
    let first = p
        .snapshots
        .mark(&p.root, "ses_1", "msg_1")
        .await
        .unwrap()
        .unwrap();
    fs::write(p.root.join("src/a.txt"), "changed\n").unwrap();
    // The same message keeps its first capture.
    let again = p
        .snapshots
        .mark(&p.root, "ses_1", "msg_1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first, again);
    let second = p
        .snapshots
        .mark(&p.root, "ses_1", "msg_2")
        .await
        .unwrap()
        .unwrap();
    assert_ne!(first, second);
    p.snapshots.mark(&p.root, "ses_2", "msg_9").await.unwrap();
    let marks = p.snapshots.marks(&p.root, "ses_1").await.unwrap();
    assert_eq!(
        marks,
        vec![
            ("msg_1".to_string(), first.clone()),
            ("msg_2".to_string(), second)
        ]
    );
    // The project's own files hold no trace of the shadow repository.
    assert!(!p.root.join(".git").exists());
}

#[tokio::test]
async fn marking_does_nothing_while_snapshots_are_off() {
    require_external!("git", "apt-get install git");
    let p = project();
    p.snapshots.set_enabled(false);
    assert_eq!(
        p.snapshots.mark(&p.root, "ses_1", "msg_1").await.unwrap(),
        None
    );
    assert!(
        p.snapshots
            .marks(&p.root, "ses_1")
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_missing_worktree_is_an_error_naming_it() {
    require_external!("git", "apt-get install git");
    let p = project();
    let gone = p.root.join("nope");
    let err = p.snapshots.capture(&gone).await.unwrap_err().to_string();
    assert!(err.contains("nope"), "{err}");
}
