//! The `bash` tool (spec §7): asks permission for what a command line would touch, runs it in
//! the user's shell in its own process group, streams its output to front-ends, and returns the
//! end of the output with a note on how the command ended.

use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use strata_services::background::BackgroundShells;
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::fs::{FileKind, FsUtil, to_slash};
use strata_services::instance::InstanceInfo;
use strata_services::permission::SANDBOX_ESCAPE;
use strata_services::process::sandbox::{Sandbox, Snapshot, restored_note};
use strata_services::process::{ChildProcessSpawner, CommandSpec, Outcome, ProcessError};
use strata_services::truncate::{Limits, Truncate};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::capture::{Capture, Captured, Saved};
use super::render::{Ending, model_output};
use super::scan::{external_globs, is_read_only};
use super::shell::Shell;
use super::view::scan_resolved;
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult};

/// Time limit when neither the call nor the runtime flag sets one (2 minutes).
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Added to the time limit before the timer fires, so a command that finishes right at its
/// limit is not reported as stopped.
const TIMER_SLACK: Duration = Duration::from_millis(100);
/// After the shell exits, how long to keep reading output still held open by a background
/// process before giving up on it.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashParams {
    /// The command line to run.
    pub command: String,
    /// Time limit in milliseconds; the command and everything it started are stopped when it
    /// runs longer.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub timeout: Option<i64>,
    /// Directory to run the command in, instead of `cd <dir> &&`. A relative path is taken
    /// from the project directory. Defaults to the project directory.
    pub workdir: Option<String>,
    /// Run this one command outside the sandbox, after the user approves it in a separate
    /// ask. Only for a command the sandbox refused (a write outside the writable paths, a
    /// protected file, the network); needs `justification`. Ignored when no sandbox is on.
    pub escape_sandbox: Option<bool>,
    /// Why the command must run outside the sandbox, shown to the user in the ask. Required
    /// when `escape_sandbox` is true.
    pub justification: Option<String>,
    /// Start the command and return at once with a shell id and its first output, leaving it
    /// running (a dev server, a watcher). Read its later output with `bash_output` and end it
    /// with `bash_kill`; `timeout` does not apply.
    pub run_in_background: Option<bool>,
    /// A short label for the command, shown as the call's title. Not advertised (spec §18 f);
    /// accepted because some models still send it.
    #[schemars(skip)]
    pub description: Option<String>,
}

/// The `bash` tool, bound to one instance's shell and services.
#[derive(Debug)]
pub struct Bash {
    info: InstanceInfo,
    fs: FsUtil,
    spawner: ChildProcessSpawner,
    truncate: Truncate,
    /// Config `tool_output`, the limits the Truncate layer applies to every other tool.
    limits: Limits,
    pub(super) shell: Shell,
    default_timeout_ms: u64,
    scratch_dir: PathBuf,
    /// The instance's sandbox; commands run inside it when it is enforced.
    pub(super) sandbox: Sandbox,
    /// Where `run_in_background` commands live.
    pub(super) background: BackgroundShells,
}

impl Bash {
    /// The call's `timeout`, or the default; zero or less is the model's mistake.
    fn timeout_ms(&self, timeout: Option<i64>) -> Result<u64, ToolError> {
        match timeout {
            None => Ok(self.default_timeout_ms),
            Some(ms) if ms > 0 => Ok(ms.unsigned_abs()),
            Some(ms) => Err(ToolError::model(format!(
                "`timeout` must be a positive number of milliseconds, but it was {ms}. Leave \
                     it out for the default of {} ms, or pass a larger value.",
                self.default_timeout_ms
            ))),
        }
    }

    /// The shell this tool runs commands in.
    pub fn shell(&self) -> &Shell {
        &self.shell
    }
}

impl Tool for Bash {
    const ID: &'static str = "bash";
    const EFFECTS: Effects = Effects {
        read_only: false,
        destructive: true,
        concurrency_safe: false,
        open_world: true,
    };
    type Params = BashParams;
    type Deps = (
        InstanceInfo,
        FsUtil,
        ChildProcessSpawner,
        Truncate,
        Config,
        RuntimeFlags,
        Sandbox,
        BackgroundShells,
    );

    /// A command the scan proves read-only (spec §7.5) reads like `read` does: it may run
    /// beside other safe calls and needs no undo point.
    fn effects_for(p: &BashParams) -> Effects {
        if is_read_only(&p.command) {
            Effects::READ_ONLY
        } else {
            Self::EFFECTS
        }
    }

    fn init((info, fs, spawner, truncate, config, flags, sandbox, background): Self::Deps) -> Self {
        Bash {
            sandbox,
            background,
            shell: Shell::detect(config.shell.as_deref(), &|p| fs.is_executable(p)),
            default_timeout_ms: flags.bash_default_timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
            scratch_dir: flags.temp_dir.join("strata"),
            limits: Limits::new(config.tool_output.max_lines, config.tool_output.max_bytes),
            info,
            fs,
            spawner,
            truncate,
        }
    }

    fn description(&self) -> String {
        include_str!("description.md")
            .replace("{shell}", &self.shell.name)
            .replace("{shell_path}", &self.shell.path.display().to_string())
            .replace("{os}", std::env::consts::OS)
            .replace("{directory}", &self.info.directory.display().to_string())
            .replace("{scratch}", &self.scratch_dir.display().to_string())
            .replace("{timeout_ms}", &self.default_timeout_ms.to_string())
            .replace("{max_lines}", &self.limits.max_lines.to_string())
            .replace("{max_bytes}", &self.limits.max_bytes.to_string())
            .replace("{max_background}", &self.background.max().to_string())
    }

    async fn execute(&self, p: BashParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        let admitted = self.admit(&p, &cx).await?;
        if p.run_in_background == Some(true) {
            return self.run_background(p, admitted, &cx).await;
        }
        Ok(self.run_admitted(p, admitted, &cx).await?.result)
    }
}

/// A call that passed its checks and its asks: where it runs, for how long, and the
/// justification when it runs outside the sandbox.
#[derive(Debug)]
pub(crate) struct Admitted {
    timeout_ms: u64,
    pub(super) cwd: PathBuf,
    pub(super) escape: Option<String>,
}

/// A command that ran: the result the model sees and how the command ended.
#[derive(Debug)]
pub(crate) struct Ran {
    pub result: ToolResult,
    pub ending: Ending,
}

impl Bash {
    /// Checks the call (timeout, working directory, sandbox escape) and asks its permissions;
    /// nothing runs yet. `transaction` asks for its check with this before it writes.
    pub(crate) async fn admit(&self, p: &BashParams, cx: &ToolCx) -> Result<Admitted, ToolError> {
        let timeout_ms = self.timeout_ms(p.timeout)?;
        let cwd = match &p.workdir {
            Some(dir) => self.info.resolve(dir),
            None => self.info.directory.clone(),
        };
        self.check_workdir(&cwd).await?;
        let escape = self.escape(p)?;
        self.ask(&p.command, &cwd, escape.as_deref(), cx).await?;
        Ok(Admitted {
            timeout_ms,
            cwd,
            escape,
        })
    }

    /// Runs an admitted call in the sandbox with its time limit and output cap, streaming its
    /// output as metadata.
    pub(crate) async fn run_admitted(
        &self,
        p: BashParams,
        admitted: Admitted,
        cx: &ToolCx,
    ) -> Result<Ran, ToolError> {
        let Admitted {
            timeout_ms,
            cwd,
            escape,
        } = admitted;
        // The description promises this scratch directory; failing to make it is not fatal.
        if let Err(e) = self.fs.create_dir_all(&self.scratch_dir).await {
            tracing::debug!(error = %e, "could not create the bash scratch directory");
        }

        let description = p.description.filter(|d| !d.trim().is_empty());
        let running = |output: String| {
            let mut m = Map::new();
            m.insert("output".into(), Value::String(output));
            if let Some(d) = &description {
                m.insert("description".into(), Value::String(d.clone()));
            }
            m
        };
        cx.metadata(None, running(String::new()));
        // Cancelled while asking: nothing has run yet, so nothing should.
        if cx.abort.is_cancelled() {
            return Err(ToolError::Cancelled);
        }

        let spec = CommandSpec::shell(&self.shell.path, &p.command).cwd(&cwd);
        let (spec, protected) = self.place(spec, escape.is_some(), &cx.session_id);
        let mut capture = Capture::new(self.truncate.clone(), self.limits);
        let outcome = run(
            &self.spawner,
            spec,
            timer_for(timeout_ms),
            cx.abort.clone(),
            &mut capture,
            |c| cx.metadata(None, running(c.preview())),
        )
        .await
        .map_err(|e| match e {
            ProcessError::CwdMissing { cwd, .. } => missing_workdir(&cwd),
            other => ToolError::model(other.to_string()),
        })?;
        let ending = ending_of(outcome, timeout_ms);
        let captured = capture.finish();
        let mut output = model_output(&captured, ending);
        if escape.is_none() {
            let restored = protected.map(|snap| snap.restore()).unwrap_or_default();
            for note in sandbox_notes(&self.sandbox, &captured.tail, ending, &restored) {
                output.push_str("\n\n");
                output.push_str(&note);
            }
        }
        let Captured {
            cut,
            saved,
            preview,
            ..
        } = captured;
        let title = description.clone().unwrap_or_else(|| p.command.clone());
        let mut result = ToolResult::new(title, output)
            .meta("output", preview)
            .meta("exit", ending.exit_code())
            .meta("truncated", cut);
        if let Saved::File(path) = saved {
            result = result.meta("outputPath", to_slash(&path));
        }
        if let Some(d) = description {
            result = result.meta("description", d);
        }
        if escape.is_some() {
            result = result.meta("escapedSandbox", true);
        }
        Ok(Ran { result, ending })
    }
}

impl Bash {
    /// Puts `spec` in the sandbox with a snapshot of the protected files, unless the call
    /// was approved to run outside it (`escaped`).
    fn place(
        &self,
        spec: CommandSpec,
        escaped: bool,
        session: &str,
    ) -> (CommandSpec, Option<Snapshot>) {
        if escaped {
            return (spec, None);
        }
        (self.sandbox.command(spec, session), self.sandbox.protect())
    }

    async fn check_workdir(&self, cwd: &Path) -> Result<(), ToolError> {
        match self.fs.stat(cwd).await {
            Ok(Some(m)) if m.kind == FileKind::Dir => Ok(()),
            Ok(Some(_)) => Err(ToolError::model(format!(
                "The working directory {} is a file, not a directory. Set `workdir` to an \
                 existing directory, or leave it out to run in the project directory.",
                cwd.display()
            ))),
            Ok(None) => Err(missing_workdir(cwd)),
            Err(e) => Err(e.into()),
        }
    }

    /// The justification when this call runs outside the sandbox: `escape_sandbox` is set and
    /// a sandbox is enforced (without one there is nothing to escape, and nothing is asked).
    fn escape(&self, p: &BashParams) -> Result<Option<String>, ToolError> {
        if p.escape_sandbox != Some(true) || self.sandbox.policy().is_none() {
            return Ok(None);
        }
        match p.justification.as_deref().map(str::trim) {
            Some(why) if !why.is_empty() => Ok(Some(why.to_string())),
            _ => Err(ToolError::model(
                "`escape_sandbox` needs a `justification`: say in one sentence why this command \
                 must run outside the sandbox, so the user can decide. Or leave \
                 `escape_sandbox` out to run it inside.",
            )),
        }
    }

    /// Spec §7.4 step 7: outside directories first, then the commands, before anything runs.
    /// A command that escapes the sandbox (`justification` given) is not held by it, so its
    /// command ask is never auto-allowed, and it asks `sandbox_escape` last.
    async fn ask(
        &self,
        command: &str,
        cwd: &Path,
        escape: Option<&str>,
        cx: &ToolCx,
    ) -> Result<(), ToolError> {
        let scan = scan_resolved(command, cwd, &self.info, &self.fs).await;
        if !scan.external_dirs.is_empty() {
            let globs = external_globs(&scan.external_dirs);
            let directories: Vec<String> = scan.external_dirs.iter().map(|d| to_slash(d)).collect();
            cx.ask(
                Ask::new("external_directory", globs.clone(), globs.clone()).metadata(json!({
                    "command": command,
                    "directories": directories,
                    "patterns": globs,
                })),
            )
            .await?;
        }
        if !scan.patterns.is_empty() {
            cx.ask(
                // Only the command ask: the sandbox holds writes, not reads, so reading
                // outside the project still asks.
                Ask::new(Self::PERMISSION, scan.patterns, scan.always)
                    .metadata(json!({ "command": command }))
                    .sandboxed(self.sandbox.auto_allow() && escape.is_none()),
            )
            .await?;
        }
        if let Some(justification) = escape {
            let pattern = vec![command.trim().to_string()];
            cx.ask(
                Ask::new(SANDBOX_ESCAPE, pattern.clone(), pattern).metadata(json!({
                    "title": format!("Run outside the sandbox: {}", command.trim()),
                    "command": command,
                    "escapesSandbox": true,
                    "justification": justification,
                })),
            )
            .await?;
        }
        Ok(())
    }
}

/// The sandbox's lines for the model: protected files put back, and for a failed command,
/// what the sandbox refused and the setting that would allow it.
fn sandbox_notes(
    sandbox: &Sandbox,
    output: &str,
    ending: Ending,
    restored: &[PathBuf],
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(note) = restored_note(restored) {
        notes.push(note);
    }
    let failed = !matches!(ending, Ending::Exited(Some(0)));
    if failed && let Some(hint) = sandbox.hint(output) {
        notes.push(hint);
    }
    notes
}

pub(super) fn missing_workdir(cwd: &Path) -> ToolError {
    ToolError::model(format!(
        "The working directory {} does not exist. Set `workdir` to an existing directory, or \
         leave it out to run in the project directory.",
        cwd.display()
    ))
}

/// How the command ended, for the model's output.
fn ending_of(outcome: Outcome, timeout_ms: u64) -> Ending {
    match outcome {
        Outcome::Exited { code } => Ending::Exited(code),
        Outcome::TimedOut => Ending::TimedOut(timeout_ms),
        Outcome::Cancelled => Ending::Aborted,
    }
}

/// The timer for a limit of `ms`: slightly longer than the limit, saturating for huge values
/// (tokio caps deadlines far in the future on its own).
fn timer_for(ms: u64) -> Duration {
    Duration::from_millis(ms).saturating_add(TIMER_SLACK)
}

/// Spawns the command and feeds its output to `capture` until it ends and its pipes close
/// (or [`DRAIN_GRACE`] after it ended). `on_chunk` runs after every chunk.
async fn run(
    spawner: &ChildProcessSpawner,
    spec: CommandSpec,
    timer: Duration,
    abort: CancellationToken,
    capture: &mut Capture,
    mut on_chunk: impl FnMut(&Capture),
) -> Result<Outcome, ProcessError> {
    let mut child = spawner.spawn(spec).await?;
    let mut output = child.output();
    let mut open = true;
    let outcome = {
        let wait = child.wait(Some(timer), abort);
        tokio::pin!(wait);
        loop {
            tokio::select! {
                chunk = output.recv(), if open => match chunk {
                    Some(chunk) => {
                        capture.push(&chunk.data);
                        on_chunk(capture);
                    }
                    None => open = false,
                },
                outcome = &mut wait => break outcome?,
            }
        }
    };
    let deadline = Instant::now() + DRAIN_GRACE;
    while open {
        tokio::select! {
            chunk = output.recv() => match chunk {
                Some(chunk) => {
                    capture.push(&chunk.data);
                    on_chunk(capture);
                }
                None => open = false,
            },
            () = tokio::time::sleep_until(deadline) => break,
        }
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::schema::{MAX_SAFE_INTEGER, wire_schema};

    #[test]
    fn schema_matches_the_reference_shape() {
        let s = wire_schema::<BashParams>();
        let keys: Vec<_> = s["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            keys,
            [
                "command",
                "timeout",
                "workdir",
                "escape_sandbox",
                "justification",
                "run_in_background"
            ],
            "description is not advertised"
        );
        assert_eq!(s["properties"]["escape_sandbox"]["type"], "boolean");
        assert_eq!(s["required"], json!(["command"]));
        let t = &s["properties"]["timeout"];
        assert_eq!(t["type"], "integer");
        assert_eq!(t["exclusiveMinimum"], 0);
        assert_eq!(t["minimum"], -MAX_SAFE_INTEGER);
        assert_eq!(t["maximum"], MAX_SAFE_INTEGER);
    }

    #[test]
    fn description_is_decoded_though_not_advertised() {
        let p: BashParams = serde_json::from_value(
            json!({"command": "ls", "description": "List", "timeout": null}),
        )
        .unwrap();
        assert_eq!(p.description.as_deref(), Some("List"));
        assert_eq!(p.timeout, None);
    }

    #[test]
    fn timer_saturates() {
        assert_eq!(timer_for(500), Duration::from_millis(600));
        assert!(timer_for(u64::MAX) >= Duration::from_millis(u64::MAX));
    }
}
