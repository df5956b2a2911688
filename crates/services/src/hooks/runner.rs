//! Runs one hook command: `sh -c COMMAND` in the project directory, the JSON object on stdin,
//! `CLAUDE_PROJECT_DIR` and `STRATA_PROJECT_DIR` set, stopped at its timeout. Hooks are the
//! user's own commands, so they run outside the sandbox, as the user.

use std::path::Path;

use serde_json::Value;

use super::HookCommand;
use super::outcome::RunResult;
use crate::process::{ChildProcessSpawner, CommandSpec, ProcessError};

/// The shell's exit code for a command it could not find.
const NOT_FOUND: i32 = 127;

/// Runs `hook` with `payload` on stdin and says how it ended; never fails.
pub async fn run_hook(
    spawner: &ChildProcessSpawner,
    hook: &HookCommand,
    payload: &Value,
    project: &Path,
) -> RunResult {
    let spec = CommandSpec::shell("/bin/sh", &hook.command)
        .cwd(project)
        .env("CLAUDE_PROJECT_DIR", project)
        .env("STRATA_PROJECT_DIR", project);
    let input = payload.to_string().into_bytes();
    match spawner
        .run_with_input(spec, Some(input), hook.timeout)
        .await
    {
        Ok(out) => RunResult {
            code: out.code,
            missing: out.code == Some(NOT_FOUND),
            stdout: out.stdout_text(),
            stderr: out.stderr_text(),
            timed_out: None,
        },
        Err(ProcessError::TimedOut { timeout, .. }) => RunResult {
            timed_out: Some(timeout),
            ..RunResult::default()
        },
        Err(e) => RunResult {
            missing: true,
            stderr: e.to_string(),
            ..RunResult::default()
        },
    }
}
