//! The model catalogue: what Strata knows about a model before it calls it — its context window
//! and output limit, whether it reasons, and its list prices — so a run can price its steps,
//! size `max_tokens` and compact before the window is full.
//!
//! The built-in table is data (`models.json`, parsed once); the config adds or overrides entries
//! in opencode's shape: `provider.<id>.models.<model>.{limit: {context, output}, cost: {input,
//! output, cache_read, cache_write}, reasoning}`. [`Catalogue::lookup`] finds a model by
//! `provider/model`, then by its model id alone (a dated or gateway-prefixed id finds its base
//! entry). [`settings`] turns an entry, the config and `--variant` into what one run sends.

mod config;
mod settings;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::provider::Usage;

pub use config::CatalogueError;
pub use settings::{ModelSettings, VARIANTS, settings};

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
pub struct Price {
    #[serde(default)]
    pub input: f64,
    #[serde(default)]
    pub output: f64,
    #[serde(default)]
    pub cache_read: f64,
    #[serde(default)]
    pub cache_write: f64,
}

/// One model's entry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ModelInfo {
    /// `provider/model`, the key it is stored under.
    #[serde(skip)]
    pub id: String,
    /// The context window in tokens (0: unknown).
    #[serde(default)]
    pub context: u64,
    /// The most tokens one response may generate (0: unknown).
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub reasoning: bool,
    #[serde(default)]
    pub cost: Price,
}

impl ModelInfo {
    /// What a response with `usage` cost in US dollars. Output is priced whole (providers bill
    /// reasoning as output); cached input at the cache prices.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let p = &self.cost;
        // Token counts stay far below 2^53, where f64 is exact.
        #[allow(clippy::cast_precision_loss)]
        let dollars = usage.input_tokens as f64 * p.input
            + usage.output_tokens as f64 * p.output
            + usage.cache_read_tokens as f64 * p.cache_read
            + usage.cache_write_tokens as f64 * p.cache_write;
        dollars / 1_000_000.0
    }

    /// The input size at which a session should compact: the window less room for the answer
    /// (the output limit, at most 20k tokens and a quarter of the window). `None` when the
    /// window is unknown.
    pub fn compact_at(&self) -> Option<u64> {
        if self.context == 0 {
            return None;
        }
        let reserve = self.output.min(20_000).min(self.context / 4);
        Some(self.context - reserve)
    }
}

/// Model entries by `provider/model`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalogue {
    models: BTreeMap<String, ModelInfo>,
}

#[derive(Deserialize)]
struct BuiltinFile {
    models: BTreeMap<String, ModelInfo>,
}

const BUILTIN: &str = include_str!("models.json");

fn parse_builtin() -> Result<Catalogue, serde_json::Error> {
    let file: BuiltinFile = serde_json::from_str(BUILTIN)?;
    let models = file
        .models
        .into_iter()
        .map(|(id, mut info)| {
            info.id.clone_from(&id);
            (id, info)
        })
        .collect();
    Ok(Catalogue { models })
}

impl Catalogue {
    /// The built-in table. Its parse is checked by a unit test, so the empty fallback is never
    /// seen in a released build.
    pub fn builtin() -> &'static Catalogue {
        static BUILT: OnceLock<Catalogue> = OnceLock::new();
        BUILT.get_or_init(|| parse_builtin().unwrap_or_default())
    }

    /// The built-in table with the config's `provider.<id>.models` entries added or merged over
    /// it.
    pub fn with_config(
        providers: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Catalogue, CatalogueError> {
        let mut catalogue = Self::builtin().clone();
        config::apply(&mut catalogue, providers)?;
        Ok(catalogue)
    }

    /// Adds or replaces an entry.
    pub fn insert(&mut self, info: ModelInfo) {
        self.models.insert(info.id.clone(), info);
    }

    /// Every entry, by id.
    pub fn iter(&self) -> impl Iterator<Item = &ModelInfo> {
        self.models.values()
    }

    /// The entry for `model_id` (`provider/model`): the exact id; else the same id without a
    /// date or `-latest` suffix; else an entry of any provider whose model part matches (so
    /// `openai/deepseek-chat` served by a compatible endpoint finds `deepseek/deepseek-chat`),
    /// preferring the same provider; else one matching the id's last path segment.
    pub fn lookup(&self, model_id: &str) -> Option<&ModelInfo> {
        if let Some(found) = self.models.get(model_id) {
            return Some(found);
        }
        let (provider, model) = model_id.split_once('/').unwrap_or(("", model_id));
        let base = base_name(model);
        if let Some(found) = self.models.get(&format!("{provider}/{base}")) {
            return Some(found);
        }
        let by_model = |wanted: &str| {
            let mut hits = self.models.values().filter(|m| {
                m.id.split_once('/')
                    .is_some_and(|(_, m)| m == wanted || base_name(m) == wanted)
            });
            let first = hits.next()?;
            Some(
                std::iter::once(first)
                    .chain(hits)
                    .find(|m| m.id.starts_with(&format!("{provider}/")))
                    .unwrap_or(first),
            )
        };
        by_model(model)
            .or_else(|| by_model(&base))
            .or_else(|| by_model(&base_name(model.rsplit('/').next().unwrap_or(model))))
    }
}

/// A model id without the suffixes vendors add to pin a release: `-20250514`, `-2025-04-14`,
/// `-latest`, and a `:tag` (Ollama, gateways).
fn base_name(model: &str) -> String {
    let mut name = model.split(':').next().unwrap_or(model).to_string();
    if let Some(stripped) = name.strip_suffix("-latest") {
        name = stripped.to_string();
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    // `-YYYYMMDD`
    if let Some((head, tail)) = name.rsplit_once('-')
        && tail.len() == 8
        && digits(tail)
    {
        return head.to_string();
    }
    // `-YYYY-MM-DD`
    let parts: Vec<&str> = name.rsplitn(4, '-').collect();
    if parts.len() == 4
        && parts[0].len() == 2
        && parts[1].len() == 2
        && parts[2].len() == 4
        && parts[..3].iter().all(|p| digits(p))
    {
        return parts[3].to_string();
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_table_parses_and_covers_the_three_families() {
        let c = parse_builtin().unwrap();
        assert!(c.models.len() >= 20, "{}", c.models.len());
        for id in [
            "openai/gpt-4.1",
            "anthropic/claude-sonnet-4-5",
            "deepseek/deepseek-chat",
        ] {
            let m = c.lookup(id).unwrap();
            assert_eq!(m.id, id);
            assert!(m.context > 0 && m.output > 0 && m.cost.input > 0.0, "{m:?}");
        }
        for m in c.iter() {
            assert!(m.output <= m.context, "{m:?}");
        }
        assert_eq!(Catalogue::builtin(), &c);
    }

    #[test]
    fn lookup_matches_dated_prefixed_and_foreign_provider_ids() {
        let c = Catalogue::builtin();
        let id = |q: &str| c.lookup(q).map(|m| m.id.as_str());
        assert_eq!(
            id("anthropic/claude-sonnet-4-20250514"),
            Some("anthropic/claude-sonnet-4")
        );
        assert_eq!(id("openai/gpt-4.1-2025-04-14"), Some("openai/gpt-4.1"));
        assert_eq!(id("openai/deepseek-chat"), Some("deepseek/deepseek-chat"));
        assert_eq!(id("openai/qwen/qwen3-coder"), Some("qwen/qwen3-coder"));
        assert_eq!(
            id("openai/gpt-oss-120b:latest"),
            Some("openai/gpt-oss-120b")
        );
        assert_eq!(id("openai/no-such-model"), None);
    }

    #[test]
    fn cost_prices_each_kind_of_token() {
        let m = Catalogue::builtin()
            .lookup("anthropic/claude-sonnet-4")
            .unwrap();
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_read_tokens: 1_000_000,
            cache_write_tokens: 100_000,
            reasoning_tokens: 0,
        };
        let cost = m.cost(&usage);
        assert!((cost - (3.0 + 1.5 + 0.3 + 0.375)).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn compaction_leaves_room_for_the_answer() {
        let info = |context, output| ModelInfo {
            id: "x/y".into(),
            context,
            output,
            reasoning: false,
            cost: Price::default(),
        };
        assert_eq!(info(200_000, 64_000).compact_at(), Some(180_000));
        assert_eq!(info(1000, 800).compact_at(), Some(750));
        assert_eq!(info(0, 100).compact_at(), None);
    }
}
