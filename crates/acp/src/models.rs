//! The model chooser: the models a session may use, offered as ACP's `model` config option
//! (`configOptions` in `session/new` and `session/load`, changed with
//! `session/set_config_option`). A model is `provider/model`, as in `strata.json`.

use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigSelectGroup,
    SessionConfigSelectOption,
};
use strata_agent::provider::resolve::ListedProvider;
use strata_protocol::wire::ModelChoice;
use strata_server::core::InstanceEntry;

/// The config option's id.
pub(crate) const OPTION: &str = "model";

/// The providers a turn can call now, and those the config declares, each with its models; the
/// `current` model is added under its provider when nothing lists it.
fn offered(entry: &InstanceEntry, current: &str) -> Vec<ListedProvider> {
    let mut listed: Vec<ListedProvider> = (entry.services.resolver().list().into_iter())
        .filter(|p| p.usable() || p.configured)
        .collect();
    if let Some((provider, model)) = current.split_once('/')
        && !listed
            .iter()
            .any(|p| p.id == provider && p.models.iter().any(|m| m.id == model))
    {
        let named = strata_agent::provider::resolve::ListedModel {
            id: model.to_string(),
            name: model.to_string(),
            ..Default::default()
        };
        match listed.iter_mut().find(|p| p.id == provider) {
            Some(p) => p.models.insert(0, named),
            None => listed.insert(
                0,
                ListedProvider {
                    id: provider.to_string(),
                    name: provider.to_string(),
                    env: Vec::new(),
                    npm: None,
                    base: None,
                    configured: true,
                    key: None,
                    problem: None,
                    models: vec![named],
                },
            ),
        }
    }
    listed
}

/// The session's config options: the model chooser, grouped by provider. `None` when the
/// session has no model at all (no `model` in the config and none chosen).
pub(crate) fn options(entry: &InstanceEntry, current: Option<&str>) -> Vec<SessionConfigOption> {
    let Some(current) = current.or(entry.services.config.model.as_deref()) else {
        return Vec::new();
    };
    let groups: Vec<SessionConfigSelectGroup> = offered(entry, current)
        .into_iter()
        .filter(|p| !p.models.is_empty())
        .map(|p| {
            let models = p.models.iter().map(|m| {
                SessionConfigSelectOption::new(format!("{}/{}", p.id, m.id), m.name.clone())
            });
            SessionConfigSelectGroup::new(p.id.clone(), p.name.clone(), models.collect())
        })
        .collect();
    let chooser = SessionConfigOption::select(OPTION, "Model", current.to_string(), groups)
        .category(SessionConfigOptionCategory::Model)
        .description("The model the session's next turns use".to_string());
    vec![chooser]
}

/// Whether `model` (`provider/model`) is one the chooser offers (the configured one is).
pub(crate) fn is_offered(entry: &InstanceEntry, model: &str) -> bool {
    let Some((provider, id)) = model.split_once('/') else {
        return false;
    };
    let configured = entry.services.config.model.as_deref().unwrap_or_default();
    offered(entry, configured)
        .iter()
        .any(|p| p.id == provider && p.models.iter().any(|m| m.id == id))
}

/// `provider/model` as the core's model choice.
pub(crate) fn choice(model: &str) -> Option<ModelChoice> {
    let (provider, id) = model.split_once('/')?;
    Some(ModelChoice {
        provider_id: provider.to_string(),
        model_id: id.to_string(),
    })
}
