//! Starting the runtime and one instance for a command.

use std::path::PathBuf;

use strata_graph::{Consumer, Graph};
use strata_registry::{Instance, Runtime};

/// The project directory: `--dir`, else the current directory.
pub(super) fn project_dir(dir: Option<PathBuf>) -> Result<PathBuf, String> {
    match dir {
        Some(d) => Ok(d),
        None => std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory ({e}); pass --dir")),
    }
}

/// The production runtime and an instance for `dir`, or a message saying what failed.
pub(super) async fn open(dir: Option<PathBuf>) -> Result<(Runtime, Instance), String> {
    // The agent's graph: the surface it describes (e.g. `task`'s subagents) is the one a run sees.
    open_with(dir, strata_agent::production(), &super::consumers::all()).await
}

/// Like [`open`], on a production graph the command has adjusted, validated for the commands
/// that use it.
pub(super) async fn open_with(
    dir: Option<PathBuf>,
    graph: Graph,
    consumers: &[Consumer],
) -> Result<(Runtime, Instance), String> {
    let dir = project_dir(dir)?;
    let runtime = Runtime::start_for(graph, consumers)
        .await
        .map_err(|e| e.to_string())?;
    let instance = runtime.instance(&dir).await.map_err(|e| e.to_string())?;
    Ok((runtime, instance))
}

/// Disposes the instance, then the runtime.
pub(super) async fn close(runtime: Runtime, instance: Instance) {
    instance.dispose().await;
    runtime.shutdown().await;
}
