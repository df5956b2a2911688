//! The models.dev catalogue packed into the binary (see `build.rs`): every provider opencode
//! knows, with its key variables, base URL and wire (`npm`), and every model with its limits,
//! prices and abilities. Each provider is deflated on its own and inflated and parsed the first
//! time it is asked for: a command that never looks up a model (`strata tools`, `strata
//! --version`) neither pays the time nor holds the memory, and a run holds its own provider
//! only, not the whole catalogue (about 4 MB once parsed).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::Price;

/// The providers' chunks, deflated, one after another.
static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/models-dev.bin"));
/// Each provider's id and the byte range of its chunk in [`PACKED`], sorted by id.
static INDEX: &[(&str, usize, usize)] = include!(concat!(env!("OUT_DIR"), "/models-dev-index.rs"));

/// One provider of the catalogue.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ProviderEntry {
    #[serde(default)]
    pub name: String,
    /// The environment variables that may hold its key, in order.
    #[serde(default)]
    pub env: Vec<String>,
    /// The AI SDK package opencode loads for it: says which wire it speaks.
    #[serde(default)]
    pub npm: Option<String>,
    /// Its base URL, when the catalogue has one.
    #[serde(default)]
    pub api: Option<String>,
    #[serde(default)]
    pub models: BTreeMap<String, ModelEntry>,
}

/// One model of a provider, with its `base_model` already folded in.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ModelEntry {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub context: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub reasoning: bool,
    #[serde(default)]
    pub tool_call: bool,
    #[serde(default)]
    pub temperature: bool,
    #[serde(default)]
    pub attachment: bool,
    #[serde(default)]
    pub cost: Price,
    /// The assistant-message field its reasoning must travel back in on tool-call turns.
    #[serde(default)]
    pub interleaved: Option<String>,
    /// Input modalities (`text`, `image`, `pdf`, …).
    #[serde(default)]
    pub input: Vec<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub release_date: Option<String>,
    /// This model's own wire and endpoint, where they differ from its provider's.
    #[serde(default)]
    pub npm: Option<String>,
    #[serde(default)]
    pub api: Option<String>,
    /// `completions` or `responses`, where the catalogue says which OpenAI API it takes.
    #[serde(default)]
    pub shape: Option<String>,
}

/// The whole catalogue, by provider id; each provider parsed on first use.
#[derive(Debug)]
pub struct ModelsDev {
    /// In the index's order (sorted by id).
    providers: Vec<Packed>,
}

/// One provider's chunk and, once asked for, its parse (`None` if the chunk is broken, which
/// a unit test rules out for the packed catalogue).
#[derive(Debug)]
struct Packed {
    id: &'static str,
    chunk: &'static [u8],
    parsed: OnceLock<Option<ProviderEntry>>,
}

impl Packed {
    fn entry(&self) -> Option<&ProviderEntry> {
        self.parsed
            .get_or_init(|| unpack(self.id, self.chunk).ok())
            .as_ref()
    }
}

impl ModelsDev {
    /// The packed catalogue. Cheap: nothing is inflated until a provider is asked for.
    pub fn get() -> &'static ModelsDev {
        static INDEXED: OnceLock<ModelsDev> = OnceLock::new();
        INDEXED.get_or_init(|| ModelsDev::from_index(INDEX, PACKED))
    }

    fn from_index(index: &'static [(&'static str, usize, usize)], packed: &'static [u8]) -> Self {
        let providers = index
            .iter()
            .map(|&(id, start, end)| Packed {
                id,
                chunk: packed.get(start..end).unwrap_or_default(),
                parsed: OnceLock::new(),
            })
            .collect();
        ModelsDev { providers }
    }

    /// Every provider id, sorted, without inflating anything.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.providers.iter().map(|p| p.id)
    }

    /// Provider `id`, inflated and parsed the first time.
    pub fn provider(&self, id: &str) -> Option<&ProviderEntry> {
        let at = self.providers.binary_search_by(|p| p.id.cmp(id)).ok()?;
        self.providers[at].entry()
    }

    /// Every provider with its entry, sorted by id; parses (and keeps) them all.
    pub fn providers(&self) -> impl Iterator<Item = (&str, &ProviderEntry)> {
        self.providers
            .iter()
            .filter_map(|p| Some((p.id, p.entry()?)))
    }

    /// The model `model` of provider `provider`.
    pub fn model(&self, provider: &str, model: &str) -> Option<&ModelEntry> {
        self.provider(provider)?.models.get(model)
    }

    /// Every model whose id is one of `names`, under every provider, as
    /// `(provider, model id, entry)` sorted by provider then model id. Providers not parsed
    /// yet are parsed one at a time and dropped again, so a search for a model no provider
    /// has does not keep the whole catalogue in memory.
    pub fn models_named(&self, names: &[&str]) -> Vec<(&str, String, ModelEntry)> {
        let mut found = Vec::new();
        for p in &self.providers {
            let transient;
            let entry = match p.parsed.get() {
                Some(parsed) => parsed.as_ref(),
                None => {
                    transient = unpack(p.id, p.chunk).ok();
                    transient.as_ref()
                }
            };
            let models = entry.into_iter().flat_map(|e| &e.models);
            found.extend(
                models
                    .filter(|(m, _)| names.contains(&m.as_str()))
                    .map(|(m, e)| (p.id, m.clone(), e.clone())),
            );
        }
        found
    }

    /// How many providers have been parsed so far.
    #[cfg(test)]
    fn parsed(&self) -> usize {
        self.providers
            .iter()
            .filter(|p| p.parsed.get().is_some())
            .count()
    }
}

fn unpack(id: &str, chunk: &[u8]) -> Result<ProviderEntry, String> {
    // The CLI tests read this line to check which commands inflate what.
    tracing::debug!(provider = id, "inflating the catalogue's provider");
    let bytes = miniz_oxide::inflate::decompress_to_vec(chunk)
        .map_err(|e| format!("a packed catalogue provider does not inflate: {e:?}"))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| format!("a packed catalogue provider does not parse: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue with nothing parsed yet (the shared one may have been used by other
    /// tests).
    fn fresh() -> ModelsDev {
        ModelsDev::from_index(INDEX, PACKED)
    }

    #[test]
    fn the_packed_catalogue_holds_every_provider_with_limits_and_prices() {
        let db = fresh();
        let all: Vec<_> = db.providers().collect();
        assert_eq!(all.len(), INDEX.len(), "every chunk inflates and parses");
        assert!(all.len() >= 140, "{}", all.len());
        let models: usize = all.iter().map(|(_, p)| p.models.len()).sum();
        assert!(models >= 5000, "{models}");
        let sonnet = db.model("anthropic", "claude-sonnet-4-20250514").unwrap();
        assert_eq!((sonnet.context, sonnet.output), (200_000, 64_000));
        assert_eq!(sonnet.cost.cache_write, 3.75);
        let anthropic = db.provider("anthropic").unwrap();
        assert_eq!(anthropic.env, ["ANTHROPIC_API_KEY"]);
        assert_eq!(anthropic.npm.as_deref(), Some("@ai-sdk/anthropic"));
        let deepseek = db.provider("deepseek").unwrap();
        assert!(
            deepseek
                .api
                .as_deref()
                .is_some_and(|u| u.starts_with("https://"))
        );
        assert!(db.provider("no-such-provider").is_none());
    }

    #[test]
    fn the_index_is_sorted_and_its_ranges_tile_the_chunks() {
        assert!(
            INDEX.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted, no repeats"
        );
        let mut next = 0;
        for &(id, start, end) in INDEX {
            assert!(start == next && end > start, "{id}: {start}..{end}");
            next = end;
        }
        assert_eq!(next, PACKED.len());
    }

    #[test]
    fn a_provider_is_parsed_alone_and_only_when_asked_for() {
        let db = fresh();
        assert_eq!(db.ids().count(), INDEX.len());
        assert_eq!(db.parsed(), 0, "listing the ids inflates nothing");
        assert!(db.model("openai", "gpt-5").is_some());
        assert_eq!(db.parsed(), 1, "only openai");
        assert!(db.provider("openai").is_some());
        assert!(db.provider("unknown-provider").is_none());
        assert_eq!(db.parsed(), 1);
    }

    #[test]
    fn a_search_by_model_id_keeps_no_provider_it_parsed() {
        let db = fresh();
        let found = db.models_named(&["claude-sonnet-4-20250514"]);
        assert!(found.iter().any(|(p, _, _)| *p == "anthropic"), "{found:?}");
        assert!(
            found.windows(2).all(|w| w[0].0 <= w[1].0),
            "sorted by provider"
        );
        assert!(
            found
                .iter()
                .all(|(_, m, _)| m == "claude-sonnet-4-20250514")
        );
        assert_eq!(db.parsed(), 0);
        // A provider already parsed is read from its parse, with the same answer.
        db.provider("anthropic");
        assert_eq!(db.models_named(&["claude-sonnet-4-20250514"]), found);
        assert!(db.models_named(&["no-such-model"]).is_empty());
    }

    #[test]
    fn base_models_and_interleaved_fields_are_folded_in() {
        let db = fresh();
        // `glm-5.2` on ollama-cloud names `zhipuai/glm-5.2` as its base and sets only its
        // context; the rest comes from the base.
        let own = db.model("ollama-cloud", "glm-5.2").unwrap();
        assert_eq!(own.context, 976_000);
        assert_eq!(own.interleaved.as_deref(), Some("reasoning_content"));
        let base = db.model("zhipuai", "glm-5.2");
        if let Some(base) = base {
            assert_eq!(own.output, base.output);
            assert_eq!(own.reasoning, base.reasoning);
        }
        let interleaved = db
            .providers()
            .flat_map(|(_, p)| p.models.values())
            .filter(|m| m.interleaved.is_some())
            .count();
        assert!(interleaved > 500, "{interleaved}");
    }
}
