//! Tests of the live filesystem against real files in temporary directories.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt, symlink};

use futures::StreamExt;

use super::*;

fn mode_of(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[tokio::test]
async fn atomic_write_keeps_the_existing_mode() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("secret.txt");
    fs::write(&file, "old").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();

    FsUtil::live().write_atomic(&file, b"new").await.unwrap();

    assert_eq!(fs::read_to_string(&file).unwrap(), "new");
    assert_eq!(mode_of(&file), 0o600);
}

#[tokio::test]
async fn atomic_write_gives_new_files_the_default_mode() {
    let dir = tempfile::tempdir().unwrap();
    // What the process umask makes of 0666 (0644 under umask 022).
    let reference = dir.path().join("reference");
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .open(&reference)
        .unwrap();
    let file = dir.path().join("fresh.txt");

    FsUtil::live().write_atomic(&file, b"hello").await.unwrap();

    assert_eq!(fs::read_to_string(&file).unwrap(), "hello");
    assert_eq!(mode_of(&file), mode_of(&reference));
    assert_ne!(mode_of(&file), 0o600, "the temp file's private mode leaked");
}

#[tokio::test]
async fn atomic_write_through_a_symlink_replaces_the_target_and_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.txt");
    let link = dir.path().join("link.txt");
    fs::write(&real, "old").unwrap();
    symlink("real.txt", &link).unwrap();

    FsUtil::live().write_atomic(&link, b"new").await.unwrap();

    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_link(&link).unwrap(), PathBuf::from("real.txt"));
    assert_eq!(fs::read_to_string(&real).unwrap(), "new");
}

#[tokio::test]
async fn atomic_write_through_a_dangling_symlink_creates_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link.txt");
    symlink(dir.path().join("sub/target.txt"), &link).unwrap();

    FsUtil::live().write_atomic(&link, b"made").await.unwrap();

    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("sub/target.txt")).unwrap(),
        "made"
    );
}

#[tokio::test]
async fn atomic_write_refuses_a_read_only_file_and_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("locked.txt");
    fs::write(&file, "keep me").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o444)).unwrap();

    let err = FsUtil::live()
        .write_atomic(&file, b"clobber")
        .await
        .unwrap_err();

    assert!(
        matches!(&err, FsError::PermissionDenied { path } if *path == file),
        "{err:?}"
    );
    assert!(err.to_string().contains("locked.txt"));
    assert_eq!(fs::read_to_string(&file).unwrap(), "keep me");
    assert_eq!(mode_of(&file), 0o444);
    let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "a temp file was left behind");
}

#[tokio::test]
async fn atomic_write_creates_missing_parents_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a/b/c/new.txt");

    FsUtil::live().write_atomic(&file, b"deep").await.unwrap();

    assert_eq!(fs::read_to_string(&file).unwrap(), "deep");
    let names: Vec<_> = fs::read_dir(dir.path().join("a/b/c"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec!["new.txt"]);
}

#[tokio::test]
async fn atomic_write_onto_a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = FsUtil::live()
        .write_atomic(dir.path(), b"x")
        .await
        .unwrap_err();
    assert!(matches!(err, FsError::IsADirectory { .. }), "{err:?}");
}

#[tokio::test]
async fn stopping_a_stream_early_reads_less_than_half_of_a_large_file() {
    const SIZE: usize = 64 * 1024 * 1024;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.bin");
    let mut out = fs::File::create(&file).unwrap();
    let block = vec![b'x'; 1024 * 1024];
    for _ in 0..SIZE / block.len() {
        out.write_all(&block).unwrap();
    }
    drop(out);

    let before = FsUtil::bytes_streamed();
    let mut stream = FsUtil::live().stream(&file, 64 * 1024).await.unwrap();
    let mut seen = 0;
    for _ in 0..4 {
        seen += stream.next().await.unwrap().unwrap().len();
    }
    drop(stream);
    let read = FsUtil::bytes_streamed() - before;

    assert_eq!(seen, 4 * 64 * 1024);
    assert!(read >= seen as u64);
    assert!(read < (SIZE / 2) as u64, "read {read} bytes of {SIZE}");
}

#[tokio::test]
async fn a_stream_read_to_the_end_yields_the_whole_file_in_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    let content: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    fs::write(&file, &content).unwrap();

    let mut stream = FsUtil::live().stream(&file, 4096).await.unwrap();
    let mut got = Vec::new();
    let mut chunks = 0;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.unwrap();
        assert!(chunk.len() <= 4096);
        got.extend_from_slice(&chunk);
        chunks += 1;
    }
    assert_eq!(got, content);
    assert_eq!(chunks, 3);
}

#[tokio::test]
async fn bounded_read_returns_small_files_and_refuses_large_ones() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    fs::write(&file, "0123456789").unwrap();
    let fsu = FsUtil::live();

    assert_eq!(fsu.read(&file, 10).await.unwrap(), b"0123456789");
    let err = fsu.read(&file, 9).await.unwrap_err();
    assert!(
        matches!(&err, FsError::TooLarge { path, size: 10, limit: 9 } if *path == file),
        "{err:?}"
    );
    assert_eq!(fsu.read_head(&file, 4).await.unwrap(), b"0123");
    assert_eq!(fsu.read_head(&file, 100).await.unwrap(), b"0123456789");
}

#[tokio::test]
async fn errors_name_the_missing_path() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("nope.txt");
    let fsu = FsUtil::live();

    for err in [
        fsu.read(&gone, 100).await.unwrap_err(),
        fsu.read_head(&gone, 10).await.unwrap_err(),
        fsu.stream(&gone, 10).await.err().unwrap(),
        fsu.read_dir(&gone).await.unwrap_err(),
        fsu.realpath(&gone).await.unwrap_err(),
        fsu.remove_file(&gone).await.unwrap_err(),
        fsu.rename(&gone, &dir.path().join("x")).await.unwrap_err(),
    ] {
        assert!(
            matches!(&err, FsError::NotFound { path } if *path == gone),
            "{err:?}"
        );
        assert!(
            err.to_string().contains(&gone.display().to_string()),
            "{err}"
        );
    }
    assert_eq!(fsu.stat(&gone).await.unwrap(), None);
    assert!(!fsu.exists(&gone).await);
}

#[tokio::test]
async fn reading_a_directory_says_it_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let fsu = FsUtil::live();
    let err = fsu.read(dir.path(), 100).await.unwrap_err();
    assert!(matches!(err, FsError::IsADirectory { .. }), "{err:?}");
    let err = fsu.stream(dir.path(), 100).await.err().unwrap();
    assert!(matches!(err, FsError::IsADirectory { .. }), "{err:?}");
}

#[tokio::test]
async fn stat_follows_symlinks_and_reports_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    fs::write(&file, "12345").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("l");
    symlink(&file, &link).unwrap();
    symlink(dir.path().join("missing"), dir.path().join("dangling")).unwrap();
    let fsu = FsUtil::live();

    let plain = fsu.stat(&file).await.unwrap().unwrap();
    assert_eq!(
        (plain.kind, plain.len, plain.mode),
        (FileKind::File, 5, 0o640)
    );
    assert!(!plain.is_symlink && !plain.readonly);
    let via = fsu.stat(&link).await.unwrap().unwrap();
    assert_eq!(
        (via.kind, via.len, via.is_symlink),
        (FileKind::File, 5, true)
    );
    assert_eq!(via.mtime, plain.mtime);
    assert_eq!(
        fsu.stat(dir.path()).await.unwrap().unwrap().kind,
        FileKind::Dir
    );
    assert_eq!(fsu.stat(&dir.path().join("dangling")).await.unwrap(), None);
    assert_eq!(fsu.stat(&file.join("under-a-file")).await.unwrap(), None);
}

#[tokio::test]
async fn read_dir_lists_sorted_entries_with_kinds() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("b.txt"), "").unwrap();
    fs::create_dir(dir.path().join("a")).unwrap();
    symlink(dir.path().join("a"), dir.path().join("c")).unwrap();
    symlink(dir.path().join("missing"), dir.path().join("d")).unwrap();

    let entries = FsUtil::live().read_dir(dir.path()).await.unwrap();
    let seen: Vec<_> = entries
        .iter()
        .map(|e| (e.name.as_str(), e.kind, e.is_symlink))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("a", FileKind::Dir, false),
            ("b.txt", FileKind::File, false),
            ("c", FileKind::Dir, true),
            ("d", FileKind::Other, true),
        ]
    );
    assert_eq!(entries[1].path, dir.path().join("b.txt"));
}

#[tokio::test]
async fn resolve_real_resolves_the_existing_part_and_appends_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    fs::create_dir(root.join("real")).unwrap();
    symlink(root.join("real"), root.join("alias")).unwrap();
    let fsu = FsUtil::live();

    assert_eq!(
        fsu.resolve_real(&root.join("alias/not/yet.txt")).await,
        root.join("real/not/yet.txt")
    );
    assert_eq!(
        fsu.resolve_real(&root.join("alias")).await,
        root.join("real")
    );
    assert_eq!(
        fsu.realpath(&root.join("alias")).await.unwrap(),
        root.join("real")
    );
}

#[tokio::test]
async fn directory_and_rename_helpers_work() {
    let dir = tempfile::tempdir().unwrap();
    let fsu = FsUtil::live();
    let sub = dir.path().join("x/y");
    fsu.create_dir_all(&sub).await.unwrap();
    assert!(fsu.exists(&sub).await);

    let a = sub.join("a.txt");
    fsu.write_atomic(&a, b"1").await.unwrap();
    let b = dir.path().join("b.txt");
    fsu.rename(&a, &b).await.unwrap();
    assert!(!fsu.exists(&a).await);
    assert_eq!(fsu.read(&b, 10).await.unwrap(), b"1");

    fsu.remove_dir(&sub).await.unwrap();
    assert!(!fsu.exists(&sub).await);
    fsu.remove_file(&b).await.unwrap();
    assert!(!fsu.exists(&b).await);
}
