//! The Lsp service's protocol behaviour against the scripted language server
//! (`strata-fake-lsp`, a real process on every machine): diagnostics after open and change,
//! version labels, a restart after the server dies, and shutdown when the instance closes.
//! The same service against clangd is tested in `crates/services/tests/lsp_clangd.rs`.
//!
//! These tests live in the testkit because only this package's tests are sure to have the
//! server's binary built and current (`CARGO_BIN_EXE_strata-fake-lsp`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use strata_graph::Scope;
use strata_services::lsp::{Lsp, STALE_GRACE, ServerDef};
use strata_services::process::ChildProcessSpawner;
use strata_testkit::fake_lsp::{FakeLsp, Label, OnShutdown, Script};
use strata_testkit::{TestInstance, poll_with_timeout, process_ended};

const LIMIT: Duration = Duration::from_secs(20);
const BROKEN: &str = "one\nreturn missing;\n";
const FINE: &str = "one\nreturn 0;\n";

fn fake(script: Script) -> FakeLsp {
    FakeLsp::new(env!("CARGO_BIN_EXE_strata-fake-lsp"), script)
}

/// A project folder and an Lsp service whose only server is `server`, for `.fake` files.
fn service(server: &FakeLsp) -> (tempfile::TempDir, PathBuf, Lsp) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    let def = ServerDef {
        id: "fake".into(),
        extensions: vec!["fake".into()],
        command: server.command(),
        root_markers: Vec::new(),
    };
    let lsp = Lsp::new(
        project.clone(),
        ChildProcessSpawner::live(),
        vec![def],
        Scope::new(),
    );
    (dir, project, lsp)
}

async fn touch(lsp: &Lsp, file: &Path, text: &str, wait: bool) -> bool {
    std::fs::write(file, text).unwrap();
    lsp.touch_file(file, wait).await.unwrap()
}

/// The error lines (zero-based) the service holds for `file`.
async fn error_lines(lsp: &Lsp, file: &Path) -> Vec<u32> {
    let all = lsp.diagnostics().await;
    all.get(file)
        .map(|list| {
            list.iter()
                .filter(|d| d.is_error())
                .map(|d| d.range.start.line)
                .collect()
        })
        .unwrap_or_default()
}

async fn only_pid(lsp: &Lsp) -> u32 {
    let running = lsp.running().await;
    assert_eq!(running.len(), 1, "{running:?}");
    running[0].2
}

async fn wait_until_stopped(lsp: &Lsp, what: &str) {
    poll_with_timeout(what, LIMIT, || async move {
        lsp.running().await.is_empty().then_some(())
    })
    .await;
}

async fn wait_until_ended(pid: u32) {
    poll_with_timeout(&format!("process {pid} to end"), LIMIT, || async move {
        process_ended(pid).then_some(())
    })
    .await;
}

#[tokio::test]
async fn diagnostics_follow_open_and_change_with_or_without_versions() {
    for label in [Label::Current, Label::None] {
        let server = fake(Script {
            version: label,
            ..Script::default()
        });
        let (_keep, dir, lsp) = service(&server);
        let file = dir.join("main.fake");
        assert!(lsp.handles(&file));
        assert!(!lsp.handles(&dir.join("notes.txt")));

        assert!(touch(&lsp, &file, BROKEN, true).await);
        assert_eq!(error_lines(&lsp, &file).await, [1], "{label:?}");
        let pid = only_pid(&lsp).await;

        assert!(touch(&lsp, &file, FINE, true).await);
        assert_eq!(error_lines(&lsp, &file).await, [0u32; 0], "{label:?}");
        assert_eq!(only_pid(&lsp).await, pid, "the same server is reused");
        let versions: Vec<_> = server
            .log()
            .iter()
            .filter(|e| {
                e["method"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with("textDocument/did")
            })
            .map(|e| (e["method"].clone(), e["version"].clone()))
            .collect();
        assert_eq!(
            versions,
            [
                (json!("textDocument/didOpen"), json!(0)),
                (json!("textDocument/didChange"), json!(1))
            ]
        );
        lsp.shutdown().await;
    }
}

#[tokio::test]
async fn a_publish_labelled_with_an_older_version_is_taken_after_the_grace() {
    // Like clangd may: diagnostics of the newest text, labelled with the version first opened.
    let server = fake(Script {
        version: Label::Opened,
        ..Script::default()
    });
    let (_keep, dir, lsp) = service(&server);
    let file = dir.join("main.fake");
    assert!(touch(&lsp, &file, FINE, true).await);

    let start = Instant::now();
    assert!(touch(&lsp, &file, BROKEN, true).await);
    let waited = start.elapsed();
    assert!(
        waited >= STALE_GRACE,
        "the older label was taken after {waited:?}, before the grace of {STALE_GRACE:?}"
    );
    assert_eq!(error_lines(&lsp, &file).await, [1]);
    lsp.shutdown().await;
}

#[tokio::test]
async fn a_server_that_dies_is_started_again_once_then_given_up() {
    let server = fake(Script {
        crash_on: Some("CRASH".into()),
        ..Script::default()
    });
    let (_keep, dir, lsp) = service(&server);
    let file = dir.join("main.fake");

    assert!(touch(&lsp, &file, BROKEN, true).await);
    let first = only_pid(&lsp).await;
    assert!(touch(&lsp, &file, "CRASH\n", false).await);
    wait_until_stopped(&lsp, "the service to notice the first server stop").await;
    assert_eq!(server.events(first).last().unwrap(), "exit 3");

    // The next touch starts a new server, which is sent the file again.
    assert!(touch(&lsp, &file, BROKEN, true).await);
    let second = only_pid(&lsp).await;
    assert_ne!(first, second);
    assert_eq!(
        server.events(second),
        ["initialize", "initialized", "textDocument/didOpen"]
    );
    assert_eq!(error_lines(&lsp, &file).await, [1]);

    assert!(touch(&lsp, &file, "CRASH\n", false).await);
    wait_until_stopped(&lsp, "the service to notice the second server stop").await;
    // Once is enough: after a second stop the server is given up for this instance.
    assert!(!touch(&lsp, &file, BROKEN, true).await);
    assert!(lsp.running().await.is_empty());
    let why = lsp.broken("fake").await.unwrap();
    assert!(why.contains("stopped 2 times"), "{why}");
    lsp.shutdown().await;
}

/// Starts the scripted server in a test instance by writing a `.fake` file with errors, then
/// closes the instance. Returns the server's pid.
async fn run_and_close(server: &FakeLsp) -> u32 {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let record = seen.clone();
    TestInstance::builder()
        .config(json!({"lsp": {"fake": server.config(&["fake"])}}))
        .run(|t| async move {
            let r = t
                .call("write", json!({"filePath": "main.fake", "content": BROKEN}))
                .await
                .unwrap();
            assert!(r.output.contains("<diagnostics file="), "{}", r.output);
            assert!(r.output.contains("ERROR [2:8] "), "{}", r.output);
            let running = t.get::<Lsp>().running().await;
            assert_eq!(running.len(), 1, "{running:?}");
            *record.lock().unwrap() = Some(running[0].2);
        })
        .await;
    seen.lock().unwrap().expect("the server's pid")
}

#[tokio::test]
async fn closing_the_instance_asks_the_server_to_shut_down_and_exit() {
    let server = fake(Script::default());
    let pid = run_and_close(&server).await;
    wait_until_ended(pid).await;
    let events = server.events(pid);
    assert_eq!(
        events[events.len() - 3..],
        ["shutdown", "exit", "exit 0"],
        "{events:?}"
    );
}

#[tokio::test]
async fn a_server_that_ignores_shutdown_is_killed_when_the_instance_closes() {
    let server = fake(Script {
        shutdown: OnShutdown::Hang,
        ..Script::default()
    });
    let pid = run_and_close(&server).await;
    wait_until_ended(pid).await;
    // It never exits on its own, so it ended because it was killed.
    let events = server.events(pid);
    assert_eq!(events.last().unwrap(), "shutdown", "{events:?}");
}
