//! Starting the runtime and one instance for a command.

use std::path::PathBuf;

use strata_graph::{Consumer, Graph, Node, Tier};
use strata_registry::{Instance, Runtime};
use strata_services::flags::RuntimeFlags;

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

/// `graph` with `--sandbox MODE` applied: the environment's flags with the mode set, so it
/// wins over the config. Unchanged without the option.
pub(super) fn with_sandbox(mut graph: Graph, mode: Option<&str>) -> Graph {
    if let Some(mode) = mode {
        let mut flags = RuntimeFlags::from_env();
        flags.sandbox_mode = Some(mode.to_string());
        if let Err(e) = graph.replace::<RuntimeFlags>(Node::value(Tier::Global, flags)) {
            // Every production graph has the flags node; say so if one ever does not.
            eprintln!("strata: warning: --sandbox was not applied: {e}");
        }
    }
    graph
}
