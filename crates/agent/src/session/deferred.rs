//! Deferred tools in the loop (spec §24): which tools a session has loaded, read back from its
//! stored tool results (`metadata.loadedTools`, written by `tool_search` and by a direct call
//! of a deferred tool), and the system prompt's line naming the tools still deferred. Reading
//! the record from the store is what keeps the tools loaded when a session is resumed.

use strata_protocol::part::PartData;
use strata_registry::deferred::{Layout, loaded_names};

use crate::catalogue::ModelSettings;
use crate::store::{Message, Part, Store, StoreError};

/// The tools the session loaded, in the order it loaded them.
pub fn loaded(stored: &[(Message, Vec<Part>)]) -> Vec<String> {
    let metas: Vec<serde_json::Value> = stored
        .iter()
        .flat_map(|(_, parts)| parts)
        .filter_map(|p| match PartData::of(p) {
            Some(PartData::Tool(tool)) => tool.state.metadata().cloned(),
            _ => None,
        })
        .map(serde_json::Value::Object)
        .collect();
    loaded_names(&metas)
}

/// The tools session `session_id` loaded, as [`loaded`] reads them from its visible
/// conversation, reading only the tool results that name loaded tools.
pub fn loaded_in(store: &Store, session_id: &str) -> Result<Vec<String>, StoreError> {
    let shown = crate::undo::Shown::of(store, session_id)?;
    let stored: Vec<(Message, Vec<Part>)> = store
        .parts_loading_tools(session_id)?
        .into_iter()
        .filter(|(m, _)| shown.keeps(m))
        .map(|(m, p)| (m, vec![p]))
        .collect();
    Ok(loaded(&stored))
}

/// `system` with the deferred tools' line after it, when there are any.
pub fn system_with(system: &str, layout: &Layout) -> String {
    match layout.deferred_line() {
        Some(line) => format!("{system}\n\n{line}"),
        None => system.to_string(),
    }
}

/// The model's context window, or a conservative one when the catalogue does not know it.
pub fn context_window(settings: &ModelSettings) -> u64 {
    settings
        .info
        .as_ref()
        .map(|i| i.context)
        .filter(|c| *c > 0)
        .unwrap_or(crate::provider::resolve::UNKNOWN_MODEL_CONTEXT)
}

/// The split a session of `agent` with `model_id` (`provider/model`) gets at its next step: for
/// `session_id`, with the tools it loaded; for `None`, a new session's. Front-ends show its
/// counts (`strata tools`, the server's `/session/{id}/tools`).
pub fn layout_for(
    services: &super::LoopServices,
    model_id: &str,
    agent: &strata_registry::AgentInfo,
    session_id: Option<&str>,
) -> Result<Layout, super::RunError> {
    let s = services;
    let ruleset = strata_registry::rules::ruleset_of(agent, &s.config, &s.flags, &s.skills)?;
    let spec = strata_registry::SurfaceSpec {
        model: model_id.to_string(),
        plan_mode: false,
        ruleset,
        flags: s.flags.enabled(),
        backends: s.registry.configured_backends(&s.config, &s.flags),
    };
    let loaded = match session_id {
        Some(id) => loaded_in(&s.store, id)?,
        None => Vec::new(),
    };
    let window = crate::catalogue::settings(model_id, &s.config.provider, None)
        .map_or(crate::provider::resolve::UNKNOWN_MODEL_CONTEXT, |m| {
            context_window(&m)
        });
    let deferral = strata_registry::Deferral {
        context_window: window,
        loaded,
    };
    Ok(s.registry.layout(&spec, &deferral))
}
