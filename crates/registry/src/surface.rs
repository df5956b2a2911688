//! Which tools a model sees (spec §0.7): patch models get `apply_patch` instead of
//! `edit`/`write`, `lsp` only behind its experimental flag, plan mode drops destructive tools,
//! rules can hide tools.

use strata_services::permission::{Ruleset, hidden_tools};
use strata_tools::ErasedTool;

/// Tools registered but never advertised.
const NEVER_ADVERTISED: &[&str] = &["invalid"];

/// A patch model's API id contains `gpt-` and neither `oss` nor `gpt-4`.
pub fn is_patch_model(model: &str) -> bool {
    let id = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    id.contains("gpt-") && !id.contains("oss") && !id.contains("gpt-4")
}

/// What decides the surface of one turn.
#[derive(Debug, Clone, Default)]
pub struct SurfaceSpec {
    /// `provider/model` or the bare model id.
    pub model: String,
    /// Plan mode shows no destructive tool.
    pub plan_mode: bool,
    /// The agent's effective rules: a tool whose last matching rule is `* deny` is hidden.
    pub ruleset: Ruleset,
    /// `STRATA_EXPERIMENTAL_LSP_TOOL` is on, so the `lsp` tool is shown.
    pub experimental_lsp: bool,
}

/// The advertised tools, in registration order.
pub fn surface<'a>(tools: &'a [ErasedTool], spec: &SurfaceSpec) -> Vec<&'a ErasedTool> {
    let patch = is_patch_model(&spec.model);
    let ids: Vec<&str> = tools.iter().map(|t| t.id).collect();
    let hidden = hidden_tools(&ids, &spec.ruleset);
    tools
        .iter()
        .filter(|t| !NEVER_ADVERTISED.contains(&t.id))
        .filter(|t| match t.id {
            "edit" | "write" => !patch,
            "apply_patch" => patch,
            "lsp" => spec.experimental_lsp,
            _ => true,
        })
        .filter(|t| !(spec.plan_mode && t.effects.destructive))
        .filter(|t| !hidden.iter().any(|h| h == t.id))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_models() {
        assert!(is_patch_model("gpt-5"));
        assert!(is_patch_model("openai/gpt-5.1-codex"));
        assert!(!is_patch_model("openai/gpt-4.1"));
        assert!(!is_patch_model("gpt-oss-120b"));
        assert!(!is_patch_model("anthropic/claude-sonnet-4"));
    }
}
