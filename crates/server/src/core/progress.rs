//! How far each subscriber has taken its stream. A blocking prompt answers only once every
//! open stream has passed the turn's last event, because opencode's `run` stops reading
//! events as soon as the answer arrives: an event still queued then is never shown.
//!
//! Also here: the finished text parts, whose late deltas the hub drops.
//!
//! A reader counts as past `target` once it has consumed everything the hub pushed to it up
//! to `target`; a stream that wants none of the turn's events is past it at once.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use strata_protocol::wire::ServerEvent;
use tokio::sync::Notify;

use super::frame::Frame;

/// Text parts remembered as finished; older ones are forgotten (their deltas are long gone).
const FINISHED_KEPT: usize = 4096;

/// The text parts recently sent whole and finished (`time.end` set). A text delta that reaches
/// the hub after its part is one of these came late: the part already holds its text.
#[derive(Debug, Default)]
pub(super) struct Finished {
    order: VecDeque<String>,
    set: HashSet<String>,
}

impl Finished {
    pub(super) fn note(&mut self, frame: &Frame) {
        let ServerEvent::PartUpdated { part, .. } = &frame.envelope.event else {
            return;
        };
        let ended = part.data.get("time").and_then(|t| t.get("end"));
        if part.kind != "text" || ended.is_none_or(serde_json::Value::is_null) {
            return;
        }
        if self.set.insert(part.id.clone()) {
            self.order.push_back(part.id.clone());
            if self.order.len() > FINISHED_KEPT
                && let Some(old) = self.order.pop_front()
            {
                self.set.remove(&old);
            }
        }
    }

    pub(super) fn contains(&self, part: &str) -> bool {
        self.set.contains(part)
    }
}

/// One subscriber's marks, shared by the hub (what it pushed) and the stream (what it took).
#[derive(Debug)]
pub(super) struct Reader {
    /// The cursor of the last stored event handed to the subscriber (or its start).
    pushed: AtomicI64,
    /// The cursor up to which the subscriber's consumer has taken every frame.
    consumed: AtomicI64,
}

impl Reader {
    pub(super) fn pushed(&self, cursor: i64) {
        self.pushed.fetch_max(cursor, Ordering::SeqCst);
    }

    fn past(&self, target: i64) -> bool {
        let pushed = self.pushed.load(Ordering::SeqCst);
        self.consumed.load(Ordering::SeqCst) >= target.min(pushed)
    }
}

/// Every live subscriber's [`Reader`], and a wake-up for those waiting on them.
#[derive(Debug, Default)]
pub(super) struct Readers {
    list: Mutex<Vec<Weak<Reader>>>,
    changed: Notify,
}

impl Readers {
    /// A reader for a subscriber that starts after `start`.
    pub(super) fn add(&self, start: i64) -> Arc<Reader> {
        let reader = Arc::new(Reader {
            pushed: AtomicI64::new(start),
            consumed: AtomicI64::new(start),
        });
        let mut list = self.list.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|r| r.strong_count() > 0);
        list.push(Arc::downgrade(&reader));
        reader
    }

    /// Records that `reader`'s consumer has taken every frame up to `cursor`.
    pub(super) fn consumed(&self, reader: &Reader, cursor: i64) {
        if reader.consumed.fetch_max(cursor, Ordering::SeqCst) < cursor {
            self.changed.notify_waiters();
        }
    }

    /// Waits until every live reader is past `target`.
    pub(super) async fn past(&self, target: i64) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self.all_past(target) {
                return;
            }
            changed.await;
        }
    }

    fn all_past(&self, target: i64) -> bool {
        let list = self.list.lock().unwrap_or_else(PoisonError::into_inner);
        list.iter()
            .filter_map(Weak::upgrade)
            .all(|r| r.past(target))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use strata_protocol::wire::PartView;

    use super::*;

    fn text_part(id: &str, end: Option<i64>) -> Frame {
        let part: PartView = serde_json::from_value(json!({
            "id": id, "sessionID": "s", "messageID": "m", "type": "text", "text": "hi",
            "time": {"start": 1, "end": end},
        }))
        .unwrap();
        Frame::live(
            None,
            ServerEvent::PartUpdated {
                session_id: "s".into(),
                part,
                time: None,
            },
        )
    }

    #[test]
    fn only_text_parts_sent_with_an_end_count_as_finished() {
        let mut f = Finished::default();
        f.note(&text_part("p1", None));
        assert!(!f.contains("p1"), "still streaming");
        f.note(&text_part("p1", Some(2)));
        assert!(f.contains("p1"));
        for n in 0..FINISHED_KEPT {
            f.note(&text_part(&format!("q{n}"), Some(2)));
        }
        assert!(!f.contains("p1"), "the oldest is forgotten");
        assert_eq!(f.set.len(), FINISHED_KEPT);
    }

    #[test]
    fn a_reader_is_past_once_it_consumed_what_it_was_pushed() {
        let readers = Readers::default();
        let r = readers.add(10);
        assert!(readers.all_past(10), "nothing pushed after its start");
        r.pushed(12);
        assert!(!readers.all_past(15), "12 was pushed and not consumed");
        readers.consumed(&r, 12);
        assert!(readers.all_past(15), "what was pushed up to 15 is consumed");
        r.pushed(20);
        // Only the last push is known, so 20 must be taken too before 15 counts as passed.
        assert!(!readers.all_past(15));
        readers.consumed(&r, 20);
        assert!(readers.all_past(20));
        r.pushed(30);
        drop(r);
        assert!(readers.all_past(20), "a dropped reader holds nothing up");
    }
}
