//! Reading a chat-completions usage report, in the shapes vendors send it, into [`Usage`].
//!
//! - `prompt_tokens` counts cached input too; the cached part is
//!   `prompt_tokens_details.cached_tokens` (OpenAI, xAI, Mistral) or `prompt_cache_hit_tokens`
//!   (DeepSeek).
//! - `completion_tokens` usually counts reasoning too
//!   (`completion_tokens_details.reasoning_tokens`); xAI counts reasoning beside it, which its
//!   `total_tokens` (prompt + completion + reasoning) gives away.
//! - The report is the chunk's `usage`, else the one inside its choice (Moonshot), else Groq's
//!   `x_groq.usage`.

use serde_json::Value;

use crate::provider::Usage;

/// The usage report a chunk carries, if any.
pub(super) fn chunk_usage(chunk: &Value) -> Option<Usage> {
    ["/usage", "/choices/0/usage", "/x_groq/usage"]
        .iter()
        .find_map(|p| chunk.pointer(p).filter(|u| u.is_object()))
        .map(usage_of)
}

/// Reads one usage object.
pub(super) fn usage_of(usage: &Value) -> Usage {
    let at = |p: &str| usage.pointer(p).and_then(Value::as_u64);
    let prompt = at("/prompt_tokens").unwrap_or(0);
    let cached = at("/prompt_tokens_details/cached_tokens")
        .filter(|n| *n > 0)
        .or_else(|| at("/prompt_cache_hit_tokens"))
        .unwrap_or(0)
        .min(prompt);
    let completion = at("/completion_tokens").unwrap_or(0);
    let reasoning = at("/completion_tokens_details/reasoning_tokens").unwrap_or(0);
    let beside = reasoning > 0 && at("/total_tokens") == Some(prompt + completion + reasoning);
    let output = if beside {
        completion + reasoning
    } else {
        completion
    };
    Usage {
        input_tokens: prompt - cached,
        output_tokens: output,
        reasoning_tokens: reasoning.min(output),
        cache_read_tokens: cached,
        cache_write_tokens: 0,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn usage(input: u64, output: u64, reasoning: u64, read: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            reasoning_tokens: reasoning,
            cache_read_tokens: read,
            cache_write_tokens: 0,
        }
    }

    #[test]
    fn cached_input_is_read_from_openai_and_deepseek_fields() {
        let openai = json!({"prompt_tokens": 100, "completion_tokens": 40,
            "prompt_tokens_details": {"cached_tokens": 60},
            "completion_tokens_details": {"reasoning_tokens": 30}});
        assert_eq!(usage_of(&openai), usage(40, 40, 30, 60));
        // DeepSeek sends both; an empty details object does not hide its own field.
        let deepseek = json!({"prompt_tokens": 339, "completion_tokens": 83,
            "prompt_tokens_details": {"cached_tokens": 0},
            "prompt_cache_hit_tokens": 320, "prompt_cache_miss_tokens": 19});
        assert_eq!(usage_of(&deepseek), usage(19, 83, 0, 320));
    }

    #[test]
    fn reasoning_counted_beside_the_completion_is_added_to_the_output() {
        // xAI: 291 + 26 + 196 = 513, so the 196 reasoning tokens are not in the 26.
        let xai = json!({"prompt_tokens": 291, "completion_tokens": 26, "total_tokens": 513,
            "prompt_tokens_details": {"cached_tokens": 290},
            "completion_tokens_details": {"reasoning_tokens": 196}});
        assert_eq!(usage_of(&xai), usage(1, 222, 196, 290));
        // Groq: 17 + 1107 = 1124, the reasoning is inside the completion.
        let groq = json!({"prompt_tokens": 17, "completion_tokens": 1107, "total_tokens": 1124,
            "completion_tokens_details": {"reasoning_tokens": 963}});
        assert_eq!(usage_of(&groq), usage(17, 1107, 963, 0));
    }

    #[test]
    fn usage_inside_the_choice_or_groqs_own_is_read_when_the_chunk_has_no_other() {
        let only_groq = json!({"choices": [], "x_groq": {"id": "req", "usage":
            {"prompt_tokens": 210, "completion_tokens": 15}}});
        assert_eq!(chunk_usage(&only_groq), Some(Usage::new(210, 15)));
        let both = json!({"usage": {"prompt_tokens": 1, "completion_tokens": 2},
            "x_groq": {"usage": {"prompt_tokens": 9, "completion_tokens": 9}}});
        assert_eq!(chunk_usage(&both), Some(Usage::new(1, 2)));
        assert_eq!(chunk_usage(&json!({"usage": null})), None);
        let in_the_choice = json!({"choices": [{"delta": {}, "finish_reason": "stop",
            "usage": {"prompt_tokens": 30, "completion_tokens": 4}}]});
        assert_eq!(chunk_usage(&in_the_choice), Some(Usage::new(30, 4)));
    }
}
