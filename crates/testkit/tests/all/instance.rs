//! The `TestInstance`'s own tests: what a test resolves is the production wiring, on real
//! directories, and the instance is disposed even when the test body panics.

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use futures::FutureExt;
use serde_json::json;
use strata_registry::ToolRegistry;
use strata_services::clock::Clock;
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::fs::FsUtil;
use strata_services::instance::InstanceInfo;
use strata_services::permission::{Permission, PermissionError, Reply};
use strata_services::process::{ChildProcessSpawner, CommandSpec};
use strata_testkit::{ReplyMode, TestInstance, await_with_timeout, poll_with_timeout};
use strata_tools::{ToolError, ToolResult};
use tokio::task::JoinHandle;

const LIMIT: Duration = Duration::from_secs(20);

/// A file outside every test project, so reading it needs an `external_directory` approval.
fn outside_file() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("create a directory outside the project");
    let file = dir.path().join("outside.txt");
    std::fs::write(&file, "from outside\n").expect("write the outside file");
    let path = std::fs::canonicalize(&file).expect("canonicalize the outside file");
    (dir, path.display().to_string())
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?} failed: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test]
async fn the_context_holds_exactly_the_production_services_and_the_seed() {
    TestInstance::builder()
        .run(|t| async move {
            let mut expected: Vec<&str> = strata_registry::production()
                .nodes()
                .iter()
                .map(|n| n.key())
                .collect();
            expected.push("InstanceSeed");
            expected.sort_unstable();
            assert_eq!(t.context().keys(), expected);
            // The replaced flags point at the test's own directories, never the user's.
            let flags = t.get::<RuntimeFlags>();
            let root = t.dir().parent().expect("the project has a parent");
            let canonical = |p: &Path| std::fs::canonicalize(p).expect("canonicalize");
            assert_eq!(canonical(&flags.data_dir), root.join("data"));
            assert_eq!(canonical(&flags.config_dir), root.join("config"));
            // Every registered tool is initialised.
            let ids = t.get::<ToolRegistry>().ids();
            for id in ["invalid", "read", "glob", "grep"] {
                assert!(ids.contains(&id), "`{id}` missing from {ids:?}");
            }
        })
        .await;
}

#[tokio::test]
async fn the_project_is_a_real_canonical_directory_with_the_files() {
    TestInstance::builder()
        .file("src/lib.rs", "pub fn f() {}\n")
        .file("notes.txt", b"bytes")
        .run(|t| async move {
            assert!(t.dir().is_absolute());
            assert!(t.dir().is_dir());
            assert_eq!(std::fs::canonicalize(t.dir()).unwrap(), t.dir());
            assert_eq!(t.path("src/lib.rs"), t.dir().join("src/lib.rs"));
            assert_eq!(
                std::fs::read_to_string(t.path("src/lib.rs")).unwrap(),
                "pub fn f() {}\n"
            );
            assert_eq!(std::fs::read(t.path("notes.txt")).unwrap(), b"bytes");
            let info = t.get::<InstanceInfo>();
            assert_eq!(info.directory, t.dir());
            assert!(!t.dir().join(".git").exists(), "no repo unless git(true)");
        })
        .await;
}

#[tokio::test]
async fn the_project_directory_is_removed_after_the_test() {
    let kept = Arc::new(Mutex::new(None));
    let slot = kept.clone();
    TestInstance::builder()
        .run(|t| async move {
            *slot.lock().unwrap() = Some(t.dir().to_path_buf());
        })
        .await;
    let dir = kept.lock().unwrap().clone().expect("the body ran");
    // The temp root goes when the last handle does; `run` holds none after it returns.
    assert!(!dir.exists(), "{} is left behind", dir.display());
}

#[tokio::test]
async fn git_makes_a_repository_whose_worktree_is_the_project() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("a.txt", "a\n")
        .run(|t| async move {
            let info = t.get::<InstanceInfo>();
            assert_eq!(info.worktree, t.dir());
            assert_eq!(info.vcs, Some("git"));
            assert_eq!(
                Path::new(&git(t.dir(), &["rev-parse", "--show-toplevel"])),
                t.dir()
            );
            assert_eq!(git(t.dir(), &["rev-list", "--count", "HEAD"]), "1");
            assert_eq!(git(t.dir(), &["ls-files"]), "a.txt");
            assert_eq!(git(t.dir(), &["status", "--porcelain"]), "");
        })
        .await;
}

#[tokio::test]
async fn the_project_config_is_loaded_and_drives_the_rules() {
    TestInstance::builder()
        .config(json!({"model": "openai/gpt-5", "permission": {"bash": "deny"}}))
        .run(|t| async move {
            let config = t.get::<Config>();
            assert_eq!(config.model.as_deref(), Some("openai/gpt-5"));
            assert_eq!(config.files(), [t.path("strata.json")]);
            let err = t
                .call("bash", json!({"command": "echo never"}))
                .await
                .expect_err("bash is denied by the project config");
            assert!(
                matches!(err, ToolError::Permission(PermissionError::Denied { .. })),
                "{err:?}"
            );
            assert!(t.asked().is_empty(), "a deny never becomes an ask");
        })
        .await;
}

#[tokio::test]
async fn fs_util_writes_real_files() {
    TestInstance::builder()
        .run(|t| async move {
            let fs = t.get::<FsUtil>();
            let path = t.path("made/by/fs.txt");
            fs.write_atomic(&path, b"written through FsUtil")
                .await
                .unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"written through FsUtil");
            // And reads what something else wrote.
            std::fs::write(t.path("plain.txt"), "plain").unwrap();
            assert_eq!(fs.read(&t.path("plain.txt"), 1024).await.unwrap(), b"plain");
        })
        .await;
}

#[tokio::test]
async fn the_spawner_runs_real_processes() {
    TestInstance::builder()
        .run(|t| async move {
            let spawner = t.get::<ChildProcessSpawner>();
            let spec = CommandSpec::shell("/bin/sh", "pwd; echo $$; echo made > by-child.txt")
                .cwd(t.dir());
            let out = spawner.run(spec, LIMIT).await.unwrap();
            assert!(out.success(), "{out:?}");
            let stdout = out.stdout_text();
            let mut lines = stdout.lines();
            assert_eq!(lines.next().map(Path::new), Some(t.dir()));
            let pid: u32 = lines.next().unwrap().parse().unwrap();
            assert_ne!(pid, std::process::id(), "a separate process ran");
            assert_eq!(
                std::fs::read_to_string(t.path("by-child.txt")).unwrap(),
                "made\n"
            );
        })
        .await;
}

#[tokio::test]
async fn a_tool_asks_the_permission_service_the_test_resolves() {
    let (_outside, file) = outside_file();
    TestInstance::builder()
        .run(|t| async move {
            t.reply_mode(ReplyMode::Manual);
            let permission = t.get::<Permission>();
            let call = spawn_read(&t, &file);
            let pending = poll_with_timeout("the read's ask to be pending", LIMIT, || {
                let p = permission.pending();
                async move { (!p.is_empty()).then_some(p) }
            })
            .await;
            assert_eq!(pending.len(), 1);
            assert_eq!(pending[0].permission, "external_directory");
            let asked = t.wait_for_asks("external_directory", 1, LIMIT).await;
            assert_eq!(asked, pending, "the responder saw the same request");
            permission.reply(&pending[0].id, Reply::Once).unwrap();
            let result = await_with_timeout("the read", LIMIT, call).await.unwrap();
            assert!(result.unwrap().output.contains("1: from outside"));
            assert!(permission.pending().is_empty());
        })
        .await;
}

#[tokio::test]
async fn the_manual_clock_is_the_clock_services_see() {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    TestInstance::builder()
        .manual_clock(start)
        .run(|t| async move {
            let clock = t.get::<Clock>();
            assert_eq!(clock.now(), start);
            t.clock().advance(Duration::from_secs(90));
            assert_eq!(clock.now(), start + Duration::from_secs(90));
        })
        .await;
}

#[tokio::test]
async fn a_panicking_body_still_disposes_the_instance() {
    let (_outside, file) = outside_file();
    let call: Arc<Mutex<Option<ReadCall>>> = Arc::default();
    let permission: Arc<Mutex<Option<Permission>>> = Arc::default();
    let (call_slot, permission_slot) = (call.clone(), permission.clone());
    let outcome = AssertUnwindSafe(TestInstance::builder().run(|t| async move {
        t.reply_mode(ReplyMode::Manual);
        let p = t.get::<Permission>();
        *permission_slot.lock().unwrap() = Some(p.clone());
        *call_slot.lock().unwrap() = Some(spawn_read(&t, &file));
        poll_with_timeout("the read's ask to be pending", LIMIT, || {
            let n = p.pending().len();
            async move { (n == 1).then_some(()) }
        })
        .await;
        panic!("the body failed on purpose");
    }))
    .catch_unwind()
    .await;

    let panic = outcome.expect_err("run passes the body's panic on");
    assert_eq!(
        panic.downcast_ref::<&str>(),
        Some(&"the body failed on purpose")
    );
    // The Permission finalizer ran: the pending ask was rejected as disposed.
    let call = call.lock().unwrap().take().expect("the read was started");
    let result = await_with_timeout("the read to end", LIMIT, call)
        .await
        .unwrap();
    assert!(
        matches!(
            result,
            Err(ToolError::Permission(PermissionError::Disposed))
        ),
        "{result:?}"
    );
    let permission = permission.lock().unwrap().take().unwrap();
    assert!(permission.pending().is_empty());
}

#[tokio::test]
async fn a_finished_body_leaves_a_disposed_instance() {
    let (_outside, file) = outside_file();
    let kept = Arc::new(Mutex::new(None));
    let slot = kept.clone();
    TestInstance::builder()
        .run(|t| async move {
            *slot.lock().unwrap() = Some(t.clone());
        })
        .await;
    let t = kept.lock().unwrap().take().unwrap();
    // A disposed Permission refuses new asks instead of leaving them pending.
    t.reply_mode(ReplyMode::Manual);
    let result = await_with_timeout("a read after disposal", LIMIT, spawn_read(&t, &file))
        .await
        .unwrap();
    assert!(
        matches!(
            result,
            Err(ToolError::Permission(PermissionError::Disposed))
        ),
        "{result:?}"
    );
}

type ReadCall = JoinHandle<Result<ToolResult, ToolError>>;

/// A `read` of `file` running in the background.
fn spawn_read(t: &TestInstance, file: &str) -> ReadCall {
    let t = t.clone();
    let args = json!({ "filePath": file });
    tokio::spawn(async move { t.call("read", args).await })
}
