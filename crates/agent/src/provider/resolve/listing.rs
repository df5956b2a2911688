//! Every provider the config and the catalogue know, with its models and whether it can be
//! called now (a key, or a base URL that needs none): what `strata models` prints and what the
//! server's `/provider` and `/config/providers` answer.

use std::collections::BTreeSet;

use serde_json::Value;

use super::build;
use super::{KeySource, Resolver};
use crate::catalogue::models_dev::{ModelEntry, ModelsDev};
use crate::catalogue::{Catalogue, ModelInfo};

/// One provider, as listed.
#[derive(Debug, Clone)]
pub struct ListedProvider {
    pub id: String,
    pub name: String,
    /// The environment variables its key may come from.
    pub env: Vec<String>,
    pub npm: Option<String>,
    /// Where requests go, when that is known without a model.
    pub base: Option<String>,
    /// Whether the config declares it (a custom provider, or settings over the catalogue's).
    pub configured: bool,
    /// Where its key comes from, if it has one.
    pub key: Option<KeySource>,
    /// Why it cannot be called now (no key, no base URL, a wire Strata lacks); `None` when it can.
    pub problem: Option<String>,
    pub models: Vec<ListedModel>,
}

impl ListedProvider {
    /// Whether a model of this provider can be called now.
    pub fn usable(&self) -> bool {
        self.problem.is_none()
    }
}

/// One model, as listed.
#[derive(Debug, Clone, Default)]
pub struct ListedModel {
    pub id: String,
    pub name: String,
    /// Limits, prices, reasoning (config over catalogue).
    pub info: ModelInfo,
    pub tool_call: bool,
    pub temperature: bool,
    pub attachment: bool,
    pub input: Vec<String>,
    pub release_date: Option<String>,
    pub status: Option<String>,
}

impl Resolver<'_> {
    /// Every provider the config allows, by id, with its models.
    pub fn list(&self) -> Vec<ListedProvider> {
        let db = ModelsDev::get();
        let ids: BTreeSet<&str> = db
            .ids()
            .chain(self.providers.keys().map(String::as_str))
            .filter(|id| self.allowed(id))
            .collect();
        let catalogue = Catalogue::with_config(self.providers).unwrap_or_default();
        ids.into_iter()
            .filter_map(|id| self.listed(id, &catalogue))
            .collect()
    }

    fn listed(&self, id: &str, catalogue: &Catalogue) -> Option<ListedProvider> {
        let source = self.source(id, "")?;
        let config_models = source
            .config
            .and_then(|c| c.get("models"))
            .and_then(Value::as_object);
        let mut ids: BTreeSet<&str> = source
            .catalogue
            .map(|c| c.models.keys().map(String::as_str).collect())
            .unwrap_or_default();
        ids.extend(
            config_models
                .into_iter()
                .flat_map(|m| m.keys().map(String::as_str)),
        );
        let probe = ids.iter().next().copied().unwrap_or("model");
        let endpoint = build::endpoint(self, &self.source(id, probe)?, probe);
        let models = ids
            .into_iter()
            .map(|m| {
                let entry = source.catalogue.and_then(|c| c.models.get(m));
                let config = config_models.and_then(|c| c.get(m));
                listed_model(id, m, entry, config, catalogue)
            })
            .collect();
        let name = source
            .config
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| source.catalogue.map(|c| c.name.clone()))
            .unwrap_or_else(|| id.to_string());
        Some(ListedProvider {
            id: id.to_string(),
            name,
            env: source.env_names(),
            npm: source.npm().map(str::to_string),
            base: endpoint.as_ref().ok().map(|e| e.base.clone()),
            configured: source.config.is_some(),
            key: self.key(&source).map(|(_, from)| from),
            problem: endpoint.err(),
            models,
        })
    }
}

fn listed_model(
    provider: &str,
    id: &str,
    entry: Option<&ModelEntry>,
    config: Option<&Value>,
    catalogue: &Catalogue,
) -> ListedModel {
    let full = format!("{provider}/{id}");
    let info = catalogue.lookup(&full).unwrap_or_else(|| ModelInfo {
        id: full.clone(),
        ..ModelInfo::default()
    });
    let name = config
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| entry.and_then(|e| e.name.clone()))
        .unwrap_or_else(|| id.to_string());
    let e = entry.cloned().unwrap_or(ModelEntry {
        tool_call: true,
        temperature: true,
        ..ModelEntry::default()
    });
    ListedModel {
        id: id.to_string(),
        name,
        info,
        tool_call: e.tool_call,
        temperature: e.temperature,
        attachment: e.attachment,
        input: if e.input.is_empty() {
            vec!["text".into()]
        } else {
            e.input
        },
        release_date: e.release_date,
        status: e.status,
    }
}
