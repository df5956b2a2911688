//! The model a run uses when neither `--model` nor config `model` names one: the first vendor,
//! in [`BY_KEY`] order, whose API key is set in the environment.

/// `(environment variable, model)`, in the order they are tried: Anthropic first, then OpenAI.
pub(super) const BY_KEY: [(&str, &str); 2] = [
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "openai/gpt-5"),
];

/// The default model and the key that chose it; `None` when no key is set (blank is unset).
pub(super) fn pick(env: impl Fn(&str) -> Option<String>) -> Option<(&'static str, &'static str)> {
    BY_KEY
        .iter()
        .find(|(key, _)| env(key).is_some_and(|v| !v.trim().is_empty()))
        .map(|(key, model)| (*key, *model))
}

/// The usage error when nothing chose a model.
pub(super) fn none_chosen() -> String {
    let keys: Vec<&str> = BY_KEY.iter().map(|(k, _)| *k).collect();
    format!(
        "strata: no model chosen; pass --model PROVIDER/MODEL (e.g. --model openai/gpt-4.1), \
         set \"model\" in strata.json or opencode.json, or set one of {} to use that vendor's default model",
        keys.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_tried_in_order_and_blank_ones_do_not_count() {
        let env =
            |set: &'static [&'static str]| move |k: &str| set.contains(&k).then(|| "k".to_string());
        assert_eq!(pick(env(&[])), None);
        assert_eq!(
            pick(env(&["OPENAI_API_KEY"])),
            Some(("OPENAI_API_KEY", "openai/gpt-5"))
        );
        assert_eq!(
            pick(env(&["OPENAI_API_KEY", "ANTHROPIC_API_KEY"])),
            Some(("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"))
        );
        assert_eq!(pick(|_| Some("  ".to_string())), None);
        let message = none_chosen();
        assert!(
            message.contains("ANTHROPIC_API_KEY, OPENAI_API_KEY"),
            "{message}"
        );
    }
}
