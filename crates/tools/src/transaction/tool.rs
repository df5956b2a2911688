//! The `transaction` tool itself (spec §20): plan every edit, ask once with the combined diff
//! (and once for the check), write, run the check through the bash tool's path, and roll back
//! byte for byte when a write or the check fails.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use strata_services::background::BackgroundShells;
use strata_services::bus::{Bus, WatchKind};
use strata_services::config::Config;
use strata_services::file_time::FileTime;
use strata_services::flags::RuntimeFlags;
use strata_services::format::Formatter;
use strata_services::fs::{FileKind, FsUtil};
use strata_services::instance::InstanceInfo;
use strata_services::lsp::Lsp;
use strata_services::process::ChildProcessSpawner;
use strata_services::process::sandbox::Sandbox;
use strata_services::truncate::Truncate;
use tokio::sync::OwnedMutexGuard;

use super::apply::{Undo, write_all};
use super::plan::{FileChange, Step, apply_all};
use super::report::{self, Listed};
use crate::bash::{Bash, BashParams, Ending};
use crate::common::approval::{Approval, FileStates, Plan};
use crate::common::external::{self, Kind};
use crate::common::filewrite::Writer;
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};
use crate::diff::{line_counts, unified_diff};
use crate::edit::EditParams;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TransactionParams {
    /// The edits, applied in order; each has the shape of an `edit` call. A later edit sees
    /// what the earlier ones did to the same file.
    pub edits: Vec<EditParams>,
    /// A shell command run once every edit is written, such as a build or a test run. When it
    /// exits with a code other than 0 or runs out of time, every edited file is put back.
    pub check: Option<String>,
    /// Time limit of the check in milliseconds.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub timeout: Option<i64>,
}

#[derive(Debug)]
pub struct Transaction {
    w: Writer,
    bash: Bash,
}

/// The files of one call: each edit's path (one spelling per file), the distinct files in the
/// order first named, and the locks that keep other changes out until the call ends.
struct Targets {
    per_edit: Vec<PathBuf>,
    files: Vec<PathBuf>,
    _locks: Vec<OwnedMutexGuard<()>>,
}

/// What an approved plan writes: the changes, their combined diff, and each file's entry.
type Planned = (Vec<FileChange>, String, Vec<Value>);

impl Tool for Transaction {
    const ID: &'static str = "transaction";
    const PERMISSION: &'static str = "edit";
    const VISIBILITY: Visibility = Visibility::EditSurfaceSwitch("transaction");
    // Runs a command when it has a check: as open to the world as `bash`.
    const EFFECTS: Effects = Effects {
        open_world: true,
        ..Effects::WRITES
    };
    type Params = TransactionParams;
    type Deps = (
        InstanceInfo,
        FsUtil,
        FileTime,
        Bus,
        Lsp,
        Formatter,
        ChildProcessSpawner,
        Truncate,
        Config,
        RuntimeFlags,
        Sandbox,
        BackgroundShells,
    );

    fn init(deps: Self::Deps) -> Self {
        let (
            info,
            fs,
            file_time,
            bus,
            lsp,
            formatter,
            spawner,
            truncate,
            config,
            flags,
            sandbox,
            background,
        ) = deps;
        let bash = <Bash as Tool>::init((
            info.clone(),
            fs.clone(),
            spawner,
            truncate,
            config,
            flags,
            sandbox,
            background,
        ));
        Transaction {
            w: Writer::new((info, fs, file_time, bus, lsp, formatter)),
            bash,
        }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: TransactionParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        validate(&p)?;
        let targets = self.open(&cx, &p.edits).await?;
        let mut approval = Approval::new(input_json(&p));
        let (changes, diff, files) = loop {
            let fresh = approval.stale().is_none();
            let plan = self.plan(&cx, &p, &targets, fresh).await?;
            if let Some(planned) = approval.settle(&self.w, &cx, plan).await? {
                break planned;
            }
        };
        let check = match &p.check {
            Some(command) => {
                let params = check_params(command, p.timeout);
                let admitted = self.bash.admit(&params, &cx).await?;
                Some((params, admitted))
            }
            None => None,
        };
        let undo = match write_all(&self.w, &changes).await {
            Ok(undo) => undo,
            Err(failure) => {
                let rollback = self.roll_back(&cx, &failure.undo, &changes, false).await;
                return Err(ToolError::model(format!(
                    "The edits could not be written: {}. {rollback}",
                    failure.error
                )));
            }
        };
        for c in &changes {
            self.w.after_write(&cx, &c.path, kind_of(c)).await;
        }
        let mut check_meta = None;
        let mut check_output = None;
        if let Some((params, admitted)) = check {
            let command = params.command.clone();
            let ran = self.bash.run_admitted(params, admitted, &cx).await;
            let ran = match ran {
                Ok(ran) => ran,
                Err(e) => {
                    let rollback = self.roll_back(&cx, &undo, &changes, false).await;
                    return Err(match e {
                        ToolError::Cancelled => ToolError::Cancelled,
                        e => ToolError::model(format!(
                            "The check `{command}` could not be run: {e} {rollback}"
                        )),
                    });
                }
            };
            if !report::passed(ran.ending) {
                let rollback = self.roll_back(&cx, &undo, &changes, true).await;
                if ran.ending == Ending::Aborted {
                    return Err(ToolError::Cancelled);
                }
                let msg = report::check_failed(&command, ran.ending, &rollback, &ran.result.output);
                return Err(ToolError::model(msg));
            }
            check_meta = Some(json!({"command": command, "exit": ran.ending.exit_code(),
                                     "output": ran.result.metadata.get("output")}));
            check_output = Some((command, ran.result.output));
        }
        self.finish(&p, &changes, diff, files, check_meta, check_output)
            .await
    }
}

impl Transaction {
    /// Resolves every edit's path, applies the external-directory rule to each file, and locks
    /// the files by their real paths (sorted, so two calls cannot wait on each other).
    async fn open(&self, cx: &ToolCx, edits: &[EditParams]) -> Result<Targets, ToolError> {
        let mut per_edit = Vec::with_capacity(edits.len());
        let mut files: Vec<(PathBuf, PathBuf)> = Vec::new();
        for e in edits {
            let path = self.w.info.resolve(&e.file_path);
            let real = self.w.fs.resolve_real(&path).await;
            if let Some((first, _)) = files.iter().find(|(_, r)| *r == real) {
                per_edit.push(first.clone());
                continue;
            }
            external::check(cx, &self.w.info, &self.w.fs, &path, Kind::File).await?;
            per_edit.push(path.clone());
            files.push((path, real));
        }
        let mut reals: Vec<PathBuf> = files.iter().map(|(_, r)| r.clone()).collect();
        reals.sort();
        let mut locks = Vec::with_capacity(reals.len());
        for real in reals {
            locks.push(self.w.file_time.lock(&real).await);
        }
        Ok(Targets {
            per_edit,
            files: files.into_iter().map(|(p, _)| p).collect(),
            _locks: locks,
        })
    }

    /// One attempt: reads the files, works out every edit in memory, checks that the session
    /// has read the files it changes (on the first attempt), and builds the one ask.
    async fn plan(
        &self,
        cx: &ToolCx,
        p: &TransactionParams,
        targets: &Targets,
        fresh_check: bool,
    ) -> Result<Plan<Planned>, ToolError> {
        let mut found: FileStates = Vec::with_capacity(targets.files.len());
        for path in &targets.files {
            found.push((path.clone(), self.state(path).await?));
        }
        let steps: Vec<Step<'_>> = p
            .edits
            .iter()
            .zip(&targets.per_edit)
            .map(|(e, path)| Step {
                path,
                old: &e.old_string,
                new: &e.new_string,
                replace_all: e.replace_all.unwrap_or(false),
            })
            .collect();
        let changes = apply_all(&found, &steps).map_err(|e| {
            ToolError::model(format!(
                "Edit {} of {} (`edits[{}]`, {}) cannot be applied: {} Nothing was written.",
                e.index + 1,
                steps.len(),
                e.index,
                e.path.display(),
                e.reason
            ))
        })?;
        if fresh_check {
            for c in changes.iter().filter(|c| c.before.is_some()) {
                self.w.check_fresh(cx, &c.path).await?;
            }
        }
        let shown: Vec<String> = changes
            .iter()
            .map(|c| self.w.info.relative(&c.path))
            .collect();
        let files: Vec<Value> = changes.iter().map(|c| self.file_json(c)).collect();
        let diff: String = files
            .iter()
            .map(|f| format!("{}\n", f["patch"].as_str().unwrap_or_default()))
            .collect();
        let ask = Ask::new(Self::PERMISSION, shown.clone(), vec!["*".into()]).metadata(json!({
            "filepath": shown.join(", "),
            "diff": diff,
            "files": files,
        }));
        Ok(Plan {
            value: (changes, diff, files),
            ask,
            files: found,
        })
    }

    /// A file's text, `None` when nothing is there; a directory is the model's mistake.
    async fn state(&self, path: &Path) -> Result<Option<String>, ToolError> {
        match self.w.fs.stat(path).await? {
            None => Ok(None),
            Some(m) if m.kind == FileKind::Dir => Err(ToolError::model(format!(
                "{} is a directory; a transaction edits files. Nothing was written.",
                path.display()
            ))),
            Some(_) => Ok(Some(self.w.read_text(path).await?)),
        }
    }

    fn file_json(&self, c: &FileChange) -> Value {
        let shown = c.path.to_string_lossy().into_owned();
        let before = c.before.as_deref().unwrap_or_default();
        let (additions, deletions) = line_counts(before, &c.after);
        json!({
            "filePath": shown,
            "relativePath": self.w.info.relative(&c.path),
            "type": if c.before.is_some() { "update" } else { "add" },
            "patch": unified_diff(&shown, before, &c.after),
            "additions": additions,
            "deletions": deletions,
        })
    }

    /// Restores every file the writes changed, tells the Bus and FileTime, and says what it did.
    async fn roll_back(
        &self,
        cx: &ToolCx,
        undo: &Undo,
        changes: &[FileChange],
        check_ran: bool,
    ) -> String {
        let failed = undo.restore(&self.w.fs).await;
        let mut restored = Vec::new();
        for path in undo.paths() {
            if failed.contains(&path) {
                continue;
            }
            let created = changes.iter().any(|c| c.path == path && c.before.is_none());
            let kind = if created {
                WatchKind::Unlink
            } else {
                WatchKind::Change
            };
            self.w.after_write(cx, &path, kind).await;
            restored.push(self.w.info.relative(&path));
        }
        let failed: Vec<String> = failed.iter().map(|p| self.w.info.relative(p)).collect();
        if restored.is_empty() && failed.is_empty() {
            return "Nothing had been written yet, so nothing was changed.".into();
        }
        report::rolled_back(&restored, &failed, check_ran)
    }

    /// The result of a transaction that stands: summary, check output, diagnostics, metadata.
    async fn finish(
        &self,
        p: &TransactionParams,
        changes: &[FileChange],
        diff: String,
        files: Vec<Value>,
        check_meta: Option<Value>,
        check_output: Option<(String, String)>,
    ) -> Result<ToolResult, ToolError> {
        let listed: Vec<Listed> = changes
            .iter()
            .map(|c| Listed {
                shown: self.w.info.relative(&c.path),
                created: c.before.is_none(),
            })
            .collect();
        let summary = report::summary(p.edits.len(), &listed);
        let check = check_output.as_ref().map(|(c, o)| (c.as_str(), o.as_str()));
        let mut output = report::applied(&summary, check);
        let paths: Vec<&Path> = changes.iter().map(|c| c.path.as_path()).collect();
        let diagnostics = self.w.diagnostics(&paths).await;
        for (path, l) in paths.iter().zip(&listed) {
            if let Some(block) = diagnostics.block(path) {
                output.push_str(&format!(
                    "\n\nThe language server reports errors in {}; fix them:\n{block}",
                    l.shown
                ));
            }
        }
        let mut result = ToolResult::new(summary, output)
            .meta("diff", diff)
            .meta("files", files)
            .meta("diagnostics", diagnostics.metadata());
        if let Some(check) = check_meta {
            result = result.meta("check", check);
        }
        Ok(result)
    }
}

/// Refuses calls that cannot be right before anything is read or asked.
fn validate(p: &TransactionParams) -> Result<(), ToolError> {
    if p.edits.is_empty() {
        return Err(ToolError::model(
            "`edits` is empty, so there is nothing to apply. Give at least one edit.",
        ));
    }
    for (i, e) in p.edits.iter().enumerate() {
        if e.file_path.is_empty() {
            return Err(ToolError::model(format!(
                "`edits[{i}].filePath` is missing or empty. Give the path of the file to edit."
            )));
        }
        if e.old_string == e.new_string {
            return Err(ToolError::model(format!(
                "In `edits[{i}]`, `oldString` and `newString` are the same, so that edit \
                 changes nothing. Fix it or leave it out."
            )));
        }
    }
    match &p.check {
        Some(c) if c.trim().is_empty() => Err(ToolError::model(
            "`check` is empty. Give the command to run after the edits, or leave `check` out.",
        )),
        None if p.timeout.is_some() => Err(ToolError::model(
            "`timeout` limits the check, but no `check` was given. Add the check command or \
             leave `timeout` out.",
        )),
        _ => Ok(()),
    }
}

/// The call's input as the approval fingerprints it.
fn input_json(p: &TransactionParams) -> Value {
    let edits: Vec<Value> = p
        .edits
        .iter()
        .map(|e| {
            json!({"filePath": e.file_path, "oldString": e.old_string,
                   "newString": e.new_string, "replaceAll": e.replace_all.unwrap_or(false)})
        })
        .collect();
    json!({"edits": edits, "check": p.check, "timeout": p.timeout})
}

/// The check as a call of the bash tool: same sandbox, time limit and output cap.
fn check_params(command: &str, timeout: Option<i64>) -> BashParams {
    BashParams {
        command: command.to_string(),
        timeout,
        workdir: None,
        escape_sandbox: None,
        justification: None,
        description: None,
        run_in_background: None,
    }
}

fn kind_of(c: &FileChange) -> WatchKind {
    if c.before.is_some() {
        WatchKind::Change
    } else {
        WatchKind::Add
    }
}
