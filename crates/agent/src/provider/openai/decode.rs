//! Decoding chat-completions stream chunks (`data: {...}` … `data: [DONE]`) into neutral events.
//!
//! Text arrives as `choices[0].delta.content`, reasoning as `delta.reasoning_content`
//! (DeepSeek, vLLM) or `delta.reasoning` (OpenRouter, Ollama); tool calls as
//! `choices[0].delta.tool_calls`,
//! keyed by `index`, the first fragment carrying `id` and `function.name`, later ones pieces
//! of `function.arguments`. `finish_reason` closes the choice; with `include_usage` a last
//! chunk with empty `choices` carries `usage`; `[DONE]` ends the stream.

use serde_json::Value;

use crate::provider::sse::SseEvent;
use crate::provider::{DecodeState, FinishReason, ProviderError, StreamEvent, Usage};

fn finish_reason(text: &str) -> FinishReason {
    match text {
        "stop" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        other => FinishReason::Other(other.to_string()),
    }
}

fn preview(text: &str) -> String {
    text.chars().take(200).collect()
}

/// Reads a usage object: `prompt_tokens` counts cached input too, reported as
/// `prompt_tokens_details.cached_tokens` (OpenAI) or `prompt_cache_hit_tokens` (DeepSeek);
/// `completion_tokens` counts reasoning too (`completion_tokens_details.reasoning_tokens`).
fn usage_of(usage: &Value) -> Usage {
    let at = |p: &str| usage.pointer(p).and_then(Value::as_u64);
    let prompt = at("/prompt_tokens").unwrap_or(0);
    let cached = at("/prompt_tokens_details/cached_tokens")
        .or_else(|| at("/prompt_cache_hit_tokens"))
        .unwrap_or(0)
        .min(prompt);
    let output = at("/completion_tokens").unwrap_or(0);
    Usage {
        input_tokens: prompt - cached,
        output_tokens: output,
        reasoning_tokens: at("/completion_tokens_details/reasoning_tokens")
            .unwrap_or(0)
            .min(output),
        cache_read_tokens: cached,
        cache_write_tokens: 0,
    }
}

/// Handles one chunk of the stream.
pub(super) fn decode(
    ev: SseEvent,
    state: &mut DecodeState,
    out: &mut Vec<StreamEvent>,
) -> Result<(), ProviderError> {
    let data = ev.data.trim();
    if data.is_empty() {
        return Ok(());
    }
    if data == "[DONE]" {
        state.done = true;
        return Ok(());
    }
    let chunk: Value = serde_json::from_str(data)
        .map_err(|e| state.decode_error(format!("a chunk is not JSON ({e}): {}", preview(data))))?;
    if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
        let kind = err
            .get("type")
            .or_else(|| err.get("code"))
            .map(|k| k.as_str().map_or_else(|| k.to_string(), str::to_string))
            .unwrap_or_else(|| "error".into());
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| err.to_string(), str::to_string);
        return Err(ProviderError::Api {
            url: state.url.clone(),
            kind,
            message,
        });
    }
    if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
        state.usage = Some(usage_of(usage));
    }
    let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
        return Ok(());
    };
    if let Some(delta) = choice.get("delta") {
        let reasoning = ["reasoning_content", "reasoning"]
            .iter()
            .find_map(|k| delta.get(*k).and_then(Value::as_str));
        if let Some(text) = reasoning.filter(|t| !t.is_empty()) {
            out.push(StreamEvent::ReasoningDelta(text.to_string()));
        }
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            out.push(StreamEvent::TextDelta(text.to_string()));
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                let slot = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or(position as u64);
                let function = call.get("function");
                let field = |k: &str| function.and_then(|f| f.get(k)).and_then(Value::as_str);
                out.extend(state.calls.push(
                    slot,
                    call.get("id").and_then(Value::as_str),
                    field("name"),
                    field("arguments"),
                ));
            }
        }
    }
    if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
        state.reason = Some(finish_reason(reason));
        // The choice is over: its calls are complete (the end rule reports broken ones).
        out.extend(state.calls.finish().0);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::OpenAiWire;
    use crate::provider::ToolCall;
    use crate::provider::http::decode_all;

    /// Runs `body` through the parser and decoder as the driver would.
    fn decode(body: &str) -> (Vec<StreamEvent>, Option<ProviderError>) {
        decode_all::<OpenAiWire>("http://127.0.0.1:1/v1/chat/completions", body)
    }

    #[test]
    fn text_then_usage_then_done() {
        let body = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n",
            "data: [DONE]\n\n",
        );
        let (events, err) = decode(body);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(
            events,
            vec![
                StreamEvent::TextDelta("Hel".into()),
                StreamEvent::TextDelta("lo".into()),
                StreamEvent::Finish {
                    reason: FinishReason::Stop,
                    usage: Some(Usage::new(5, 2))
                },
            ]
        );
    }

    #[test]
    fn reasoning_deltas_and_detailed_usage() {
        let body = concat!(
            "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"Think\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"reasoning\":\"ing.\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"Done\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":40,",
            "\"prompt_tokens_details\":{\"cached_tokens\":60},\"completion_tokens_details\":{\"reasoning_tokens\":30}}}\n\n",
            "data: [DONE]\n\n",
        );
        let (events, err) = decode(body);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(events[0], StreamEvent::ReasoningDelta("Think".into()));
        assert_eq!(events[1], StreamEvent::ReasoningDelta("ing.".into()));
        assert_eq!(events[2], StreamEvent::TextDelta("Done".into()));
        assert_eq!(
            events.last(),
            Some(&StreamEvent::Finish {
                reason: FinishReason::Stop,
                usage: Some(Usage {
                    input_tokens: 40,
                    output_tokens: 40,
                    reasoning_tokens: 30,
                    cache_read_tokens: 60,
                    cache_write_tokens: 0,
                })
            })
        );
    }

    #[test]
    fn two_tool_calls_by_index_become_ready_in_order() {
        let body = concat!(
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"x\\\":\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"1}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"glob\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let (events, err) = decode(body);
        assert!(err.is_none(), "{err:?}");
        let ready: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallReady(c) => Some(c.clone()),
                _ => None,
            })
            .collect();
        let call = |id: &str, name: &str, args: &str| ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
        };
        assert_eq!(
            ready,
            vec![call("a", "read", "{\"x\":1}"), call("b", "glob", "{}")]
        );
        assert_eq!(
            events.last(),
            Some(&StreamEvent::Finish {
                reason: FinishReason::ToolCalls,
                usage: None
            })
        );
    }

    #[test]
    fn a_stream_that_stops_mid_call_is_interrupted_naming_the_call() {
        let body = concat!(
            "data: {\"choices\":[{\"delta\":{\"content\":\"let me look\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c9\",\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"comm\"}}]}}]}\n\n",
        );
        let (events, err) = decode(body);
        assert_eq!(events[0], StreamEvent::TextDelta("let me look".into()));
        match err {
            Some(ProviderError::Interrupted { call_ids, url, .. }) => {
                assert_eq!(call_ids, vec!["c9".to_string()]);
                assert!(url.ends_with("/chat/completions"));
            }
            other => panic!("expected Interrupted, got {other:?}"),
        }
    }

    #[test]
    fn finishing_with_broken_json_is_interrupted_and_errors_in_the_stream_surface() {
        let body = concat!(
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"edit\",\"arguments\":\"{\\\"a\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let (_, err) = decode(body);
        assert_eq!(
            err.as_ref().map(|e| e.interrupted_call_ids().to_vec()),
            Some(vec!["c1".to_string()])
        );
        let (_, err) = decode(
            "data: {\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit_exceeded\"}}\n\n",
        );
        match err {
            Some(e @ ProviderError::Api { .. }) => {
                assert!(e.retryable() && e.to_string().contains("slow down"))
            }
            other => panic!("expected Api, got {other:?}"),
        }
        let (_, err) = decode("data: {not json\n\n");
        assert!(matches!(err, Some(ProviderError::Decode { .. })), "{err:?}");
    }
}
