//! `DecodeState`: what a provider's decoder gathers from one streamed response (its tool
//! calls, the finish reason, usage, whether the end marker came), and the one end-of-stream
//! rule every provider shares ([`DecodeState::end`]).

use super::assembler::ToolCallAssembler;
use super::error::ProviderError;
use super::types::{FinishReason, StreamEvent, Usage};

/// The provider-neutral state of one response being decoded.
#[derive(Debug)]
pub struct DecodeState {
    /// The request URL, named in errors.
    pub url: String,
    pub calls: ToolCallAssembler,
    /// The finish reason the provider gave, if it gave one yet.
    pub reason: Option<FinishReason>,
    pub usage: Option<Usage>,
    /// The provider's end-of-response marker came (`[DONE]`, `message_stop`): nothing more
    /// needs reading.
    pub done: bool,
    /// The reasoning block being streamed, by slot, with its signature so far (Anthropic).
    pub reasoning: Option<(u64, String)>,
    /// The id of the message being streamed, once it started (Anthropic's `message_start`).
    pub message: Option<String>,
    /// Where the output items are, for wires whose events name their item (Responses).
    pub items: Items,
}

/// What a wire whose events name their output item by id (the Responses API) remembers
/// between events.
#[derive(Debug, Default)]
pub struct Items {
    /// Each function call's item id with the slot its calls use (its `output_index`).
    pub slots: Vec<(String, u64)>,
    /// The message item text last came from, while no call or reasoning text came after it:
    /// text from another message then starts after a blank line.
    pub text_from: Option<String>,
    /// The reasoning summary being streamed: its item id and summary index.
    pub summary: Option<(String, u64)>,
}

impl Items {
    /// The slot of the call whose item is `id`.
    pub fn slot(&self, id: &str) -> Option<u64> {
        self.slots.iter().find(|(i, _)| i == id).map(|(_, s)| *s)
    }
}

impl DecodeState {
    pub fn new(url: String) -> Self {
        Self {
            url,
            calls: ToolCallAssembler::new(),
            reason: None,
            usage: None,
            done: false,
            reasoning: None,
            message: None,
            items: Items::default(),
        }
    }

    /// A [`ProviderError::Decode`] for this response.
    pub fn decode_error(&self, detail: String) -> ProviderError {
        ProviderError::Decode {
            url: self.url.clone(),
            detail,
        }
    }

    /// The body ended (`broken` says why when reading it failed). The rule every provider
    /// follows:
    /// - with neither a finish reason nor the end marker, the response was cut off:
    ///   `Interrupted`, naming the calls still open;
    /// - otherwise every open call is complete, and one whose arguments are not valid JSON
    ///   makes it `Interrupted` too (half an instruction must not run);
    /// - else `Finish` with the reason given, or, when the provider gave none, "tool calls"
    ///   if a call started and "stop" if not.
    pub fn end(
        &mut self,
        broken: Option<String>,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        if self.reason.is_none() && !self.done {
            return Err(ProviderError::Interrupted {
                url: self.url.clone(),
                call_ids: self.calls.open_ids(),
                detail: broken
                    .unwrap_or_else(|| "the connection closed before the response finished".into()),
            });
        }
        let (ready, incomplete) = self.calls.finish();
        out.extend(ready);
        let reason = self.reason.take().unwrap_or(if self.calls.any_started() {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        });
        if !incomplete.is_empty() {
            return Err(ProviderError::Interrupted {
                url: self.url.clone(),
                call_ids: incomplete,
                detail: format!(
                    "the response finished ({reason:?}) while tool call arguments were not complete JSON"
                ),
            });
        }
        out.push(StreamEvent::Finish {
            reason,
            usage: self.usage,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_rule_names_cut_calls_and_infers_the_reason() {
        let mut cut = DecodeState::new("u".into());
        cut.calls.push(0, Some("c1"), Some("read"), Some("{\"a\""));
        let err = cut.end(Some("reset".into()), &mut Vec::new()).unwrap_err();
        assert!(
            matches!(&err, ProviderError::Interrupted { call_ids, detail, .. } if call_ids == &["c1"] && detail == "reset"),
            "{err:?}"
        );

        let mut marker_only = DecodeState::new("u".into());
        marker_only.done = true;
        marker_only
            .calls
            .push(0, Some("c1"), Some("read"), Some("{}"));
        let mut out = Vec::new();
        marker_only.end(None, &mut out).unwrap();
        assert!(matches!(
            out.last(),
            Some(StreamEvent::Finish {
                reason: FinishReason::ToolCalls,
                ..
            })
        ));

        let mut broken_json = DecodeState::new("u".into());
        broken_json.reason = Some(FinishReason::ToolCalls);
        broken_json
            .calls
            .push(0, Some("c2"), Some("read"), Some("{\"a\""));
        let err = broken_json.end(None, &mut Vec::new()).unwrap_err();
        assert!(
            matches!(&err, ProviderError::Interrupted { call_ids, .. } if call_ids == &["c2"]),
            "{err:?}"
        );
    }
}
