//! The `edit` tool itself (the matching lives in `replace`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, json};
use std::path::Path;
use strata_services::bus::WatchKind;

use strata_services::fs::{FileKind, Metadata};

use super::replace::edit_text;
use crate::common::approval::{Approval, Plan};
use crate::common::bom::BOM;
use crate::common::filewrite::{Target, Writer, WriterDeps};
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};
use crate::diff::{line_counts, unified_diff};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditParams {
    /// Path of the file to change. Prefer an absolute path; a relative one is taken from the
    /// project directory.
    pub file_path: String,
    /// The exact text to replace. An empty string creates a new file holding `newString`.
    pub old_string: String,
    /// The text to put in its place; it must differ from `oldString`.
    pub new_string: String,
    /// Replace every occurrence of `oldString` instead of exactly one. Defaults to false.
    pub replace_all: Option<bool>,
}

#[derive(Debug)]
pub struct Edit {
    w: Writer,
}

impl Tool for Edit {
    const ID: &'static str = "edit";
    const PERMISSION: &'static str = "edit";
    const VISIBILITY: Visibility = Visibility::NonPatchModels;
    const EFFECTS: Effects = Effects::WRITES;
    type Params = EditParams;
    type Deps = WriterDeps;

    fn init(deps: Self::Deps) -> Self {
        Edit {
            w: Writer::new(deps),
        }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: EditParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        if p.file_path.is_empty() {
            return Err(ToolError::model(
                "`filePath` is missing or empty. Give the path of the file to edit.",
            ));
        }
        if p.old_string == p.new_string {
            return Err(ToolError::model(
                "`oldString` and `newString` are the same, so there is nothing to change.",
            ));
        }
        let Target {
            path,
            title,
            stat,
            lock: _lock,
        } = self.w.open(&cx, &p.file_path).await?;
        let shown_path = path.to_string_lossy().into_owned();
        let input = json!({"filePath": shown_path, "oldString": p.old_string,
                           "newString": p.new_string, "replaceAll": p.replace_all.unwrap_or(false)});
        let mut approval = Approval::new(input);
        let (before, after, kind, diff) = loop {
            // Asking again: the file changed on disk, so look at it afresh.
            let (stat, fresh_check) = match approval.stale() {
                None => (stat.clone(), true),
                Some(_) => (self.w.fs.stat(&path).await?, false),
            };
            let plan = self.plan(&cx, &p, &path, &title, stat, fresh_check).await?;
            if let Some(planned) = approval.settle(&self.w, &cx, plan).await? {
                break planned;
            }
        };
        self.w.fs.write_atomic(&path, after.as_bytes()).await?;
        // The formatter may change the file; the diff shown is against what it left.
        let (after, diff) = match self.w.format(&path, after.starts_with(BOM)).await {
            Some(formatted) if formatted != after => {
                let diff = unified_diff(&shown_path, &before, &formatted);
                (formatted, diff)
            }
            _ => (after, diff),
        };
        self.w.after_write(&cx, &path, kind).await;
        let (additions, deletions) = line_counts(&before, &after);
        let filediff = json!({"file": shown_path, "patch": diff,
                              "additions": additions, "deletions": deletions});
        let mut running = Map::new();
        running.insert("diff".into(), json!(diff));
        running.insert("filediff".into(), filediff.clone());
        running.insert("diagnostics".into(), json!({}));
        cx.metadata(None, running);
        let report = self.w.diagnostics(&[&path]).await;
        let mut output = String::from("Edit applied successfully.");
        if let Some(block) = report.block(&path) {
            output.push_str("\n\nThe language server reports errors in this file; fix them:\n");
            output.push_str(&block);
        }
        Ok(ToolResult::new(title, output)
            .meta("diagnostics", report.metadata())
            .meta("diff", diff)
            .meta("filediff", filediff))
    }
}

/// What one attempt of an edit would do: the text before and after, how the file changes, and
/// the diff shown.
type Planned = (String, String, WatchKind, String);

impl Edit {
    /// One attempt: the contents, their diff and the ask that shows it. The read-before-edit
    /// check runs only on the first: asking again after a change on disk shows the person the
    /// diff against the file as it is now, and their approval stands in for a new read.
    async fn plan(
        &self,
        cx: &ToolCx,
        p: &EditParams,
        path: &Path,
        title: &str,
        stat: Option<Metadata>,
        fresh_check: bool,
    ) -> Result<Plan<Planned>, ToolError> {
        let (before, after, kind) = self.contents(cx, p, path, stat, fresh_check).await?;
        let shown_path = path.to_string_lossy().into_owned();
        let diff = unified_diff(&shown_path, &before, &after);
        let ask = Ask::new(Self::PERMISSION, vec![title.to_string()], vec!["*".into()])
            .metadata(json!({"filepath": shown_path, "diff": diff}));
        let state = (kind != WatchKind::Add).then(|| before.clone());
        Ok(Plan {
            value: (before, after, kind, diff),
            ask,
            files: vec![(path.to_path_buf(), state)],
        })
    }

    /// The file's text before and after the replacement, checked against what is on disk: an
    /// empty `oldString` creates a new file, any other changes an existing one.
    async fn contents(
        &self,
        cx: &ToolCx,
        p: &EditParams,
        path: &Path,
        stat: Option<Metadata>,
        fresh_check: bool,
    ) -> Result<(String, String, WatchKind), ToolError> {
        if p.old_string.is_empty() {
            if stat.is_some() {
                return Err(ToolError::model(format!(
                    "{} already exists. An empty `oldString` only creates new files: name the \
                     text to change in this file, or call `write` to replace it entirely.",
                    path.display()
                )));
            }
            return Ok((String::new(), p.new_string.clone(), WatchKind::Add));
        }
        match stat {
            None => {
                return Err(ToolError::model(format!(
                    "The file {} does not exist. Check the path, or create the file with an \
                     empty `oldString`.",
                    path.display()
                )));
            }
            Some(m) if m.kind == FileKind::Dir => {
                return Err(ToolError::model(format!(
                    "{} is a directory; `edit` works on files.",
                    path.display()
                )));
            }
            Some(_) => {}
        }
        if fresh_check {
            self.w.check_fresh(cx, path).await?;
        }
        let text = self.w.read_text(path).await?;
        let next = edit_text(
            &text,
            &p.old_string,
            &p.new_string,
            p.replace_all.unwrap_or(false),
        )
        .map_err(|e| ToolError::model(format!("{e} (file: {})", path.display())))?;
        Ok((text, next, WatchKind::Change))
    }
}
