//! FileTime against real files in a temporary directory.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use super::*;

fn stat(path: &Path) -> (SystemTime, u64) {
    let meta = fs::metadata(path).unwrap();
    (meta.modified().unwrap(), meta.len())
}

async fn hash_file(path: PathBuf) -> Option<ContentHash> {
    fs::read(path).ok().map(|b| hash_bytes(&b))
}

/// Records a full read of `path` by `session`, the way the `read` tool does.
fn read_whole(ft: &FileTime, session: &str, path: &Path) {
    let (mtime, size) = stat(path);
    let hash = hash_bytes(&fs::read(path).unwrap());
    ft.record_read(session, path, mtime, size, Some(hash));
}

fn set_mtime(path: &Path, t: SystemTime) {
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn file(dir: &tempfile::TempDir, name: &str, content: &str) -> PathBuf {
    let path = dir.path().join(name);
    fs::write(&path, content).unwrap();
    path
}

async fn check(ft: &FileTime, session: &str, path: &Path) -> Result<(), FileTimeError> {
    ft.assert_fresh(session, path, stat(path), hash_file(path.to_path_buf()))
        .await
}

#[tokio::test]
async fn never_read_is_refused_with_a_hint_to_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "one\n");
    let ft = FileTime::new(true);
    let err = check(&ft, "s1", &path).await.unwrap_err();
    assert_eq!(err, FileTimeError::NeverRead { path: path.clone() });
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("`read`"), "{msg}");
}

#[tokio::test]
async fn unchanged_file_is_fresh_without_hashing() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "one\n");
    let ft = FileTime::new(true);
    let (mtime, size) = stat(&path);
    // No hash recorded (partial read): mtime and size alone decide.
    ft.record_read("s1", &path, mtime, size, None);
    let hashed = Arc::new(Mutex::new(false));
    let flag = hashed.clone();
    let res = ft
        .assert_fresh("s1", &path, (mtime, size), async move {
            *flag.lock().unwrap() = true;
            None
        })
        .await;
    assert_eq!(res, Ok(()));
    assert!(!*hashed.lock().unwrap(), "hash must not be computed");
}

#[tokio::test]
async fn changed_content_is_stale() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "one\n");
    let ft = FileTime::new(true);
    read_whole(&ft, "s1", &path);
    let before = stat(&path).0;
    fs::write(&path, "two, and longer\n").unwrap();
    set_mtime(&path, before + Duration::from_secs(5));
    let err = check(&ft, "s1", &path).await.unwrap_err();
    assert_eq!(err, FileTimeError::Stale { path: path.clone() });
    assert!(err.to_string().contains("read it again") || err.to_string().contains("Read it again"));
}

#[tokio::test]
async fn same_size_change_with_new_mtime_is_stale() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "aaaa\n");
    let ft = FileTime::new(true);
    read_whole(&ft, "s1", &path);
    let before = stat(&path).0;
    fs::write(&path, "bbbb\n").unwrap();
    set_mtime(&path, before + Duration::from_secs(5));
    assert_eq!(stat(&path).1, 5);
    assert!(matches!(
        check(&ft, "s1", &path).await,
        Err(FileTimeError::Stale { .. })
    ));
}

#[tokio::test]
async fn partial_read_without_hash_is_stale_after_touch() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "same\n");
    let ft = FileTime::new(true);
    let (mtime, size) = stat(&path);
    ft.record_read("s1", &path, mtime, size, None);
    set_mtime(&path, mtime + Duration::from_secs(5));
    assert!(matches!(
        check(&ft, "s1", &path).await,
        Err(FileTimeError::Stale { .. })
    ));
}

#[tokio::test]
async fn touched_but_same_content_is_fresh_and_refreshes_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "same\n");
    let ft = FileTime::new(true);
    read_whole(&ft, "s1", &path);
    let later = stat(&path).0 + Duration::from_secs(5);
    set_mtime(&path, later);
    assert_eq!(check(&ft, "s1", &path).await, Ok(()));
    let record = ft.get("s1", &path).unwrap();
    assert_eq!(record.mtime, later);
    assert_eq!(record.size, 5);
    assert_eq!(record.hash, Some(hash_bytes(b"same\n")));
    // The refreshed record now passes on mtime and size alone, even without a hash source.
    let res = ft
        .assert_fresh("s1", &path, stat(&path), async { None })
        .await;
    assert_eq!(res, Ok(()));
}

#[tokio::test]
async fn disabled_check_always_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "one\n");
    let ft = FileTime::new(false);
    assert!(!ft.enabled());
    assert_eq!(check(&ft, "s1", &path).await, Ok(()));
    read_whole(&ft, "s1", &path);
    fs::write(&path, "changed content\n").unwrap();
    assert_eq!(check(&ft, "s1", &path).await, Ok(()));
}

#[tokio::test]
async fn sessions_are_isolated() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "one\n");
    let ft = FileTime::new(true);
    read_whole(&ft, "s1", &path);
    assert_eq!(check(&ft, "s1", &path).await, Ok(()));
    assert!(matches!(
        check(&ft, "s2", &path).await,
        Err(FileTimeError::NeverRead { .. })
    ));
    ft.forget_session("s1");
    assert!(matches!(
        check(&ft, "s1", &path).await,
        Err(FileTimeError::NeverRead { .. })
    ));
}

#[tokio::test]
async fn clones_share_records_but_instances_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "one\n");
    let ft = FileTime::new(true);
    read_whole(&ft, "s1", &path);
    assert_eq!(check(&ft.clone(), "s1", &path).await, Ok(()));
    assert!(check(&FileTime::new(true), "s1", &path).await.is_err());
}

#[tokio::test]
async fn lock_makes_the_second_writer_wait_for_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "a.txt", "");
    let ft = FileTime::new(true);
    let log = Arc::new(Mutex::new(Vec::new()));

    let first = ft.lock(&path).await;
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let second = tokio::spawn({
        let (ft, path, log) = (ft.clone(), path.clone(), log.clone());
        async move {
            started_tx.send(()).unwrap();
            let _guard = ft.lock(&path).await;
            log.lock().unwrap().push("second");
        }
    });
    // On the current-thread runtime the spawned task has run up to its wait for the lock by
    // the time this receive completes.
    started_rx.await.unwrap();
    tokio::task::yield_now().await;
    assert!(
        !second.is_finished(),
        "second writer ran while the lock was held"
    );
    log.lock().unwrap().push("first");
    drop(first);
    tokio::time::timeout(Duration::from_secs(10), second)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(*log.lock().unwrap(), vec!["first", "second"]);
}

#[tokio::test]
async fn locked_read_modify_write_loses_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "counter.txt", "0");
    let ft = FileTime::new(true);
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let (ft, path) = (ft.clone(), path.clone());
            tokio::spawn(async move {
                let _guard = ft.lock(&path).await;
                let n: u32 = fs::read_to_string(&path).unwrap().parse().unwrap();
                // Give every other task the chance to interleave here.
                tokio::task::yield_now().await;
                fs::write(&path, (n + 1).to_string()).unwrap();
            })
        })
        .collect();
    for t in tasks {
        tokio::time::timeout(Duration::from_secs(10), t)
            .await
            .unwrap()
            .unwrap();
    }
    assert_eq!(fs::read_to_string(&path).unwrap(), "20");
}

#[tokio::test]
async fn locks_of_different_files_are_independent() {
    let dir = tempfile::tempdir().unwrap();
    let a = file(&dir, "a.txt", "");
    let b = file(&dir, "b.txt", "");
    let ft = FileTime::new(true);
    let _a = ft.lock(&a).await;
    let got_b = tokio::time::timeout(Duration::from_secs(10), ft.lock(&b)).await;
    assert!(got_b.is_ok(), "lock of b.txt waited for a.txt");
}

#[tokio::test]
async fn node_reads_read_before_edit_from_config() {
    use strata_graph::{Context, Graph, Scope};
    for (value, want) in [
        (serde_json::json!({}), true),
        (
            serde_json::json!({"tools": {"read_before_edit": false}}),
            false,
        ),
    ] {
        let base = Context::new().with(Config::from_value(value).unwrap());
        let scope = Scope::new();
        let cx = Graph::new()
            .with(FileTime::node())
            .build(&base, &scope)
            .await
            .unwrap();
        assert_eq!(cx.get::<FileTime>().unwrap().enabled(), want);
        scope.close().await;
    }
}

#[tokio::test]
async fn the_unchecked_node_is_off_whatever_the_config_says() {
    use strata_graph::{Context, Graph, Scope};
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "never-read.txt", "x");
    let base = Context::new().with(Config::from_value(serde_json::json!({})).unwrap());
    let scope = Scope::new();
    let cx = Graph::new()
        .with(FileTime::node_unchecked())
        .build(&base, &scope)
        .await
        .unwrap();
    let ft = cx.get::<FileTime>().unwrap();
    assert!(!ft.enabled());
    ft.assert_fresh("s", &path, stat(&path), hash_file(path.clone()))
        .await
        .unwrap();
    scope.close().await;
}
