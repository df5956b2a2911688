//! The snapshot store cannot eat the disk: skipped paths, refused folders, and the size budget
//! that drops the snapshots of gone sessions while a live session can still revert.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use strata_services::flags::RuntimeFlags;
use strata_services::process::ChildProcessSpawner;
use strata_services::snapshot::{SkipReason, Snapshots, disk_usage};
use strata_testkit::require_external;

struct Store {
    dir: tempfile::TempDir,
    root: PathBuf,
    snapshots: Snapshots,
}

impl Store {
    fn data(&self) -> PathBuf {
        self.dir.path().join("data/snapshot")
    }
}

fn store_with_home(home: Option<&str>) -> Store {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("keep.txt"), "keep\n").unwrap();
    let mut flags = RuntimeFlags::for_dirs(dir.path().join("data"), dir.path().join("cfg"));
    if let Some(home) = home {
        flags.home_dir = dir.path().join(home);
    }
    let snapshots = Snapshots::new(ChildProcessSpawner::live(), &flags);
    snapshots.set_enabled(true);
    Store {
        dir,
        root,
        snapshots,
    }
}

fn store() -> Store {
    store_with_home(None)
}

/// `n` small files in `dir` (relative to `root`).
fn many(root: &Path, dir: &str, n: usize) {
    fs::create_dir_all(root.join(dir)).unwrap();
    for i in 0..n {
        fs::write(root.join(dir).join(format!("f{i}.js")), format!("{i}\n")).unwrap();
    }
}

/// A writer for the log capture: every line the test's subscriber formats, kept in memory.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// Bytes that do not compress (xorshift), so each version really costs its size in git.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[tokio::test]
async fn a_crowded_folder_is_named_in_one_warning_however_many_captures_leave_it_out() {
    require_external!("git", "apt-get install git");
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    // The test's runtime is single-threaded: the captures log on this thread.
    let _guard = tracing::subscriber::set_default(subscriber);
    let s = store();
    many(&s.root, "node_modules", 201);
    for turn in 0..3 {
        fs::write(s.root.join("keep.txt"), format!("turn {turn}\n")).unwrap();
        s.snapshots.capture(&s.root).await.unwrap();
    }
    let text = logs.text();
    let warnings: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("node_modules/"))
        .collect();
    assert_eq!(warnings.len(), 1, "{text}");
    assert!(warnings[0].contains("undo cannot restore it"), "{text}");
}

#[tokio::test]
async fn big_files_and_crowded_untracked_folders_are_left_out_and_survive_a_restore() {
    require_external!("git", "apt-get install git");
    let s = store();
    many(&s.root, "node_modules", 201);
    many(&s.root, "src", 200);
    let big = fs::File::create(s.root.join("big.bin")).unwrap();
    big.set_len(10 * 1024 * 1024 + 1).unwrap();
    let before = s.snapshots.capture(&s.root).await.unwrap();

    let mut skipped = s.snapshots.skipped(&s.root).await.unwrap();
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    let summary: Vec<_> = skipped
        .iter()
        .map(|k| (k.path.as_str(), k.reason.clone()))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "big.bin",
                SkipReason::Large {
                    bytes: 10 * 1024 * 1024 + 1
                }
            ),
            ("node_modules/", SkipReason::Crowded { entries: 201 }),
        ]
    );
    // 200 entries is within the limit: src is captured like any project folder.
    fs::write(s.root.join("src/f0.js"), "changed\n").unwrap();
    fs::write(s.root.join("node_modules/f0.js"), "changed too\n").unwrap();
    fs::write(s.root.join("big.bin"), "small now\n").unwrap();
    let changes = s.snapshots.changes(&s.root, &before, None).await.unwrap();
    let paths: Vec<_> = changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["big.bin", "src/f0.js"], "{changes:?}");

    s.snapshots.restore(&s.root, &before).await.unwrap();
    assert_eq!(fs::read_to_string(s.root.join("src/f0.js")).unwrap(), "0\n");
    // Skipped paths are never touched by a restore.
    assert_eq!(
        fs::read_to_string(s.root.join("node_modules/f0.js")).unwrap(),
        "changed too\n"
    );
    assert!(s.root.join("node_modules/f200.js").exists());
}

#[tokio::test]
async fn in_a_git_project_only_folders_without_tracked_files_are_skipped() {
    require_external!("git", "apt-get install git");
    let s = store();
    many(&s.root, "src", 3);
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(&s.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "--quiet"]);
    git(&["add", "src"]);
    many(&s.root, "src", 250);
    many(&s.root, "build/out", 300);
    s.snapshots.capture(&s.root).await.unwrap();
    let skipped = s.snapshots.skipped(&s.root).await.unwrap();
    let paths: Vec<_> = skipped.iter().map(|k| k.path.as_str()).collect();
    // src holds tracked files, so its 250 new ones are the project's; build/out is untracked
    // and crowded (build itself has one entry).
    assert_eq!(paths, ["build/out/"], "{skipped:?}");
}

#[tokio::test]
async fn a_home_directory_or_a_file_system_root_is_never_snapshotted() {
    require_external!("git", "apt-get install git");
    let s = store_with_home(Some("project"));
    assert_eq!(
        s.snapshots.mark(&s.root, "ses_1", "msg_1").await.unwrap(),
        None
    );
    let err = s.snapshots.capture(&s.root).await.unwrap_err().to_string();
    assert!(err.contains("it is your home directory"), "{err}");
    assert!(err.contains("start Strata inside"), "{err}");
    let err = s
        .snapshots
        .capture(Path::new("/"))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("file system root"), "{err}");
    assert!(!s.data().exists(), "no shadow repository was made");
}

/// The CI-size run of the figure: 20 turns of 200 KB that does not compress, the first 16 in
/// four sessions that are gone, the last 4 in a live one, under a 1.5 MiB budget.
#[tokio::test]
async fn the_budget_drops_gone_sessions_oldest_first_and_live_ones_still_revert() {
    require_external!("git", "apt-get install git");
    let s = store();
    let budget = 1536 * 1024;
    s.snapshots
        .set_liveness(Arc::new(|session: &str| session == "ses_live"));
    let mut at_live_start = Vec::new();
    let mut pruned = 0;
    for turn in 0..20u64 {
        let session = if turn < 16 {
            format!("ses_old{}", turn / 4)
        } else {
            "ses_live".to_string()
        };
        let message = format!("msg_{turn:02}");
        s.snapshots.mark(&s.root, &session, &message).await.unwrap();
        if turn == 16 {
            at_live_start = fs::read(s.root.join("data.bin")).unwrap();
        }
        fs::write(s.root.join("data.bin"), noise(turn, 200_000)).unwrap();
        let report = s.snapshots.enforce_budget(&s.root, budget).await.unwrap();
        assert!(report.bytes <= budget, "turn {turn}: {report:?}");
        pruned += report.pruned;
    }
    assert!(pruned >= 8, "{pruned} snapshots dropped");
    assert!(disk_usage(&s.data()) <= budget, "{}", disk_usage(&s.data()));
    let live = s.snapshots.marks(&s.root, "ses_live").await.unwrap();
    assert_eq!(live.len(), 4, "every live snapshot stays");
    assert!(
        s.snapshots
            .marks(&s.root, "ses_old0")
            .await
            .unwrap()
            .is_empty(),
        "the oldest gone session goes first"
    );
    s.snapshots.restore(&s.root, &live[0].1).await.unwrap();
    assert_eq!(fs::read(s.root.join("data.bin")).unwrap(), at_live_start);
}

#[tokio::test]
async fn a_kept_tree_survives_collection_and_unkept_captures_do_not() {
    require_external!("git", "apt-get install git");
    let s = store();
    fs::write(s.root.join("data.bin"), noise(1, 50_000)).unwrap();
    let kept = s.snapshots.keep(&s.root, "ses_1").await.unwrap();
    fs::write(s.root.join("data.bin"), noise(2, 50_000)).unwrap();
    let loose = s.snapshots.capture(&s.root).await.unwrap();
    fs::write(s.root.join("data.bin"), noise(3, 50_000)).unwrap();
    s.snapshots.capture(&s.root).await.unwrap();
    // A budget of one byte: everything is collected, nothing live is dropped.
    let report = s.snapshots.enforce_budget(&s.root, 1).await.unwrap();
    assert!(report.collected && report.pruned == 0, "{report:?}");
    s.snapshots.restore(&s.root, &kept).await.unwrap();
    assert_eq!(fs::read(s.root.join("data.bin")).unwrap(), noise(1, 50_000));
    let err = s.snapshots.restore(&s.root, &loose).await.unwrap_err();
    assert!(err.to_string().contains(&loose[..7]), "{err}");
}
