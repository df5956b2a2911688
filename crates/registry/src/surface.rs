//! Which tools a model sees (spec §0.7), decided from what each tool declares: its visibility
//! rule (patch models or not, behind a flag, when a backend is configured, never), its effects
//! (plan mode drops destructive tools) and its permission key (rules can hide tools).

use strata_services::config::ConfigData;
use strata_services::flags::{Flag, RuntimeFlags};
use strata_services::permission::{Ruleset, hidden_tools};
use strata_tools::{ErasedTool, Visibility};

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
    /// The switches that are on (`RuntimeFlags::enabled`): a tool behind a flag needs its own.
    pub flags: Vec<Flag>,
    /// The configured backends and the `tool_surface` switches that are on
    /// (`ToolRegistry::configured_backends`): a tool that needs a backend or a switch is shown
    /// only when it is here.
    pub backends: Vec<&'static str>,
}

/// The advertised tools, in registration order.
pub fn surface<'a>(tools: &'a [ErasedTool], spec: &SurfaceSpec) -> Vec<&'a ErasedTool> {
    let patch = is_patch_model(&spec.model);
    let keys: Vec<(&str, &str)> = tools.iter().map(|t| (t.id, t.permission)).collect();
    let hidden = hidden_tools(&keys, &spec.ruleset);
    tools
        .iter()
        .filter(|t| shown(t.visibility, patch, spec))
        .filter(|t| !(spec.plan_mode && t.effects.destructive))
        .filter(|t| !hidden.iter().any(|h| h == t.id))
        .collect()
}

/// Whether a tool's visibility rule shows it for this model and spec.
fn shown(visibility: Visibility, patch: bool, spec: &SurfaceSpec) -> bool {
    match visibility {
        Visibility::Always => true,
        Visibility::PatchModels => patch,
        Visibility::NonPatchModels => !patch,
        Visibility::Flag(flag) => spec.flags.contains(&flag),
        Visibility::Backend(name) => spec.backends.contains(&name),
        Visibility::EditSurfaceSwitch(name) => !patch && spec.backends.contains(&name),
        Visibility::Never => false,
    }
}

/// The backends that `tools` need and `config` (or the environment, through `flags`)
/// configures, and the `tool_surface` switches they need that config turns on, each once.
pub fn configured_backends(
    tools: &[ErasedTool],
    config: &ConfigData,
    flags: &RuntimeFlags,
) -> Vec<&'static str> {
    let mut out = Vec::new();
    for t in tools {
        let on = match t.visibility {
            Visibility::Backend(name) => config.backend_configured(name, flags).then_some(name),
            Visibility::EditSurfaceSwitch(name) => config.tool_surface.is_on(name).then_some(name),
            _ => None,
        };
        if let Some(name) = on
            && !out.contains(&name)
        {
            out.push(name);
        }
    }
    out
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

    #[test]
    fn each_visibility_rule() {
        let spec = |flags: Vec<Flag>, backends: Vec<&'static str>| SurfaceSpec {
            flags,
            backends,
            ..SurfaceSpec::default()
        };
        let none = spec(vec![], vec![]);
        assert!(shown(Visibility::Always, true, &none));
        assert!(shown(Visibility::PatchModels, true, &none));
        assert!(!shown(Visibility::PatchModels, false, &none));
        assert!(shown(Visibility::NonPatchModels, false, &none));
        assert!(!shown(Visibility::NonPatchModels, true, &none));
        assert!(!shown(Visibility::Never, false, &none));
        let lsp = Visibility::Flag(Flag::ExperimentalLspTool);
        assert!(!shown(lsp, false, &none));
        assert!(shown(
            lsp,
            false,
            &spec(vec![Flag::ExperimentalLspTool], vec![])
        ));
        let search = Visibility::Backend("websearch");
        assert!(!shown(search, false, &none));
        assert!(!shown(search, false, &spec(vec![], vec!["other"])));
        assert!(shown(search, false, &spec(vec![], vec!["websearch"])));
        let txn = Visibility::EditSurfaceSwitch("transaction");
        assert!(!shown(txn, false, &none));
        assert!(shown(txn, false, &spec(vec![], vec!["transaction"])));
        assert!(
            !shown(txn, true, &spec(vec![], vec!["transaction"])),
            "never on the apply_patch surface"
        );
    }
}
