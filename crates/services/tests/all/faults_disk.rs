//! Faults of the machine under the file services: a full disk fails an atomic write and a
//! snapshot with an error naming the file and the cause, leaving what was there intact; and a
//! process killed with SIGKILL in the middle of atomic writes leaves each file with its old or
//! its new content, never a mix, and the next write removes the temp files it left.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use strata_services::flags::RuntimeFlags;
use strata_services::fs::FsUtil;
use strata_services::process::ChildProcessSpawner;
use strata_services::snapshot::Snapshots;
use strata_testkit::{SmallDisk, poll_within_blocking, require_external};

#[tokio::test]
async fn a_full_disk_fails_an_atomic_write_clearly_and_keeps_the_old_file() {
    let Some(disk) = SmallDisk::mount(1024) else {
        return;
    };
    let file = disk.path().join("notes.txt");
    std::fs::write(&file, "the old content\n").unwrap();
    let filler = disk.fill(0);
    let fs = FsUtil::live();
    let err = fs
        .write_atomic(&file, &vec![b'x'; 256 * 1024])
        .await
        .expect_err("a write to a full disk fails");
    let text = err.to_string();
    assert!(
        text.contains("notes.txt"),
        "the error names the file: {text}"
    );
    assert!(
        text.to_lowercase().contains("no space left"),
        "the error says the disk is full: {text}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "the old content\n");
    assert_eq!(
        leftovers(disk.path()),
        Vec::<String>::new(),
        "no temp file left"
    );
    // With room again the same write goes through.
    std::fs::remove_file(filler).unwrap();
    fs.write_atomic(&file, b"new\n").await.unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "new\n");
}

/// Files in `dir` other than the ones the test made.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "notes.txt" && n != ".filler" && n != "snapshot" && n != "project")
        .collect()
}

#[tokio::test]
async fn a_full_disk_fails_a_snapshot_clearly_and_keeps_the_earlier_ones() {
    require_external!("git", "apt-get install git");
    let Some(disk) = SmallDisk::mount(4096) else {
        return;
    };
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("a.txt"), "one\n").unwrap();
    let flags = RuntimeFlags::for_dirs(disk.path().to_path_buf(), disk.path().join("cfg"));
    let snapshots = Snapshots::new(ChildProcessSpawner::live(), &flags);
    snapshots.set_enabled(true);
    let first = snapshots.capture(project.path()).await.unwrap();

    std::fs::write(project.path().join("big.bin"), vec![7u8; 2 * 1024 * 1024]).unwrap();
    let filler = disk.fill(0);
    let err = snapshots
        .capture(project.path())
        .await
        .expect_err("a snapshot onto a full disk fails");
    let text = err.to_string();
    assert!(text.contains("capture"), "{text}");
    assert!(
        text.to_lowercase().contains("no space left"),
        "the error says the disk is full: {text}"
    );
    // The earlier snapshot still restores, even before space is freed.
    std::fs::write(project.path().join("a.txt"), "changed\n").unwrap();
    std::fs::remove_file(filler).unwrap();
    snapshots.restore(project.path(), &first).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(project.path().join("a.txt")).unwrap(),
        "one\n"
    );
}

/// The variable that turns [`atomic_writer_child`] into the writer the kill test runs.
const WRITER_TARGET: &str = "STRATA_TEST_ATOMIC_WRITER_TARGET";
/// Bytes per write: big enough that a kill often lands inside one.
const WRITE_SIZE: usize = 4 * 1024 * 1024;

#[test]
#[ignore = "the writer process of kill_9_during_atomic_writes_leaves_old_or_new_content"]
fn atomic_writer_child() {
    let Some(target) = std::env::var_os(WRITER_TARGET) else {
        return;
    };
    let fs = FsUtil::live();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for n in 0u64.. {
        let fill = b'a' + (n % 26) as u8;
        rt.block_on(fs.write_atomic(Path::new(&target), &vec![fill; WRITE_SIZE]))
            .unwrap();
        std::fs::write(format!("{}.count", target.to_string_lossy()), n.to_string()).unwrap();
    }
}

#[test]
fn kill_9_during_atomic_writes_leaves_old_or_new_content() {
    const KILLS: usize = 8;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("big.txt");
    let count = dir.path().join("big.txt.count");
    std::fs::write(&target, vec![b'-'; WRITE_SIZE]).unwrap();
    let me = std::env::current_exe().unwrap();
    for k in 0..KILLS {
        let _ = std::fs::remove_file(&count);
        let mut child = Command::new(&me)
            .args(["--exact", "faults_disk::atomic_writer_child", "--ignored"])
            .env(WRITER_TARGET, &target)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A few writes in, then a kill at a moment that varies with the round.
        let began = Instant::now();
        let wrote = poll_within_blocking(Duration::from_secs(60), || {
            let n: u64 = std::fs::read_to_string(&count).ok()?.trim().parse().ok()?;
            let after = Duration::from_millis(3 * k as u64);
            (n >= 1 && began.elapsed() >= after).then_some(n)
        });
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(wrote.is_some(), "the writer never finished a write");
        let content = std::fs::read(&target).unwrap();
        assert_eq!(
            content.len(),
            WRITE_SIZE,
            "kill {k}: the file lost its length"
        );
        let first = content[0];
        assert!(
            content.iter().all(|&b| b == first),
            "kill {k}: the file mixes two writes"
        );
    }
    // What the killed writes left beside the file, once old enough, goes with the next write.
    let old = std::time::SystemTime::now() - Duration::from_secs(120);
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "tmp") {
            let f = std::fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(old).unwrap();
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(FsUtil::live().write_atomic(&target, b"after the kills"))
        .unwrap();
    let temps: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "left over: {temps:?}");
}
