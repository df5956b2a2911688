//! When a tool is advertised to the model, as data the registry's surface decides from.

use strata_services::flags::Flag;

/// A tool's visibility rule (spec §0.7). Plan mode and permission rules can still hide a tool
/// that its rule shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Every model sees it.
    Always,
    /// Only patch models (see `strata_registry::is_patch_model`).
    PatchModels,
    /// Every model but the patch models.
    NonPatchModels,
    /// Only while this environment switch is on.
    Flag(Flag),
    /// Only while the named backend is configured (e.g. a search endpoint for `websearch`).
    Backend(&'static str),
    /// Only on the edit-tool surface (the models that get `edit`, not `apply_patch`), and only
    /// while the named switch of config `tool_surface` is on (`transaction`).
    EditSurfaceSwitch(&'static str),
    /// Registered (callable, e.g. as the target of a repaired call) but never advertised.
    Never,
}
