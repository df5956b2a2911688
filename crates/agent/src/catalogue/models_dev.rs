//! The models.dev catalogue packed into the binary (see `build.rs`): every provider opencode
//! knows, with its key variables, base URL and wire (`npm`), and every model with its limits,
//! prices and abilities. Inflated and parsed once, on first use, so a command that never looks
//! up a model (`strata tools`, `strata --version`) neither pays the time nor holds the memory.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::Price;

/// The packed catalogue, deflated.
static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/models-dev.bin"));

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

/// The whole catalogue, by provider id.
#[derive(Debug, Default, Deserialize)]
pub struct ModelsDev {
    pub providers: BTreeMap<String, ProviderEntry>,
}

impl ModelsDev {
    /// The packed catalogue, parsed on first use. Its unpacking is checked by a unit test, so
    /// the empty fallback is never seen in a released build.
    pub fn get() -> &'static ModelsDev {
        static PARSED: OnceLock<ModelsDev> = OnceLock::new();
        PARSED.get_or_init(|| unpack().unwrap_or_default())
    }

    pub fn provider(&self, id: &str) -> Option<&ProviderEntry> {
        self.providers.get(id)
    }

    /// The model `model` of provider `provider`.
    pub fn model(&self, provider: &str, model: &str) -> Option<&ModelEntry> {
        self.providers.get(provider)?.models.get(model)
    }
}

fn unpack() -> Result<ModelsDev, String> {
    let bytes = miniz_oxide::inflate::decompress_to_vec(PACKED)
        .map_err(|e| format!("the packed catalogue does not inflate: {e:?}"))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("the packed catalogue does not parse: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_catalogue_holds_every_provider_with_limits_and_prices() {
        let db = unpack().unwrap();
        assert!(db.providers.len() >= 140, "{}", db.providers.len());
        let models: usize = db.providers.values().map(|p| p.models.len()).sum();
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
    }

    #[test]
    fn base_models_and_interleaved_fields_are_folded_in() {
        let db = unpack().unwrap();
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
            .providers
            .values()
            .flat_map(|p| p.models.values())
            .filter(|m| m.interleaved.is_some())
            .count();
        assert!(interleaved > 500, "{interleaved}");
    }
}
