//! Helpers shared by the `edit`, `write` and `apply_patch` test files: reading a file first
//! (spec §18 a), looking at files and events. Redaction and raw calls live in the testkit.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};
use strata_services::bus::{Bus, FileWatcher, WatchKind};
use strata_testkit::TestInstance;
use strata_tools::{ToolError, ToolResult};
use tokio::sync::broadcast::Receiver;

/// Config that makes every `edit`-family call ask, so the test can see the request.
pub(crate) fn ask_edits() -> Value {
    json!({"permission": {"edit": "ask"}})
}

/// Reads `rel` with the `read` tool in the test session, so it may be edited afterwards.
pub(crate) async fn read_first(t: &TestInstance, rel: &str) {
    t.call("read", json!({"filePath": rel}))
        .await
        .unwrap_or_else(|e| panic!("read {rel} before editing it: {e}"));
}

/// The file's content as text.
pub(crate) fn text(t: &TestInstance, rel: &str) -> String {
    std::fs::read_to_string(t.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// The file's bytes.
pub(crate) fn bytes(t: &TestInstance, rel: &str) -> Vec<u8> {
    std::fs::read(t.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// Permission bits of a path.
pub(crate) fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

pub(crate) fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The mode a brand-new file gets from `0666` under this process's umask.
pub(crate) fn new_file_mode() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let umask = status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        .unwrap_or(0o022);
    0o666 & !umask
}

/// The message of a model-facing error; panics on success or on another kind of error.
pub(crate) fn model_error(r: Result<ToolResult, ToolError>) -> String {
    match r {
        Err(ToolError::Model(m)) => m,
        Err(other) => panic!("expected a model-facing error, got {other:?}"),
        Ok(ok) => panic!("expected an error, got success: {}", ok.output),
    }
}

/// Asserts `msg` mentions every one of `needles`.
pub(crate) fn assert_mentions(msg: &str, needles: &[&str]) {
    for n in needles {
        assert!(msg.contains(n), "`{n}` missing from: {msg}");
    }
}

/// A receiver of watcher events; subscribe before the call.
pub(crate) fn watch(t: &TestInstance) -> Receiver<FileWatcher> {
    t.get::<Bus>().subscribe::<FileWatcher>()
}

/// Every watcher event already published (the tools publish before they return).
pub(crate) fn drain(rx: &mut Receiver<FileWatcher>) -> Vec<(std::path::PathBuf, WatchKind)> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        out.push((e.path, e.kind));
    }
    out
}

/// Names in `dir` that look like leftovers of an atomic write (hidden `*.tmp` files).
pub(crate) fn temp_leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") || (n.starts_with('.') && n.contains(".tmp")))
        .collect()
}

/// A whole patch from its section lines.
pub(crate) fn patch(lines: &[&str]) -> String {
    let mut p = String::from("*** Begin Patch\n");
    for l in lines {
        p.push_str(l);
        p.push('\n');
    }
    p.push_str("*** End Patch");
    p
}
