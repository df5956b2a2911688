//! The `glob` tool itself.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use strata_services::fs::{FileKind, FsUtil};
use strata_services::instance::InstanceInfo;

use crate::common::external::{self, Kind};
use crate::common::walk::{WalkSpec, sort_newest_first, walk_files};
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult};

/// At most this many paths are listed.
pub const LIMIT: usize = 100;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobParams {
    /// Glob to match file paths against, such as `**/*.rs` or `src/**/*.{ts,tsx}`.
    pub pattern: String,
    /// Directory to search in. Leave it out to search the project directory; do not send
    /// placeholder values such as "null" or "undefined".
    pub path: Option<String>,
}

#[derive(Debug)]
pub struct Glob {
    info: InstanceInfo,
    fs: FsUtil,
}

impl Tool for Glob {
    const ID: &'static str = "glob";
    const EFFECTS: Effects = Effects::READ_ONLY;
    type Params = GlobParams;
    type Deps = (InstanceInfo, FsUtil);

    fn init((info, fs): Self::Deps) -> Self {
        Glob { info, fs }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: GlobParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        cx.ask(
            Ask::new(Self::PERMISSION, vec![p.pattern.clone()], vec!["*".into()])
                .metadata(json!({"pattern": p.pattern, "path": p.path})),
        )
        .await?;
        let root = match &p.path {
            Some(s) => self.info.resolve(s),
            None => self.info.directory.clone(),
        };
        match self.fs.stat(&root).await? {
            None => {
                return Err(ToolError::model(format!(
                    "The directory {} does not exist. Pass an existing directory as `path`, or \
                     leave `path` out to search the project.",
                    root.display()
                )));
            }
            Some(m) if m.kind != FileKind::Dir => {
                return Err(ToolError::model(format!(
                    "`path` must be a directory, but {} is a file. Pass its directory, or use \
                     `read` to look at the file.",
                    root.display()
                )));
            }
            Some(_) => {}
        }
        external::check(&cx, &self.info, &self.fs, &root, Kind::Directory).await?;
        let pattern = p.pattern.clone();
        let walk_root = root.clone();
        let mut files = tokio::task::spawn_blocking(move || {
            let spec = WalkSpec {
                root: &walk_root,
                hidden: false,
                glob: Some(&pattern),
            };
            walk_files(&spec, |path, mtime| Some((mtime, path.to_path_buf())))
        })
        .await
        .map_err(|e| ToolError::fatal(format!("the glob walk stopped unexpectedly: {e}")))??;
        sort_newest_first(&mut files, |(t, p)| (t, p));
        let truncated = files.len() > LIMIT;
        files.truncate(LIMIT);
        let paths: Vec<PathBuf> = files.into_iter().map(|(_, p)| p).collect();
        let mut output = if paths.is_empty() {
            "No files found".to_string()
        } else {
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        if truncated {
            output.push_str(&format!(
                "\n\n(Only the first {LIMIT} matches are shown. Narrow the path or the pattern \
                 to see the rest.)"
            ));
        }
        let title = if root == self.info.worktree {
            String::new()
        } else {
            self.info.relative(&root)
        };
        Ok(ToolResult::new(title, output)
            .meta("count", paths.len())
            .meta("truncated", truncated))
    }
}
