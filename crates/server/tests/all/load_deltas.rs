//! Text streaming under the load of `load_drive`: at each client, did every text part's deltas
//! arrive before the part's completion (its `message.part.updated` with `time.end` set), in
//! order, and add up to the streamed answer? Shared by the load tests and the load bench, which
//! prints [`Streaming::share`].

use std::collections::HashMap;

use strata_testkit::model_server::text_deltas;

use super::load_drive::{Got, Run, answer};

/// What one client saw of one text part.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct PartStream {
    pub session: String,
    /// Deltas that arrived before the completion, in arrival order.
    pub before: Vec<String>,
    /// Deltas that arrived after it.
    pub after: Vec<String>,
    /// The text of the completion, once it arrived.
    pub text: Option<String>,
}

/// One client's text parts by id, from its items in arrival order.
pub(crate) fn part_streams(items: &[Got]) -> HashMap<String, PartStream> {
    let mut parts: HashMap<String, PartStream> = HashMap::new();
    for g in items {
        let p = &g.payload["properties"];
        match g.kind() {
            "message.part.delta" if p["field"] == "text" => {
                let (Some(id), Some(delta)) = (p["partID"].as_str(), p["delta"].as_str()) else {
                    continue;
                };
                let part = parts.entry(id.to_string()).or_default();
                part.session = g.session().unwrap_or_default().to_string();
                let list = match part.text {
                    None => &mut part.before,
                    Some(_) => &mut part.after,
                };
                list.push(delta.to_string());
            }
            "message.part.updated" if p["part"]["type"] == "text" => {
                let ended = !p["part"]["time"]["end"].is_null();
                let Some(id) = p["part"]["id"].as_str().filter(|_| ended) else {
                    continue;
                };
                let part = parts.entry(id.to_string()).or_default();
                part.session = g.session().unwrap_or_default().to_string();
                let text = p["part"]["text"].as_str().unwrap_or_default();
                part.text.get_or_insert_with(|| text.to_string());
            }
            _ => {}
        }
    }
    parts
}

/// The streaming figure over every client: deltas that came before their part's completion,
/// out of the deltas each client should have got.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Streaming {
    /// Deltas each answer is streamed in, summed over sessions and clients.
    pub expected: usize,
    /// Deltas that arrived before their part's completion.
    pub before: usize,
    /// Deltas that arrived after it (a client would show that text twice).
    pub after: usize,
}

impl Streaming {
    /// The share (0..=1) of the expected deltas delivered before their part's completion.
    pub(crate) fn share(&self) -> f64 {
        if self.expected == 0 {
            return 1.0;
        }
        self.before as f64 / self.expected as f64
    }
}

/// Counts the run's deltas against the answers the scripted model streamed.
pub(crate) fn streaming(run: &Run) -> Streaming {
    let per_session: usize = (0..run.sessions.len())
        .map(|n| text_deltas(&answer(n)).len())
        .sum();
    let mut figure = Streaming {
        expected: per_session * run.clients.len(),
        ..Streaming::default()
    };
    for items in &run.clients {
        for part in part_streams(items).values() {
            figure.before += part.before.len();
            figure.after += part.after.len();
        }
    }
    figure
}

/// Every client got each session's answer streamed whole: the deltas the model sent, in
/// order, all before the part's completion, and nothing streamed to any other text part.
pub(crate) fn check_streaming(run: &Run) -> Result<(), String> {
    for (c, items) in run.clients.iter().enumerate() {
        let parts = part_streams(items);
        for (n, id) in run.sessions.iter().enumerate() {
            let answer = answer(n);
            let want = text_deltas(&answer);
            let mut of_session = parts.iter().filter(|(_, p)| &p.session == id);
            let Some((part_id, part)) = of_session.next() else {
                return Err(format!(
                    "client {c}: session {n} ({id}) streamed no text part"
                ));
            };
            if let Some((other, _)) = of_session.next() {
                return Err(format!(
                    "client {c}: session {n} has two text parts, {part_id} and {other}"
                ));
            }
            if part.before != want || !part.after.is_empty() || part.text.as_ref() != Some(&answer)
            {
                return Err(format!(
                    "client {c}: session {n} part {part_id}: deltas before the completion {:?}, \
                     after it {:?}, completed text {:?}; expected the deltas {want:?}, all before \
                     the completion {answer:?}",
                    part.before, part.after, part.text
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use serde_json::{Value, json};

    use super::*;

    fn got(payload: Value) -> Got {
        Got {
            at: Instant::now(),
            cursor: None,
            raw: payload.to_string(),
            payload,
        }
    }

    fn delta(part: &str, text: &str) -> Got {
        got(json!({"type": "message.part.delta", "properties": {
            "sessionID": "ses_a", "messageID": "m", "partID": part, "field": "text", "delta": text,
        }}))
    }

    fn text_part(part: &str, text: &str, end: Option<i64>) -> Got {
        got(
            json!({"type": "message.part.updated", "properties": {"part": {
                "id": part, "sessionID": "ses_a", "messageID": "m", "type": "text", "text": text,
                "time": {"start": 1, "end": end},
            }}}),
        )
    }

    fn run_of(items: Vec<Got>) -> Run {
        Run {
            sessions: vec!["ses_a".into()],
            clients: vec![items],
            start: Instant::now(),
        }
    }

    #[test]
    fn deltas_are_split_at_the_completion_of_their_part() {
        let items = vec![
            text_part("p", "", None),
            delta("p", "Lo"),
            delta("p", "ad"),
            text_part("p", "Load", Some(2)),
            delta("p", "!"),
        ];
        let parts = part_streams(&items);
        let p = &parts["p"];
        assert_eq!(p.session, "ses_a");
        assert_eq!(
            (p.before.clone(), p.after.clone()),
            (vec!["Lo".into(), "ad".into()], vec!["!".into()])
        );
        assert_eq!(p.text.as_deref(), Some("Load"));
    }

    #[test]
    fn the_answer_streamed_before_its_completion_passes_and_a_late_delta_fails() {
        let answer = answer(0);
        let mut items = vec![text_part("p", "", None)];
        items.extend(text_deltas(&answer).iter().map(|d| delta("p", d)));
        items.push(text_part("p", &answer, Some(2)));
        let on_time = run_of(items.clone());
        assert_eq!(check_streaming(&on_time), Ok(()));
        let f = streaming(&on_time);
        assert_eq!((f.before, f.after, f.share()), (f.expected, 0, 1.0));

        // The last delta comes after the completion: the check names it, the share drops.
        let last = items.remove(items.len() - 2);
        items.push(last);
        let late = run_of(items);
        let err = check_streaming(&late).unwrap_err();
        assert!(err.contains("after it [\""), "{err}");
        let f = streaming(&late);
        assert_eq!((f.before + 1, f.after), (f.expected, 1));
        assert!(f.share() < 1.0);
    }

    #[test]
    fn a_dropped_delta_fails_the_check_and_counts_as_not_before() {
        let answer = answer(0);
        let deltas = text_deltas(&answer);
        let mut items = vec![text_part("p", "", None)];
        items.extend(deltas[1..].iter().map(|d| delta("p", d)));
        items.push(text_part("p", &answer, Some(2)));
        let run = run_of(items);
        assert!(check_streaming(&run).is_err());
        let f = streaming(&run);
        assert_eq!((f.expected - f.before, f.after), (1, 0));
    }
}
