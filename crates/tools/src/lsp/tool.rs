//! The `lsp` tool itself.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};
use strata_services::flags::Flag;
use strata_services::fs::FsUtil;
use strata_services::instance::InstanceInfo;
use strata_services::lsp::{Calls, Lsp, file_uri};

use crate::common::external::{self, Kind};
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};

/// The request to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Operation {
    GoToDefinition,
    FindReferences,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    GoToImplementation,
    PrepareCallHierarchy,
    IncomingCalls,
    OutgoingCalls,
}

impl Operation {
    fn name(self) -> &'static str {
        match self {
            Operation::GoToDefinition => "goToDefinition",
            Operation::FindReferences => "findReferences",
            Operation::Hover => "hover",
            Operation::DocumentSymbol => "documentSymbol",
            Operation::WorkspaceSymbol => "workspaceSymbol",
            Operation::GoToImplementation => "goToImplementation",
            Operation::PrepareCallHierarchy => "prepareCallHierarchy",
            Operation::IncomingCalls => "incomingCalls",
            Operation::OutgoingCalls => "outgoingCalls",
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LspParams {
    /// The language-server request to make.
    pub operation: Operation,
    /// The file to ask about, absolute or relative to the project directory.
    pub file_path: String,
    /// Line of the symbol, counted from 1 as editors do.
    #[serde(deserialize_with = "from_one")]
    #[schemars(range(min = 1))]
    pub line: u64,
    /// Column of the symbol, counted from 1 as editors do.
    #[serde(deserialize_with = "from_one")]
    #[schemars(range(min = 1))]
    pub character: u64,
    /// What to search for with `workspaceSymbol`; leave it out to list every symbol.
    pub query: Option<String>,
}

/// A line or column: a whole number from 1.
fn from_one<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let n = u64::deserialize(d)?;
    if n == 0 {
        return Err(serde::de::Error::custom(
            "counts from 1 (editor numbering), so 0 is not a position",
        ));
    }
    Ok(n)
}

#[derive(Debug)]
pub struct LspTool {
    info: InstanceInfo,
    fs: FsUtil,
    lsp: Lsp,
}

impl Tool for LspTool {
    const ID: &'static str = "lsp";
    const VISIBILITY: Visibility = Visibility::Flag(Flag::ExperimentalLspTool);
    const EFFECTS: Effects = Effects::READ_ONLY;
    type Params = LspParams;
    type Deps = (InstanceInfo, FsUtil, Lsp);

    fn init((info, fs, lsp): Self::Deps) -> Self {
        LspTool { info, fs, lsp }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: LspParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        let path = self.info.resolve(&p.file_path);
        let rel = self.info.relative(&path);
        let op = p.operation.name();
        external::check(&cx, &self.info, &self.fs, &path, Kind::File).await?;
        let (metadata, title) = match p.operation {
            Operation::WorkspaceSymbol => (json!({"operation": op}), op.to_string()),
            Operation::DocumentSymbol => (
                json!({"operation": op, "filePath": path.to_string_lossy()}),
                format!("{op} {rel}"),
            ),
            _ => (
                json!({"operation": op, "filePath": path.to_string_lossy(),
                       "line": p.line, "character": p.character}),
                format!("{op} {rel}:{}:{}", p.line, p.character),
            ),
        };
        cx.ask(Ask::new(Self::PERMISSION, vec!["*".into()], vec!["*".into()]).metadata(metadata))
            .await?;
        let exists = self.fs.stat(&path).await?;
        if exists.is_none() {
            return Err(ToolError::model(format!(
                "{} was not found. Check the path; `glob` can find the file.",
                path.display()
            )));
        }
        if !self.lsp.handles(&path) {
            return Err(ToolError::model(format!(
                "No language server for {rel} is available in this project: none is configured \
                 for its file type, or its program is not installed. Use `grep` and `read` \
                 instead."
            )));
        }
        let results = self
            .run(&p, &path)
            .await
            .map_err(|e| ToolError::model(e.to_string()))?
            .unwrap_or_default();
        let output = if results.is_empty() {
            format!("No results for {op}.")
        } else {
            serde_json::to_string_pretty(&results).unwrap_or_default()
        };
        Ok(ToolResult::new(title, output).meta("result", Value::Array(results)))
    }
}

impl LspTool {
    async fn run(
        &self,
        p: &LspParams,
        path: &std::path::Path,
    ) -> Result<Option<Vec<Value>>, strata_services::lsp::LspError> {
        let doc = json!({"uri": file_uri(path)});
        let position = json!({"line": p.line - 1, "character": p.character - 1});
        let at = json!({"textDocument": doc, "position": position});
        let lsp = &self.lsp;
        match p.operation {
            Operation::GoToDefinition => lsp.query(path, "textDocument/definition", at).await,
            Operation::GoToImplementation => {
                lsp.query(path, "textDocument/implementation", at).await
            }
            Operation::Hover => lsp.query(path, "textDocument/hover", at).await,
            Operation::FindReferences => {
                let mut params = at;
                params["context"] = json!({"includeDeclaration": true});
                lsp.query(path, "textDocument/references", params).await
            }
            Operation::DocumentSymbol => {
                let params = json!({"textDocument": doc});
                lsp.query(path, "textDocument/documentSymbol", params).await
            }
            Operation::WorkspaceSymbol => {
                let query = p.query.clone().unwrap_or_default();
                lsp.query(path, "workspace/symbol", json!({"query": query}))
                    .await
            }
            Operation::PrepareCallHierarchy => {
                lsp.query(path, "textDocument/prepareCallHierarchy", at)
                    .await
            }
            Operation::IncomingCalls => lsp.calls(path, position, Calls::Incoming).await,
            Operation::OutgoingCalls => lsp.calls(path, position, Calls::Outgoing).await,
        }
    }
}
