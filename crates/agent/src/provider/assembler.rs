//! `ToolCallAssembler`: turns streamed tool-call fragments into complete calls.
//!
//! Providers stream a call as a start (id and name) followed by fragments of its JSON arguments,
//! keyed by a slot (OpenAI's `index`, Anthropic's content-block `index`). A call becomes ready
//! when it is complete — the next call started, its block ended, or the response finished — AND
//! its arguments parse as JSON (blank arguments count as `{}`). A call whose JSON is still
//! unparseable stays open; when the response ends it is reported as incomplete, so the loop can
//! mark it failed instead of executing half an instruction.

use super::types::{StreamEvent, ToolCall};

#[derive(Debug)]
struct Pending {
    slot: u64,
    id: String,
    name: String,
    args: String,
    ready: bool,
    /// What the provider attached to the call, to be sent back with it.
    meta: Option<serde_json::Value>,
}

impl Pending {
    /// The call as it will be executed, if its arguments are complete JSON.
    fn parsed(&self) -> Option<ToolCall> {
        let arguments = if self.args.trim().is_empty() {
            "{}".to_string()
        } else if serde_json::from_str::<serde_json::Value>(&self.args).is_ok() {
            self.args.clone()
        } else {
            return None;
        };
        Some(ToolCall {
            id: self.id.clone(),
            name: self.name.clone(),
            arguments,
            meta: self.meta.clone(),
        })
    }
}

/// Accumulates tool-call fragments of one response. Pure: no I/O, no clock.
#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    calls: Vec<Pending>,
}

impl ToolCallAssembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a fragment for `slot`. The first fragment of a slot starts a call (its `id` and
    /// `name`; a missing id becomes `call_<slot>`) and first completes the calls started before
    /// it. Fragments for a call that is already ready are ignored.
    pub fn push(
        &mut self,
        slot: u64,
        id: Option<&str>,
        name: Option<&str>,
        args: Option<&str>,
    ) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        let index = match self.calls.iter().position(|c| c.slot == slot) {
            Some(i) => i,
            None => {
                out.extend(self.complete_where(|_| true));
                let id = id
                    .filter(|s| !s.is_empty())
                    .map_or_else(|| format!("call_{slot}"), str::to_string);
                let name = name.unwrap_or_default().to_string();
                out.push(StreamEvent::ToolCallStarted {
                    id: id.clone(),
                    name: name.clone(),
                });
                self.calls.push(Pending {
                    slot,
                    id,
                    name,
                    args: String::new(),
                    ready: false,
                    meta: None,
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[index];
        if call.ready {
            return out;
        }
        if call.name.is_empty()
            && let Some(name) = name
        {
            call.name = name.to_string();
        }
        if let Some(delta) = args.filter(|a| !a.is_empty()) {
            call.args.push_str(delta);
            out.push(StreamEvent::ToolCallDelta {
                id: call.id.clone(),
                delta: delta.to_string(),
            });
        }
        out
    }

    /// Marks the call in `slot` complete (e.g. its content block ended): ready if its JSON parses.
    pub fn complete(&mut self, slot: u64) -> Vec<StreamEvent> {
        self.complete_where(|c| c.slot == slot)
    }

    /// Keeps `meta` (the provider's own data about the call, such as Gemini's thought
    /// signature) with the open call in `slot`, to travel back with it.
    pub fn set_meta(&mut self, slot: u64, meta: serde_json::Value) {
        if let Some(call) = self.calls.iter_mut().find(|c| c.slot == slot && !c.ready) {
            call.meta = Some(meta);
        }
    }

    /// Marks the call in `slot` complete with the whole arguments the provider restated at its
    /// end (the Responses API does): they replace what the deltas built, unless blank.
    pub fn complete_with(&mut self, slot: u64, arguments: &str) -> Vec<StreamEvent> {
        if let Some(call) = self.calls.iter_mut().find(|c| c.slot == slot && !c.ready)
            && !arguments.trim().is_empty()
        {
            call.args = arguments.to_string();
        }
        self.complete(slot)
    }

    /// The response finished: every open call is complete. Returns the ready events and the ids
    /// of calls whose arguments are not valid JSON.
    pub fn finish(&mut self) -> (Vec<StreamEvent>, Vec<String>) {
        let ready = self.complete_where(|_| true);
        (ready, self.open_ids())
    }

    /// Ids of the calls started but not yet ready, in start order.
    pub fn open_ids(&self) -> Vec<String> {
        self.calls
            .iter()
            .filter(|c| !c.ready)
            .map(|c| c.id.clone())
            .collect()
    }

    /// Whether any call was started in this response.
    pub fn any_started(&self) -> bool {
        !self.calls.is_empty()
    }

    /// Whether a call was started in `slot` (a delta for any other slot belongs to no call).
    pub fn has_slot(&self, slot: u64) -> bool {
        self.calls.iter().any(|c| c.slot == slot)
    }

    /// The slot of the call with this id, if one was started.
    pub fn slot_of(&self, id: &str) -> Option<u64> {
        self.calls.iter().find(|c| c.id == id).map(|c| c.slot)
    }

    /// The slot of the call started last.
    pub fn last_slot(&self) -> Option<u64> {
        self.calls.last().map(|c| c.slot)
    }

    /// A slot no call uses yet: one past the highest.
    pub fn fresh_slot(&self) -> u64 {
        self.calls.iter().map(|c| c.slot + 1).max().unwrap_or(0)
    }

    fn complete_where(&mut self, pick: impl Fn(&Pending) -> bool) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        for call in self.calls.iter_mut().filter(|c| !c.ready && pick(c)) {
            if let Some(done) = call.parsed() {
                call.ready = true;
                out.push(StreamEvent::ToolCallReady(done));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready(id: &str, name: &str, args: &str) -> StreamEvent {
        StreamEvent::ToolCallReady(ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
            meta: None,
        })
    }

    fn readies(events: &[StreamEvent]) -> Vec<StreamEvent> {
        events
            .iter()
            .filter(|e| matches!(e, StreamEvent::ToolCallReady(_)))
            .cloned()
            .collect()
    }

    #[test]
    fn accumulates_deltas_and_is_ready_only_at_finish() {
        let mut a = ToolCallAssembler::new();
        let mut events = a.push(0, Some("c1"), Some("read"), Some("{\"file"));
        events.extend(a.push(0, None, None, Some("Path\":")));
        events.extend(a.push(0, None, None, Some("\"a.txt\"}")));
        assert_eq!(
            events,
            vec![
                StreamEvent::ToolCallStarted {
                    id: "c1".into(),
                    name: "read".into()
                },
                StreamEvent::ToolCallDelta {
                    id: "c1".into(),
                    delta: "{\"file".into()
                },
                StreamEvent::ToolCallDelta {
                    id: "c1".into(),
                    delta: "Path\":".into()
                },
                StreamEvent::ToolCallDelta {
                    id: "c1".into(),
                    delta: "\"a.txt\"}".into()
                },
            ],
            "nothing is ready before the call is complete"
        );
        let (done, incomplete) = a.finish();
        assert_eq!(done, vec![ready("c1", "read", "{\"filePath\":\"a.txt\"}")]);
        assert!(incomplete.is_empty());
        assert!(a.open_ids().is_empty());
    }

    #[test]
    fn the_next_call_completes_the_previous_one() {
        let mut a = ToolCallAssembler::new();
        a.push(0, Some("c1"), Some("glob"), Some("{\"pattern\":\"*.rs\"}"));
        let events = a.push(1, Some("c2"), Some("grep"), Some("{"));
        assert_eq!(
            readies(&events),
            vec![ready("c1", "glob", "{\"pattern\":\"*.rs\"}")]
        );
        assert_eq!(a.open_ids(), vec!["c2".to_string()]);
        // A late fragment for a finished call changes nothing.
        assert!(a.push(0, None, None, Some("garbage")).is_empty());
    }

    #[test]
    fn a_call_whose_json_is_unfinished_stays_open_when_the_next_starts() {
        let mut a = ToolCallAssembler::new();
        a.push(0, Some("c1"), Some("bash"), Some("{\"command\":"));
        let events = a.push(1, Some("c2"), Some("read"), None);
        assert!(readies(&events).is_empty());
        let (done, incomplete) = a.finish();
        assert_eq!(done, vec![ready("c2", "read", "{}")]);
        assert_eq!(incomplete, vec!["c1".to_string()]);
    }

    #[test]
    fn empty_arguments_become_an_empty_object_and_missing_ids_are_made_up() {
        let mut a = ToolCallAssembler::new();
        a.push(3, None, Some("todoread"), Some(""));
        assert_eq!(a.complete(3), vec![ready("call_3", "todoread", "{}")]);
        assert!(a.any_started());
    }

    #[test]
    fn slots_are_found_by_id_and_a_fresh_one_is_past_the_highest() {
        let mut a = ToolCallAssembler::new();
        assert_eq!((a.fresh_slot(), a.last_slot()), (0, None));
        a.push(4, Some("c1"), Some("read"), None);
        a.push(2, Some("c2"), Some("glob"), None);
        assert_eq!(a.slot_of("c2"), Some(2));
        assert_eq!(a.slot_of("c9"), None);
        assert_eq!(a.last_slot(), Some(2));
        assert_eq!(a.fresh_slot(), 5);
        assert!(a.has_slot(4) && !a.has_slot(3));
    }

    #[test]
    fn restated_arguments_replace_the_deltas_unless_blank() {
        let mut a = ToolCallAssembler::new();
        a.push(0, Some("c1"), Some("read"), Some("{\"filePath\":"));
        assert_eq!(
            a.complete_with(0, "{\"filePath\":\"a\"}"),
            vec![ready("c1", "read", "{\"filePath\":\"a\"}")]
        );
        assert!(a.complete_with(0, "{}").is_empty(), "a ready call stays");
        a.push(1, Some("c2"), Some("glob"), Some("{\"pattern\":\"*\"}"));
        assert_eq!(
            a.complete_with(1, " "),
            vec![ready("c2", "glob", "{\"pattern\":\"*\"}")]
        );
    }

    #[test]
    fn complete_with_invalid_json_keeps_the_call_open() {
        let mut a = ToolCallAssembler::new();
        a.push(0, Some("c1"), Some("edit"), Some("{\"oldString\": \"x"));
        assert!(a.complete(0).is_empty());
        assert_eq!(a.open_ids(), vec!["c1".to_string()]);
        a.push(0, None, None, Some("\"}"));
        assert_eq!(
            a.complete(0),
            vec![ready("c1", "edit", "{\"oldString\": \"x\"}")]
        );
    }
}
