//! The `edit` tool itself (the matching lives in `replace`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, json};
use strata_services::bus::{Bus, WatchKind};
use strata_services::file_time::FileTime;
use strata_services::fs::{FileKind, FsUtil};
use strata_services::instance::InstanceInfo;

use super::replace::{detect_crlf, normalize_to, replace, split_bom};
use crate::common::external::{self, Kind};
use crate::common::filewrite::{after_write, check_fresh, read_text};
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult};
use crate::diff::{line_counts, unified_diff};

const BOM: char = '\u{FEFF}';

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

pub struct Edit {
    info: InstanceInfo,
    fs: FsUtil,
    file_time: FileTime,
    bus: Bus,
}

impl Tool for Edit {
    const ID: &'static str = "edit";
    const EFFECTS: Effects = Effects::WRITES;
    type Params = EditParams;
    type Deps = (InstanceInfo, FsUtil, FileTime, Bus);

    fn init((info, fs, file_time, bus): Self::Deps) -> Self {
        Edit {
            info,
            fs,
            file_time,
            bus,
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
        let path = self.info.resolve(&p.file_path);
        let title = self.info.relative(&path);
        external::check(&cx, &self.info, &self.fs, &path, Kind::File).await?;
        let real = self.fs.resolve_real(&path).await;
        let _lock = self.file_time.lock(&real).await;
        let stat = self
            .fs
            .stat(&path)
            .await
            .map_err(|e| ToolError::model(e.to_string()))?;

        let (before, after, kind) = if p.old_string.is_empty() {
            if stat.is_some() {
                return Err(ToolError::model(format!(
                    "{} already exists. An empty `oldString` only creates new files: name the \
                     text to change in this file, or call `write` to replace it entirely.",
                    path.display()
                )));
            }
            (String::new(), p.new_string.clone(), WatchKind::Add)
        } else {
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
            check_fresh(&cx, &self.file_time, &self.fs, &path).await?;
            let text = read_text(&self.fs, &path).await?;
            let (had_bom, body) = split_bom(&text);
            let crlf = detect_crlf(body);
            let old = normalize_to(&p.old_string, crlf);
            let new = normalize_to(&p.new_string, crlf);
            let (new_bom, new) = match new.strip_prefix(BOM) {
                Some(rest) => (true, rest.to_string()),
                None => (false, new),
            };
            let next = replace(body, &old, &new, p.replace_all.unwrap_or(false))
                .map_err(|e| ToolError::model(e.to_string()))?;
            let bom = if had_bom || new_bom {
                BOM.to_string()
            } else {
                String::new()
            };
            (text, format!("{bom}{next}"), WatchKind::Change)
        };

        let shown_path = path.to_string_lossy().into_owned();
        let lf = |s: &str| s.trim_start_matches(BOM).replace("\r\n", "\n");
        let diff = unified_diff(&shown_path, &lf(&before), &lf(&after));
        cx.ask(
            Ask::new("edit", vec![title.clone()], vec!["*".into()])
                .metadata(json!({"filepath": shown_path, "diff": diff})),
        )
        .await?;
        self.fs
            .write_atomic(&path, after.as_bytes())
            .await
            .map_err(|e| ToolError::model(e.to_string()))?;
        after_write(&cx, &self.file_time, &self.fs, &self.bus, &path, kind).await;
        let (additions, deletions) = line_counts(&lf(&before), &lf(&after));
        let filediff = json!({"file": shown_path, "patch": diff,
                              "additions": additions, "deletions": deletions});
        let mut running = Map::new();
        running.insert("diff".into(), json!(diff));
        running.insert("filediff".into(), filediff.clone());
        running.insert("diagnostics".into(), json!({}));
        cx.metadata(None, running);
        Ok(ToolResult::new(title, "Edit applied successfully.")
            .meta("diagnostics", json!({}))
            .meta("diff", diff)
            .meta("filediff", filediff))
    }
}
