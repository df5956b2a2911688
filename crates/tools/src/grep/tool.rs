//! The `grep` tool itself (the search lives in `search`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use strata_services::fs::{FileKind, FsUtil};
use strata_services::instance::InstanceInfo;

use super::search;
use crate::common::external::{self, Kind};
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepParams {
    /// Regular expression to search for in file contents (Rust regex syntax).
    pub pattern: String,
    /// Directory or single file to search. Defaults to the project directory.
    pub path: Option<String>,
    /// Glob limiting which files are searched, such as `*.js` or `*.{ts,tsx}`.
    pub include: Option<String>,
}

#[derive(Debug)]
pub struct Grep {
    info: InstanceInfo,
    fs: FsUtil,
}

impl Tool for Grep {
    const ID: &'static str = "grep";
    const EFFECTS: Effects = Effects::READ_ONLY;
    type Params = GrepParams;
    type Deps = (InstanceInfo, FsUtil);

    fn init((info, fs): Self::Deps) -> Self {
        Grep { info, fs }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: GrepParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        if p.pattern.is_empty() {
            return Err(ToolError::model(
                "`pattern` is missing or empty. Give the regular expression to search for.",
            ));
        }
        cx.ask(
            Ask::new(Self::PERMISSION, vec![p.pattern.clone()], vec!["*".into()])
                .metadata(json!({"pattern": p.pattern, "path": p.path, "include": p.include})),
        )
        .await?;
        let target = match &p.path {
            Some(s) => self.info.resolve(s),
            None => self.info.directory.clone(),
        };
        let meta = self.fs.stat(&target).await?.ok_or_else(|| {
            ToolError::model(format!(
                "The path {} does not exist. Pass an existing file or directory as `path`.",
                target.display()
            ))
        })?;
        let is_dir = meta.kind == FileKind::Dir;
        let kind = if is_dir { Kind::Directory } else { Kind::File };
        external::check(&cx, &self.info, &self.fs, &target, kind).await?;
        let matcher = search::matcher(&p.pattern)?;
        let include = p.include.clone();
        let mtime = meta.mtime;
        let hits = tokio::task::spawn_blocking(move || {
            if is_dir {
                search::search_tree(&matcher, &target, include.as_deref())
            } else {
                Ok(search::cap(
                    search::search_file(&matcher, &target, mtime)
                        .into_iter()
                        .collect(),
                ))
            }
        })
        .await
        .map_err(|e| ToolError::fatal(format!("the search stopped unexpectedly: {e}")))??;
        Ok(ToolResult::new(p.pattern.clone(), search::render(&hits))
            .meta("matches", hits.shown)
            .meta("truncated", hits.more))
    }
}
