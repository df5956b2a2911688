//! The model catalogue: what Strata knows about a model before it calls it — its context window
//! and output limit, whether it reasons, its list prices, and whether its reasoning must travel
//! back on tool-call turns — so a run can price its steps, size `max_tokens` and compact before
//! the window is full.
//!
//! Three layers, most specific first: the config's `provider.<id>.models.<model>` entries (in
//! opencode's shape: `limit: {context, output}`, `cost: {input, output, cache_read,
//! cache_write}`, `reasoning`), then the models.dev catalogue packed into the binary
//! ([`models_dev`], parsed on first use), then Strata's own small table (`models.json`), which
//! also fills limits the catalogue leaves out. [`Catalogue::lookup`] finds a model by
//! `provider/model`, then by its model id alone (a dated or gateway-prefixed id finds its base
//! entry). [`settings`] turns an entry, the config and `--variant` into what one run sends.

mod config;
pub mod models_dev;
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
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
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
    /// The assistant-message field its reasoning travels back in on tool-call turns
    /// (models.dev's `interleaved`), for chat-completions wires.
    #[serde(default)]
    pub interleaved: Option<String>,
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

/// The config's model entries over the packed catalogue and Strata's own table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalogue {
    /// Entries from the config, already merged over what the lower layers say.
    config: BTreeMap<String, ModelInfo>,
}

#[derive(Deserialize)]
struct BuiltinFile {
    models: BTreeMap<String, ModelInfo>,
}

const BUILTIN: &str = include_str!("models.json");

fn parse_builtin() -> Result<BTreeMap<String, ModelInfo>, serde_json::Error> {
    let file: BuiltinFile = serde_json::from_str(BUILTIN)?;
    Ok(file
        .models
        .into_iter()
        .map(|(id, mut info)| {
            info.id.clone_from(&id);
            (id, info)
        })
        .collect())
}

/// Strata's own table. Its parse is checked by a unit test, so the empty fallback is never
/// seen in a released build.
fn own_table() -> &'static BTreeMap<String, ModelInfo> {
    static BUILT: OnceLock<BTreeMap<String, ModelInfo>> = OnceLock::new();
    BUILT.get_or_init(|| parse_builtin().unwrap_or_default())
}

impl Catalogue {
    /// The catalogue without config entries.
    pub fn builtin() -> &'static Catalogue {
        static EMPTY: OnceLock<Catalogue> = OnceLock::new();
        EMPTY.get_or_init(Catalogue::default)
    }

    /// The catalogue with the config's `provider.<id>.models` entries merged over it.
    pub fn with_config(
        providers: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Catalogue, CatalogueError> {
        let mut catalogue = Catalogue::default();
        config::apply(&mut catalogue, providers)?;
        Ok(catalogue)
    }

    /// Adds or replaces an entry (it wins over every lower layer).
    pub fn insert(&mut self, info: ModelInfo) {
        self.config.insert(info.id.clone(), info);
    }

    /// The entries of Strata's own table, by id.
    pub fn own_entries() -> impl Iterator<Item = &'static ModelInfo> {
        own_table().values()
    }

    /// The entry for `model_id` (`provider/model`): a config entry; else the packed
    /// catalogue's entry for that provider and model (with limits it lacks taken from Strata's
    /// own table); else Strata's own table, by the exact id, by the id without a date or
    /// `-latest` suffix, or by the model part under any provider (so `openai/deepseek-chat`
    /// served by a compatible endpoint finds `deepseek/deepseek-chat`); else the packed
    /// catalogue's entry for the same model under another provider.
    pub fn lookup(&self, model_id: &str) -> Option<ModelInfo> {
        if let Some(found) = self.config.get(model_id) {
            return Some(found.clone());
        }
        let (provider, model) = model_id.split_once('/').unwrap_or(("", model_id));
        let db = models_dev::ModelsDev::get();
        let own = fuzzy(own_table(), model_id);
        if let Some(entry) = db.model(provider, model) {
            return Some(from_models_dev(model_id, entry, own));
        }
        if let Some(own) = own {
            return Some(own.clone());
        }
        let base = base_name(model);
        db.models_named(&[model, &base])
            .into_iter()
            .min_by_key(|(p, _, _)| *p != provider)
            .map(|(_, _, entry)| from_models_dev(model_id, &entry, None))
    }
}

/// A packed-catalogue entry as a [`ModelInfo`] under `id`; zero limits and prices are taken
/// from `own` (Strata's table) when it has them.
fn from_models_dev(id: &str, entry: &models_dev::ModelEntry, own: Option<&ModelInfo>) -> ModelInfo {
    let pick = |a: u64, b: Option<u64>| if a == 0 { b.unwrap_or(0) } else { a };
    let mut cost = entry.cost;
    if cost == Price::default()
        && let Some(own) = own
    {
        cost = own.cost;
    }
    ModelInfo {
        id: id.to_string(),
        context: pick(entry.context, own.map(|o| o.context)),
        output: pick(entry.output, own.map(|o| o.output)),
        reasoning: entry.reasoning || own.is_some_and(|o| o.reasoning),
        cost,
        interleaved: entry.interleaved.clone(),
    }
}

/// Strata's own lookup rules over `models`: exact id, id without a release suffix, then the
/// model part under any provider (preferring the same provider), then the last path segment.
fn fuzzy<'a>(models: &'a BTreeMap<String, ModelInfo>, model_id: &str) -> Option<&'a ModelInfo> {
    if let Some(found) = models.get(model_id) {
        return Some(found);
    }
    let (provider, model) = model_id.split_once('/').unwrap_or(("", model_id));
    let base = base_name(model);
    if let Some(found) = models.get(&format!("{provider}/{base}")) {
        return Some(found);
    }
    let by_model = |wanted: &str| {
        let mut hits = models.values().filter(|m| {
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
        let own = parse_builtin().unwrap();
        assert!(own.len() >= 20, "{}", own.len());
        let c = Catalogue::builtin();
        for id in [
            "openai/gpt-4.1",
            "anthropic/claude-sonnet-4-5",
            "deepseek/deepseek-chat",
        ] {
            let m = c.lookup(id).unwrap();
            assert_eq!(m.id, id);
            assert!(m.context > 0 && m.output > 0 && m.cost.input > 0.0, "{m:?}");
        }
        for m in own.values() {
            assert!(m.output <= m.context, "{m:?}");
        }
        assert_eq!(own_table(), &own);
    }

    #[test]
    fn lookup_matches_dated_prefixed_and_foreign_provider_ids() {
        let own = own_table();
        let id = |q: &str| fuzzy(own, q).map(|m| m.id.as_str());
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
    fn the_packed_catalogue_answers_first_and_strata_fills_its_gaps() {
        let c = Catalogue::builtin();
        // Known to models.dev under its own provider.
        let groq = c.lookup("groq/llama-3.3-70b-versatile").unwrap();
        assert!(groq.context > 0 && groq.cost.input > 0.0, "{groq:?}");
        assert_eq!(groq.id, "groq/llama-3.3-70b-versatile");
        // models.dev gives `openai/gpt-5` prices but no limits: Strata's table fills them.
        let gpt5 = c.lookup("openai/gpt-5").unwrap();
        assert_eq!((gpt5.context, gpt5.output), (400_000, 128_000));
        assert_eq!(gpt5.cost.input, 1.25);
        // Interleaved reasoning is carried from the catalogue.
        let kimi = c.lookup("moonshotai/kimi-k2-thinking").unwrap();
        assert_eq!(kimi.interleaved.as_deref(), Some("reasoning_content"));
        // A model served under a provider that does not list it finds it elsewhere.
        let foreign = c.lookup("ollama/deepseek-reasoner").unwrap();
        assert!(foreign.context > 0, "{foreign:?}");
        assert_eq!(c.lookup("ollama/no-such-model-at-all"), None);
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
            ..ModelInfo::default()
        };
        assert_eq!(info(200_000, 64_000).compact_at(), Some(180_000));
        assert_eq!(info(1000, 800).compact_at(), Some(750));
        assert_eq!(info(0, 100).compact_at(), None);
    }
}
