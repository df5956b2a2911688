//! The Lsp service against a real language server (clangd, installed by `.ci/run`; skipped
//! when missing): started on demand, diagnostics after a change, servers that are missing or
//! broken, and shutdown.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use strata_graph::Scope;
use strata_services::lsp::servers::{builtin, configure};
use strata_services::lsp::{Lsp, LspError};
use strata_services::process::ChildProcessSpawner;
use strata_testkit::{poll_within, process_ended, require_external};

fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    (dir, real)
}

fn lsp(project: &Path, config: Option<serde_json::Value>) -> Lsp {
    let defs = configure(builtin(), config.as_ref()).unwrap();
    Lsp::new(
        project.to_path_buf(),
        ChildProcessSpawner::live(),
        defs,
        Scope::new(),
    )
}

/// Whether process `pid` ends (or becomes a zombie) within 10 s.
async fn gone(pid: u32) -> bool {
    poll_within(Duration::from_secs(10), || async move {
        process_ended(pid).then_some(())
    })
    .await
    .is_some()
}

/// Waits until the service no longer lists a running server. A killed server's threads can
/// take a moment to exit after its main thread shows as a zombie.
async fn noticed_stop(lsp: &Lsp) -> bool {
    poll_within(Duration::from_secs(10), || async {
        lsp.running().await.is_empty().then_some(())
    })
    .await
    .is_some()
}

#[tokio::test]
async fn clangd_reports_an_error_then_clears_it_and_stops_with_the_service() {
    require_external!("clangd", "apt-get install clangd");
    let (_keep, dir) = project();
    let file = dir.join("main.c");
    std::fs::write(&file, "int main(void) {\n  return missing;\n}\n").unwrap();
    let lsp = lsp(&dir, None);
    assert!(lsp.handles(&file));

    assert!(lsp.touch_file(&file, true).await.unwrap());
    let running = lsp.running().await;
    assert_eq!(running.len(), 1, "{running:?}");
    assert_eq!(
        (running[0].0.as_str(), running[0].1.as_path()),
        ("clangd", dir.as_path())
    );
    let all = lsp.diagnostics().await;
    let errors: Vec<_> = all[&file].iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{all:?}");
    assert_eq!(errors[0].range.start.line, 1);
    assert!(
        errors[0].message.contains("missing"),
        "{}",
        errors[0].message
    );

    std::fs::write(&file, "int main(void) {\n  return 0;\n}\n").unwrap();
    assert!(lsp.touch_file(&file, true).await.unwrap());
    let all = lsp.diagnostics().await;
    assert!(all[&file].iter().all(|d| !d.is_error()), "{all:?}");
    assert_eq!(lsp.running().await.len(), 1, "the same server is reused");

    let pid = running[0].2;
    lsp.shutdown().await;
    assert!(gone(pid).await, "clangd {pid} outlived the service");
    assert!(lsp.running().await.is_empty());
}

#[tokio::test]
async fn files_no_installed_server_handles_are_left_alone() {
    let (_keep, dir) = project();
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "text").unwrap();
    let script = dir.join("x.zz");
    std::fs::write(&script, "x").unwrap();
    let lsp = lsp(
        &dir,
        Some(json!({"zz": {"command": ["no-such-language-server-xyz"], "extensions": ["zz"]}})),
    );
    assert!(!lsp.handles(&notes) && !lsp.handles(&script));
    assert!(!lsp.touch_file(&notes, true).await.unwrap());
    assert!(!lsp.touch_file(&script, true).await.unwrap());
    assert!(lsp.running().await.is_empty());
}

#[tokio::test]
async fn a_server_that_exits_at_once_is_given_up_for_the_instance() {
    let (_keep, dir) = project();
    let file = dir.join("a.zz");
    std::fs::write(&file, "x").unwrap();
    let lsp = lsp(
        &dir,
        Some(json!({"quitter": {"command": ["/bin/true"], "extensions": ["zz"]}})),
    );
    let err = lsp.touch_file(&file, true).await.unwrap_err();
    assert!(
        matches!(err, LspError::Closed { .. } | LspError::Server { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("`quitter`"), "{err}");
    assert!(lsp.broken("quitter").await.is_some());
    // Not started again: the file is simply not handled now.
    assert!(!lsp.touch_file(&file, true).await.unwrap());
}

#[tokio::test]
async fn a_server_that_dies_is_started_again_once() {
    require_external!("clangd", "apt-get install clangd");
    require_external!("kill", "apt-get install procps");
    let (_keep, dir) = project();
    let file = dir.join("main.c");
    std::fs::write(&file, "int main(void) {\n  return missing;\n}\n").unwrap();
    let lsp = lsp(&dir, None);
    let kill = |pid: u32| {
        let status = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    };
    let pid_of = |running: Vec<(String, std::path::PathBuf, u32)>| running[0].2;

    assert!(lsp.touch_file(&file, true).await.unwrap());
    let first = pid_of(lsp.running().await);
    kill(first);
    assert!(
        noticed_stop(&lsp).await,
        "the service did not notice {first} stop"
    );
    // The next touch starts a new server, which reports the file's error again.
    assert!(lsp.touch_file(&file, true).await.unwrap());
    let second = pid_of(lsp.running().await);
    assert_ne!(first, second);
    assert!(lsp.diagnostics().await[&file].iter().any(|d| d.is_error()));

    kill(second);
    assert!(
        noticed_stop(&lsp).await,
        "the service did not notice {second} stop"
    );
    // Once is enough: after a second stop the server is given up for this instance.
    assert!(!lsp.touch_file(&file, true).await.unwrap());
    assert!(lsp.running().await.is_empty());
    assert!(
        lsp.broken("clangd")
            .await
            .unwrap()
            .contains("stopped 2 times")
    );
    lsp.shutdown().await;
}

#[tokio::test]
async fn warm_starts_only_the_server_a_file_needs_in_the_background() {
    require_external!("clangd", "apt-get install clangd");
    let (_keep, dir) = project();
    let file = dir.join("main.c");
    std::fs::write(&file, "int main(void) { return 0; }\n").unwrap();
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "text\n").unwrap();
    let scope = Scope::new();
    let lsp = Lsp::new(
        dir.clone(),
        ChildProcessSpawner::live(),
        builtin(),
        scope.clone(),
    );
    lsp.warm(&notes);
    lsp.warm(&file);
    poll_within(Duration::from_secs(20), || async {
        (!lsp.running().await.is_empty()).then_some(())
    })
    .await;
    let running = lsp.running().await;
    assert_eq!(
        running.len(),
        1,
        "only the C file has a server: {running:?}"
    );
    scope.close().await;
    lsp.shutdown().await;
    assert!(gone(running[0].2).await);
}
