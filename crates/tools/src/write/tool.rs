//! The `write` tool itself.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::path::Path;
use strata_services::bus::WatchKind;

use strata_services::fs::{FileKind, Metadata};

use crate::common::approval::{Approval, Plan};
use crate::common::bom::{split_bom, with_bom};
use crate::common::diagnostics::MAX_OTHER_FILES;
use crate::common::filewrite::{Target, Writer, WriterDeps};
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};
use crate::diff::unified_diff;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteParams {
    /// The complete new content of the file.
    pub content: String,
    /// Path of the file to create or replace. Prefer an absolute path; a relative one is taken
    /// from the project directory.
    pub file_path: String,
}

#[derive(Debug)]
pub struct Write {
    w: Writer,
}

impl Tool for Write {
    const ID: &'static str = "write";
    const PERMISSION: &'static str = "edit";
    const VISIBILITY: Visibility = Visibility::NonPatchModels;
    const EFFECTS: Effects = Effects::WRITES;
    type Params = WriteParams;
    type Deps = WriterDeps;

    fn init(deps: Self::Deps) -> Self {
        Write {
            w: Writer::new(deps),
        }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: WriteParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        if p.file_path.is_empty() {
            return Err(ToolError::model(
                "`filePath` is missing or empty. Give the path of the file to write.",
            ));
        }
        let Target {
            path,
            title,
            stat,
            lock: _lock,
        } = self.w.open(&cx, &p.file_path).await?;
        let shown = path.to_string_lossy().into_owned();
        let input = json!({"filePath": shown, "content": p.content});
        let mut approval = Approval::new(input);
        let (exists, keep_bom, content) = loop {
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
        self.w.fs.write_atomic(&path, content.as_bytes()).await?;
        let kind = if exists {
            WatchKind::Change
        } else {
            WatchKind::Add
        };
        self.w.format(&path, keep_bom).await;
        self.w.after_write(&cx, &path, kind).await;
        let report = self.w.diagnostics(&[&path]).await;
        let mut output = String::from("Wrote the file successfully.");
        if let Some(block) = report.block(&path) {
            output.push_str("\n\nThe language server reports errors in this file; fix them:\n");
            output.push_str(&block);
        }
        let others = report.other_blocks(&[&path], MAX_OTHER_FILES);
        if !others.is_empty() {
            output.push_str("\n\nIt also reports errors in other files:\n");
            output.push_str(&others.join("\n"));
        }
        Ok(ToolResult::new(title, output)
            .meta("diagnostics", report.metadata())
            .meta("filepath", shown)
            .meta("exists", exists))
    }
}

/// What one attempt of a write would do: whether the file existed, whether it keeps a BOM,
/// and the content written.
type Planned = (bool, bool, String);

impl Write {
    /// One attempt: the old and new content, their diff and the ask that shows it. The
    /// read-before-edit check runs only on the first (see `Edit::plan`).
    async fn plan(
        &self,
        cx: &ToolCx,
        p: &WriteParams,
        path: &Path,
        title: &str,
        stat: Option<Metadata>,
        fresh_check: bool,
    ) -> Result<Plan<Planned>, ToolError> {
        let exists = stat.is_some();
        if stat.as_ref().is_some_and(|m| m.kind == FileKind::Dir) {
            return Err(ToolError::model(format!(
                "{} is a directory; `write` needs a file path.",
                path.display()
            )));
        }
        let old = if exists {
            if fresh_check {
                self.w.check_fresh(cx, path).await?;
            }
            self.w.read_text(path).await?
        } else {
            String::new()
        };
        let (new_bom, new_body) = split_bom(&p.content);
        let keep_bom = split_bom(&old).0 || new_bom;
        let content = with_bom(keep_bom, new_body);
        let shown = path.to_string_lossy().into_owned();
        let diff = unified_diff(&shown, &old, &content);
        let ask = Ask::new(Self::PERMISSION, vec![title.to_string()], vec!["*".into()])
            .metadata(json!({"filepath": shown, "diff": diff}));
        Ok(Plan {
            value: (exists, keep_bom, content),
            ask,
            files: vec![(path.to_path_buf(), exists.then_some(old))],
        })
    }
}
