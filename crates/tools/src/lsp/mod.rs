//! The experimental `lsp` tool (spec §16): one language-server request about a file, shown to
//! the model as the server's JSON. Visible only with `STRATA_EXPERIMENTAL_LSP_TOOL`.

mod tool;

pub use tool::{LspParams, LspTool, Operation};
