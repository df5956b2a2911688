//! The `apply_patch` tool: verify the whole patch against the files, ask once, then write it
//! all or nothing (spec §4.3, §18 d).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use strata_services::bus::WatchKind;
use strata_services::fs::FileKind;

use super::parse::{Section, parse_patch};
use super::seek::apply_chunks;
use super::write::{Change, ChangeKind, write_all};
use crate::common::approval::{Approval, FileStates, Plan};
use crate::common::bom::split_bom;
use crate::common::external::{self, Kind};
use crate::common::filewrite::{Writer, WriterDeps};
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};
use crate::diff::{line_counts, unified_diff};

/// The files as a patch sees them while it is verified: `now` after the sections so far, and
/// `read` as each was on disk when first looked at (what the request's diff is computed from).
#[derive(Default)]
struct View {
    now: HashMap<PathBuf, Option<String>>,
    read: FileStates,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApplyPatchParams {
    /// The whole patch, from `*** Begin Patch` to `*** End Patch`.
    pub patch_text: String,
}

#[derive(Debug)]
pub struct ApplyPatch {
    w: Writer,
}

impl Tool for ApplyPatch {
    const ID: &'static str = "apply_patch";
    const PERMISSION: &'static str = "edit";
    const VISIBILITY: Visibility = Visibility::PatchModels;
    const EFFECTS: Effects = Effects::WRITES;
    type Params = ApplyPatchParams;
    type Deps = WriterDeps;

    fn init(deps: Self::Deps) -> Self {
        ApplyPatch {
            w: Writer::new(deps),
        }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: ApplyPatchParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        if p.patch_text.trim().is_empty() {
            return Err(ToolError::model(
                "`patchText` is missing or empty. Send the whole patch, from `*** Begin Patch` \
                 to `*** End Patch`.",
            ));
        }
        let patch = parse_patch(&p.patch_text)
            .map_err(|e| ToolError::model(format!("The patch was refused as malformed: {e}")))?;
        if patch.sections.is_empty() {
            return Err(ToolError::model(
                "The patch is empty: it has no Add, Update or Delete section, so nothing was \
                 changed.",
            ));
        }
        let input = json!({"patchText": p.patch_text});
        let mut approval = Approval::new(input);
        // The locks are held across the ask, the re-read after it and the write.
        let ((changes, diff_all, files), _locks) = loop {
            let plan = self.plan(&patch.sections, &cx).await?;
            let locks = self.lock_all(&plan.value.0).await;
            if let Some(planned) = approval.settle(&self.w, &cx, plan).await? {
                break (planned, locks);
            }
        };
        write_all(&self.w.fs, &changes)
            .await
            .map_err(ToolError::model)?;
        let mut summary = vec!["Success. The patch changed these files:".to_string()];
        for c in &changes {
            let (letter, shown) = match c.kind {
                ChangeKind::Add => ("A", &c.path),
                ChangeKind::Delete => ("D", &c.path),
                ChangeKind::Update => ("M", &c.path),
                ChangeKind::Move => ("M", c.move_to.as_ref().unwrap_or(&c.path)),
            };
            summary.push(format!("{letter} {}", self.w.info.relative(shown)));
            self.publish(&cx, c).await;
        }
        let summary = summary.join("\n");
        let written: Vec<&std::path::Path> =
            changes.iter().filter_map(Change::written_path).collect();
        let report = self.w.diagnostics(&written).await;
        let mut output = summary.clone();
        for path in &written {
            if let Some(block) = report.block(path) {
                let rel = self.w.info.relative(path);
                output.push_str(&format!(
                    "\n\nThe language server reports errors in {rel}; fix them:\n{block}"
                ));
            }
        }
        Ok(ToolResult::new(summary, output)
            .meta("diff", diff_all)
            .meta("files", files)
            .meta("diagnostics", report.metadata()))
    }
}

/// What one attempt of a patch would do: the changes, the diff of them all, and each file's
/// entry for the request and the result.
type Planned = (Vec<Change>, String, Vec<Value>);

impl ApplyPatch {
    /// One attempt: verifies the patch against the files as they are and builds the ask that
    /// shows its diff. Every attempt reads the files afresh.
    async fn plan(&self, sections: &[Section], cx: &ToolCx) -> Result<Plan<Planned>, ToolError> {
        let (changes, read) = self.verify(sections, cx).await?;
        let patterns: Vec<String> = changes
            .iter()
            .map(|c| self.w.info.relative(&c.path))
            .collect();
        let diff_all: String = changes.iter().map(|c| format!("{}\n", c.diff)).collect();
        let files: Vec<Value> = changes.iter().map(|c| self.file_json(c)).collect();
        let ask = Ask::new(Self::PERMISSION, patterns.clone(), vec!["*".into()]).metadata(json!({
            "filepath": patterns.join(", "),
            "diff": diff_all,
            "files": files,
        }));
        Ok(Plan {
            value: (changes, diff_all, files),
            ask,
            files: read,
        })
    }

    /// Computes every section's result against a virtual view of the files (later sections
    /// see earlier ones), before anything is written.
    async fn verify(
        &self,
        sections: &[Section],
        cx: &ToolCx,
    ) -> Result<(Vec<Change>, FileStates), ToolError> {
        let mut view = View::default();
        let mut changes = Vec::new();
        for section in sections {
            match section {
                Section::Add { path, content } => {
                    let path = self.w.info.resolve(path);
                    external::check(cx, &self.w.info, &self.w.fs, &path, Kind::File).await?;
                    let old = self.current(&mut view, &path).await?;
                    if self.is_dir(&path).await {
                        return Err(ToolError::model(format!(
                            "The patch was refused: {} is a directory, so it cannot be added \
                             as a file. Nothing was changed.",
                            path.display()
                        )));
                    }
                    view.now.insert(path.clone(), Some(content.clone()));
                    changes.push(Change::new(
                        ChangeKind::Add,
                        path,
                        None,
                        old,
                        Some(content.clone()),
                    ));
                }
                Section::Delete { path } => {
                    let path = self.w.info.resolve(path);
                    external::check(cx, &self.w.info, &self.w.fs, &path, Kind::File).await?;
                    let old = self.existing_file(&mut view, &path, "delete").await?;
                    view.now.insert(path.clone(), None);
                    changes.push(Change::new(ChangeKind::Delete, path, None, Some(old), None));
                }
                Section::Update {
                    path,
                    move_to,
                    chunks,
                } => {
                    let path = self.w.info.resolve(path);
                    external::check(cx, &self.w.info, &self.w.fs, &path, Kind::File).await?;
                    let old = self.existing_file(&mut view, &path, "update").await?;
                    let shown = path.to_string_lossy();
                    let new = apply_chunks(&old, chunks, &shown)
                        .map_err(|e| ToolError::model(format!("The patch was refused: {e}")))?;
                    match move_to {
                        Some(dest) => {
                            let dest = self.w.info.resolve(dest);
                            external::check(cx, &self.w.info, &self.w.fs, &dest, Kind::File)
                                .await?;
                            // A move replaces whatever is at the destination: part of the state.
                            self.current(&mut view, &dest).await?;
                            view.now.insert(path.clone(), None);
                            view.now.insert(dest.clone(), Some(new.clone()));
                            changes.push(Change::new(
                                ChangeKind::Move,
                                path,
                                Some(dest),
                                Some(old),
                                Some(new),
                            ));
                        }
                        None => {
                            view.now.insert(path.clone(), Some(new.clone()));
                            changes.push(Change::new(
                                ChangeKind::Update,
                                path,
                                None,
                                Some(old),
                                Some(new),
                            ));
                        }
                    }
                }
            }
        }
        Ok((changes, view.read))
    }

    async fn is_dir(&self, path: &Path) -> bool {
        matches!(self.w.fs.stat(path).await, Ok(Some(m)) if m.kind == FileKind::Dir)
    }

    /// The file's text as the patch sees it so far (`None` when absent); a first look at a
    /// path is recorded in `view.read`.
    async fn current(&self, view: &mut View, path: &Path) -> Result<Option<String>, ToolError> {
        if let Some(v) = view.now.get(path) {
            return Ok(v.clone());
        }
        let state = self.w.read_state(path).await?;
        if !view.read.iter().any(|(p, _)| p == path) {
            view.read.push((path.to_path_buf(), state.clone()));
        }
        Ok(state)
    }

    async fn existing_file(
        &self,
        view: &mut View,
        path: &Path,
        verb: &str,
    ) -> Result<String, ToolError> {
        if !view.now.contains_key(path) && self.is_dir(path).await {
            return Err(ToolError::model(format!(
                "The patch was refused: cannot {verb} {} because it is a directory, not a \
                 regular file. Nothing was changed.",
                path.display()
            )));
        }
        self.current(view, path).await?.ok_or_else(|| {
            ToolError::model(format!(
                "The patch was refused: cannot {verb} {} because it does not exist. Check the \
                 path, or use `*** Add File:` to create it. Nothing was changed.",
                path.display()
            ))
        })
    }

    fn file_json(&self, c: &Change) -> Value {
        let relative = self.w.info.relative(c.move_to.as_ref().unwrap_or(&c.path));
        let mut v = json!({
            "filePath": c.path.to_string_lossy(),
            "relativePath": relative,
            "type": c.kind.as_str(),
            "patch": c.diff,
            "additions": c.additions,
            "deletions": c.deletions,
        });
        if let Some(dest) = &c.move_to {
            v["movePath"] = json!(dest.to_string_lossy());
        }
        v
    }

    async fn lock_all(&self, changes: &[Change]) -> Vec<tokio::sync::OwnedMutexGuard<()>> {
        let mut paths: Vec<PathBuf> = changes
            .iter()
            .flat_map(|c| std::iter::once(c.path.clone()).chain(c.move_to.clone()))
            .collect();
        paths.sort();
        paths.dedup();
        let mut guards = Vec::new();
        for p in paths {
            let real = self.w.fs.resolve_real(&p).await;
            guards.push(self.w.file_time.lock(&real).await);
        }
        guards
    }

    async fn publish(&self, cx: &ToolCx, c: &Change) {
        let w = &self.w;
        if let Some(written) = c.written_path() {
            let bom = c.new.as_deref().is_some_and(|t| split_bom(t).0);
            w.format(written, bom).await;
        }
        match c.kind {
            ChangeKind::Add => w.after_write(cx, &c.path, WatchKind::Add).await,
            ChangeKind::Update => w.after_write(cx, &c.path, WatchKind::Change).await,
            ChangeKind::Delete => w.after_write(cx, &c.path, WatchKind::Unlink).await,
            ChangeKind::Move => {
                w.after_write(cx, &c.path, WatchKind::Unlink).await;
                if let Some(dest) = &c.move_to {
                    w.after_write(cx, dest, WatchKind::Add).await;
                }
            }
        }
    }
}

impl Change {
    /// The file this change leaves with new content: the target of a move, the path of an add
    /// or update, nothing for a delete.
    fn written_path(&self) -> Option<&std::path::Path> {
        match self.kind {
            ChangeKind::Delete => None,
            ChangeKind::Move => self.move_to.as_deref(),
            ChangeKind::Add | ChangeKind::Update => Some(self.path.as_path()),
        }
    }

    fn new(
        kind: ChangeKind,
        path: PathBuf,
        move_to: Option<PathBuf>,
        old: Option<String>,
        new: Option<String>,
    ) -> Self {
        let before = old.as_deref().unwrap_or_default();
        let after = new.as_deref().unwrap_or_default();
        let shown = path.to_string_lossy().into_owned();
        let diff = unified_diff(&shown, before, after);
        let (additions, deletions) = line_counts(before, after);
        Change {
            kind,
            path,
            move_to,
            new,
            diff,
            additions,
            deletions,
        }
    }
}
