//! Event sequences for the TUI reducer, read from fuzz bytes, and the reducer's two properties:
//! a replayed event changes nothing, and numbered events give the same state in any arrival
//! order.
//!
//! Every event belongs to the open session and carries its number (1, 2, …), as the server's
//! `/event` stream sends them. `session.deleted` is left out: the server sends nothing of a
//! session after deleting it, so no order of later events is meaningful.

use serde_json::{Value, json};
use strata_tui::Envelope;
use strata_tui::State;
use strata_tui::event::decode;
use strata_tui::model::{SessionInfo, Snapshot};
use strata_tui::state::GAP_WINDOW;

/// The open session's id.
pub const SID: &str = "ses_1";

/// A cursor over fuzz bytes that reads zeros once they run out.
#[derive(Debug)]
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    /// One of `items`, chosen by the next byte.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.byte() as usize % items.len()]
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

const MESSAGES: [&str; 3] = ["msg_a", "msg_b", "msg_c"];
const PARTS: [&str; 3] = ["prt_1", "prt_2", "prt_3"];
const WORDS: [&str; 8] = ["Do", "ne", " ", "\n", "**b**", "é", "日本", ""];

fn words(b: &mut Bytes<'_>) -> String {
    let n = b.byte() % 4;
    (0..n).map(|_| b.pick(&WORDS)).collect()
}

fn message(b: &mut Bytes<'_>) -> Value {
    let id = b.pick(&MESSAGES);
    if b.byte() % 2 == 0 {
        json!({"id": id, "sessionID": SID, "role": "user", "time": {"created": 1},
               "agent": "build", "model": {"providerID": "p", "modelID": "m"}})
    } else {
        json!({"id": id, "sessionID": SID, "role": "assistant", "time": {"created": 2},
               "agent": "build", "providerID": "p", "modelID": "m", "cost": b.byte() as f64,
               "tokens": {"input": b.byte(), "output": 1, "reasoning": 0,
                          "cache": {"read": 0, "write": 0}}})
    }
}

fn part(b: &mut Bytes<'_>) -> Value {
    let (id, msg) = (b.pick(&PARTS), b.pick(&MESSAGES));
    let head = json!({"id": id, "sessionID": SID, "messageID": msg});
    let body = match b.byte() % 3 {
        0 => json!({"type": "text", "text": words(b), "time": {"start": 1}}),
        1 => json!({"type": "text", "text": words(b), "time": {"start": 1, "end": 2}}),
        _ => {
            let state = match b.byte() % 3 {
                0 => json!({"status": "pending", "input": {}, "raw": words(b)}),
                1 => json!({"status": "running", "input": {"command": words(b)},
                            "time": {"start": 1}}),
                _ => json!({"status": "completed", "input": {}, "output": words(b),
                            "title": "t", "metadata": {}, "time": {"start": 1, "end": 2}}),
            };
            json!({"type": "tool", "tool": "bash", "callID": "call_1", "state": state})
        }
    };
    let mut part = head;
    if let (Some(p), Some(extra)) = (part.as_object_mut(), body.as_object()) {
        p.extend(extra.clone());
    }
    part
}

fn request(b: &mut Bytes<'_>, prefix: &str) -> String {
    format!("{prefix}_{}", b.byte() % 2)
}

/// The `type` and `properties` of one event, chosen by the bytes.
fn event(b: &mut Bytes<'_>) -> (&'static str, Value) {
    match b.byte() % 14 {
        0 => (
            "message.updated",
            json!({"sessionID": SID, "info": message(b)}),
        ),
        1 => (
            "message.part.updated",
            json!({"sessionID": SID, "part": part(b), "time": 3}),
        ),
        2 => (
            "message.part.delta",
            json!({"sessionID": SID, "messageID": b.pick(&MESSAGES),
              "partID": b.pick(&PARTS), "field": "text", "delta": words(b)}),
        ),
        3 => (
            "message.part.removed",
            json!({"sessionID": SID,
              "messageID": b.pick(&MESSAGES), "partID": b.pick(&PARTS)}),
        ),
        4 => (
            "message.removed",
            json!({"sessionID": SID, "messageID": b.pick(&MESSAGES)}),
        ),
        5 => (
            "todo.updated",
            json!({"sessionID": SID, "todos": (0..b.byte() % 3)
              .map(|_| json!({"content": words(b), "status": "pending", "priority": "high"}))
              .collect::<Vec<_>>()}),
        ),
        6 => (
            "session.status",
            json!({"sessionID": SID,
              "status": {"type": b.pick(&["busy", "idle"])}}),
        ),
        7 => ("session.idle", json!({"sessionID": SID})),
        8 => (
            "permission.asked",
            json!({"id": request(b, "per"), "sessionID": SID,
              "permission": "edit", "patterns": [words(b)], "metadata": {}, "always": ["*"]}),
        ),
        9 => (
            "permission.replied",
            json!({"sessionID": SID,
              "requestID": request(b, "per"), "reply": "once"}),
        ),
        10 => (
            "question.asked",
            json!({"id": request(b, "que"), "sessionID": SID,
              "questions": [{"question": words(b), "header": "h", "options": []}]}),
        ),
        11 => (
            b.pick(&["question.replied", "question.rejected"]),
            json!({"sessionID": SID,
              "requestID": request(b, "que"), "answers": []}),
        ),
        12 => (
            "session.updated",
            json!({"sessionID": SID, "info": session(&words(b))}),
        ),
        _ => (
            "session.error",
            json!({"sessionID": SID,
              "error": {"name": "APIError", "data": {"message": words(b)}}}),
        ),
    }
}

fn session(title: &str) -> Value {
    json!({"id": SID, "slug": "s", "projectID": "p", "directory": "/p", "title": title,
           "version": "1", "time": {"created": 1, "updated": 2}})
}

/// Up to [`GAP_WINDOW`] numbered events (so reordering never triggers a re-fetch), read from
/// the front of `b`; events whose JSON the decoder does not take are skipped.
pub fn events(b: &mut Bytes<'_>) -> Vec<Envelope> {
    let n = b.byte() as usize % GAP_WINDOW + 1;
    let mut out = Vec::new();
    for _ in 0..n {
        let (kind, props) = event(b);
        let seq = out.len() + 1;
        let item = json!({"id": format!("evt_{seq}"), "type": kind, "properties": props,
                          "seq": seq});
        if let Some(envelope) = decode(&item.to_string()) {
            out.push(envelope);
        }
    }
    out
}

/// A state with the test session open, as after the first fetch.
pub fn opened() -> State {
    let mut state = State::default();
    state.load(Snapshot {
        session: SessionInfo {
            id: SID.into(),
            title: "t".into(),
            directory: "/p".into(),
            ..Default::default()
        },
        ..Default::default()
    });
    state
}

/// The arrival order the bytes choose: a shuffle of `0..n`, with some events delivered again
/// (a replay after a reconnect) at a later point.
pub fn arrival(b: &mut Bytes<'_>, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, b.byte() as usize % (i + 1));
    }
    let mut out = Vec::with_capacity(n * 2);
    for i in order {
        out.push(i);
        if b.byte() % 4 == 0 {
            out.push(out[b.byte() as usize % out.len()]);
        }
    }
    out
}

/// Applies `events` in `order` to a freshly opened state.
pub fn run(events: &[Envelope], order: impl IntoIterator<Item = usize>) -> State {
    let mut state = opened();
    for i in order {
        let effects = state.apply(events[i].clone());
        assert!(
            effects.is_empty(),
            "no re-fetch within the window: {effects:?}"
        );
    }
    state
}

/// The properties: each event applied twice in a row gives the state of each applied once,
/// and the arrival order (with replays) the bytes choose gives the in-order state.
pub fn check(data: &[u8]) {
    let mut b = Bytes::new(data);
    let events = events(&mut b);
    let n = events.len();
    let in_order = run(&events, 0..n);
    let twice = run(&events, (0..n).flat_map(|i| [i, i]));
    assert_eq!(twice, in_order, "applying each event twice");
    let order = arrival(&mut b, n);
    let shuffled = run(&events, order.iter().copied());
    assert_eq!(shuffled, in_order, "arrival order {order:?}");
    assert_eq!(shuffled.held(), 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_zeros_when_exhausted() {
        let mut b = Bytes::new(&[3]);
        assert_eq!(b.byte(), 3);
        assert_eq!(b.byte(), 0);
        assert!(b.is_empty());
    }

    #[test]
    fn every_kind_of_event_decodes() {
        // Kind byte k, then zeros: each of the 14 kinds must make a decodable event.
        for k in 0..14u8 {
            let data = [0, k];
            assert_eq!(events(&mut Bytes::new(&data)).len(), 1, "kind {k}");
        }
    }

    #[test]
    fn an_arrival_order_holds_every_event() {
        let mut order = arrival(&mut Bytes::new(&[5, 1, 0, 0, 7, 2, 9]), 4);
        order.sort();
        order.dedup();
        assert_eq!(order, [0, 1, 2, 3]);
    }

    #[test]
    fn the_properties_hold_for_a_small_sequence() {
        check(&[4, 0, 1, 1, 1, 1, 0, 2, 2, 2, 2, 8, 0, 1, 9, 0, 3, 1, 0]);
    }
}
