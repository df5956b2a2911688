//! What one run sends for its model: the catalogue entry, `max_tokens` where the protocol
//! requires one (Anthropic), and the reasoning settings from the config and `--variant`.
//!
//! Reasoning settings are read, most specific first, from the variant's entry
//! `provider.<id>.models.<model>.variants.<variant>`, the model's `options`, then the
//! provider's `options`: `reasoningEffort` (or `reasoning_effort`) for OpenAI-compatible
//! models and `thinking.budgetTokens` (or `budget_tokens`) for Anthropic ones. A variant with
//! no entry maps to an effort of the same name, or to a thinking budget by size.
//!
//! Prompt caching is on unless the same sources set `cache: false`.

use serde_json::{Map, Value};

use super::{Catalogue, CatalogueError, ModelInfo};
use crate::provider::{DEFAULT_MAX_TOKENS, Reasoning, WireKind};

/// The variant names `--variant` accepts without a config entry.
pub const VARIANTS: [&str; 5] = ["minimal", "low", "medium", "high", "max"];

/// The smallest thinking budget Anthropic accepts.
const MIN_BUDGET: u32 = 1024;

/// The resolved settings of one model for one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelSettings {
    /// The catalogue entry, when the model is known.
    pub info: Option<ModelInfo>,
    pub max_tokens: Option<u32>,
    pub reasoning: Reasoning,
    /// `options.cache: false`: requests carry no cache breakpoints and no cache key.
    pub no_cache: bool,
}

impl ModelSettings {
    /// What a response with `usage` cost (0 for a model the catalogue does not know).
    pub fn cost(&self, usage: &crate::provider::Usage) -> f64 {
        self.info.as_ref().map_or(0.0, |m| m.cost(usage))
    }
}

/// Resolves the settings of `model_id` (`provider/model`) from the config's `provider` map
/// and an optional variant.
pub fn settings(
    model_id: &str,
    providers: &Map<String, Value>,
    variant: Option<&str>,
) -> Result<ModelSettings, CatalogueError> {
    let catalogue = Catalogue::with_config(providers)?;
    let info = catalogue.lookup(model_id);
    let (provider, model) = model_id.split_once('/').unwrap_or(("", model_id));
    let anthropic =
        crate::provider::resolve::wire_hint(model_id, providers) == Some(WireKind::Anthropic);
    let provider_entry = providers.get(provider);
    let model_entry = provider_entry
        .and_then(|p| p.get("models"))
        .and_then(|m| m.get(model));
    let variant_entry = variant.and_then(|v| model_entry?.get("variants")?.get(v));
    if let Some(v) = variant.filter(|v| variant_entry.is_none() && !VARIANTS.contains(v)) {
        return Err(CatalogueError {
            field: "--variant".into(),
            expected: "one of minimal, low, medium, high, max, or a variant named under \
                       provider.<id>.models.<model>.variants in the config",
            found: format!("`{v}`"),
        });
    }
    let sources = [
        variant_entry,
        model_entry.and_then(|m| m.get("options")),
        provider_entry.and_then(|p| p.get("options")),
    ];
    let pick = |read: fn(&Value) -> Option<Value>| sources.iter().flatten().find_map(|s| read(s));
    let no_cache = pick(|s| s.get("cache").cloned()) == Some(Value::Bool(false));

    let mut reasoning = requested_reasoning(anthropic, &pick, variant, variant_entry.is_none());
    // A model the catalogue says does not reason rejects these settings, unless the config
    // set them for this very model.
    let explicit = variant_entry.is_some() || model_entry.and_then(|m| m.get("options")).is_some();
    if !explicit && info.as_ref().is_some_and(|m| !m.reasoning) {
        reasoning = Reasoning::default();
    }
    let max_tokens = anthropic.then(|| max_tokens(info.as_ref(), &reasoning));
    Ok(ModelSettings {
        info,
        max_tokens,
        reasoning,
        no_cache,
    })
}

/// Reads the first of the config's sources (variant, model options, provider options) that has a
/// setting.
type Pick<'a> = dyn Fn(fn(&Value) -> Option<Value>) -> Option<Value> + 'a;

/// The reasoning the config or a built-in variant asks for: a thinking budget on Anthropic's
/// wire, an effort elsewhere. `unnamed`: the variant is a built-in one, not one the config
/// names.
fn requested_reasoning(
    anthropic: bool,
    pick: &Pick<'_>,
    variant: Option<&str>,
    unnamed: bool,
) -> Reasoning {
    let mut reasoning = Reasoning::default();
    if anthropic {
        let configured = pick(|s| {
            let t = s.get("thinking")?;
            t.get("budgetTokens")
                .or_else(|| t.get("budget_tokens"))
                .cloned()
        });
        let budget = match (configured.and_then(|v| v.as_u64()), variant) {
            (Some(n), _) => Some(n),
            (None, Some(v)) if unnamed => Some(match v {
                "minimal" => 1024,
                "low" => 4000,
                "medium" => 10_000,
                "high" => 16_000,
                _ => 31_999,
            }),
            _ => None,
        };
        reasoning.budget_tokens =
            budget.map(|b| u32::try_from(b).unwrap_or(u32::MAX).max(MIN_BUDGET));
    } else {
        let configured = pick(|s| {
            s.get("reasoningEffort")
                .or_else(|| s.get("reasoning_effort"))
                .cloned()
        });
        reasoning.effort = configured
            .and_then(|v| v.as_str().map(str::to_string))
            .or_else(|| {
                variant
                    .filter(|_| unnamed)
                    .map(|v| if v == "max" { "high" } else { v }.to_string())
            });
    }
    reasoning
}

/// Anthropic's `max_tokens`: the model's output limit, raised past a thinking budget that
/// would leave no room for the answer.
fn max_tokens(info: Option<&ModelInfo>, reasoning: &Reasoning) -> u32 {
    let limit = info
        .map(|m| m.output)
        .filter(|n| *n > 0)
        .map_or(DEFAULT_MAX_TOKENS, |n| u32::try_from(n).unwrap_or(u32::MAX));
    match reasoning.budget_tokens {
        Some(budget) if limit <= budget => budget.saturating_add(DEFAULT_MAX_TOKENS),
        _ => limit,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn providers(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn anthropic_gets_the_output_limit_and_a_budget_from_the_variant() {
        let none = Map::new();
        let s = settings("anthropic/claude-sonnet-4-5", &none, None).unwrap();
        assert_eq!(s.max_tokens, Some(64_000));
        assert_eq!(s.reasoning, Reasoning::default());
        let s = settings("anthropic/claude-sonnet-4-5", &none, Some("high")).unwrap();
        assert_eq!(s.reasoning.budget_tokens, Some(16_000));
        let s = settings("anthropic/unknown-model", &none, Some("max")).unwrap();
        assert_eq!(s.max_tokens, Some(31_999 + DEFAULT_MAX_TOKENS));
        assert!(s.info.is_none());
        // Non-reasoning models get no thinking even when asked.
        let s = settings("anthropic/claude-3-5-haiku", &none, Some("high")).unwrap();
        assert_eq!(s.reasoning.budget_tokens, None);
    }

    #[test]
    fn openai_effort_comes_from_variant_entries_options_or_the_variant_name() {
        let none = Map::new();
        assert_eq!(
            settings("openai/gpt-4.1", &none, None).unwrap().max_tokens,
            None
        );
        let s = settings("openai/o4-mini", &none, Some("low")).unwrap();
        assert_eq!(s.reasoning.effort.as_deref(), Some("low"));
        assert_eq!(s.reasoning.budget_tokens, None);
        let cfg = providers(json!({"openai": {
            "options": {"reasoningEffort": "minimal"},
            "models": {"r1": {
                "options": {"reasoning_effort": "medium"},
                "variants": {"deep": {"reasoningEffort": "high"}},
            }},
        }}));
        let effort = |m: &str, v: Option<&str>| settings(m, &cfg, v).unwrap().reasoning.effort;
        assert_eq!(effort("openai/r1", None).as_deref(), Some("medium"));
        assert_eq!(effort("openai/r1", Some("deep")).as_deref(), Some("high"));
        assert_eq!(effort("openai/o3", None).as_deref(), Some("minimal"));
        assert_eq!(
            effort("openai/gpt-4o", Some("high")),
            None,
            "gpt-4o does not reason"
        );
    }

    #[test]
    fn an_unknown_variant_is_refused_naming_the_choices() {
        let err = settings("openai/o3", &Map::new(), Some("turbo")).unwrap_err();
        assert_eq!(err.field, "--variant");
        assert!(
            err.to_string().contains("`turbo`") && err.to_string().contains("medium"),
            "{err}"
        );
    }

    #[test]
    fn caching_is_on_unless_a_model_or_provider_option_turns_it_off() {
        let none = Map::new();
        assert!(
            !settings("anthropic/claude-sonnet-4", &none, None)
                .unwrap()
                .no_cache
        );
        let cfg = providers(json!({
            "anthropic": {"options": {"cache": false}},
            "openai": {"options": {"cache": false}, "models": {"kept": {"options": {"cache": true}}}},
        }));
        let off = |m: &str| settings(m, &cfg, None).unwrap().no_cache;
        assert!(off("anthropic/claude-sonnet-4"));
        assert!(off("openai/gpt-4.1"));
        assert!(
            !off("openai/kept"),
            "the model's option wins over the provider's"
        );
    }

    #[test]
    fn configured_thinking_budgets_are_read_and_floored() {
        let cfg = providers(json!({"anthropic": {"models": {"claude-sonnet-4": {
            "options": {"thinking": {"type": "enabled", "budgetTokens": 100}},
        }}}}));
        let s = settings("anthropic/claude-sonnet-4", &cfg, None).unwrap();
        assert_eq!(s.reasoning.budget_tokens, Some(MIN_BUDGET));
    }
}
