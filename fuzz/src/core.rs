//! A server core over temporary folders (project, data, config, home), shared by the targets
//! that drive one of its front-ends (the HTTP router, the ACP agent). Its model provider is a
//! closed local port, so nothing a fuzzed input starts can reach the network.

use std::path::{Path, PathBuf};

use serde_json::json;
use strata_graph::{Node, Tier};
use strata_server::{CoreOptions, ServerCore};
use strata_services::flags::RuntimeFlags;

/// A fixture that cannot start is a broken harness, not a finding: say which part failed.
pub fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    panic!("the fuzz server could not start: {what}: {e}")
}

/// The runtime a fixture lives on: one worker, timers and I/O on.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail("runtime", e))
}

/// Starts a core whose folders live under `root`; returns it and its project folder.
pub async fn start(root: &Path) -> (ServerCore, PathBuf) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dirs = ["project", "data", "config", "home"].map(|d| root.join(d));
    for d in &dirs {
        std::fs::create_dir_all(d).unwrap_or_else(|e| fail("folders", e));
    }
    let project = std::fs::canonicalize(&dirs[0]).unwrap_or_else(|e| fail("project", e));
    let config = json!({"model": "openai/fuzz-model",
                        "provider": {"openai": {"baseURL": "http://127.0.0.1:9/v1"}}});
    std::fs::write(project.join("strata.json"), config.to_string())
        .unwrap_or_else(|e| fail("config", e));
    let mut flags = RuntimeFlags::for_dirs(&dirs[1], &dirs[2]);
    flags.home_dir = dirs[3].clone();
    let mut graph = strata_agent::production();
    graph
        .replace::<RuntimeFlags>(Node::value(Tier::Global, flags))
        .unwrap_or_else(|e| fail("flags", e));
    let core = ServerCore::start(CoreOptions {
        default_dir: project.clone(),
        graph,
    })
    .await
    .unwrap_or_else(|e| fail("core", e));
    (core, project)
}
