//! How far each subscriber has taken its stream. A blocking prompt answers only once every
//! open stream has passed the turn's last event, because opencode's `run` stops reading
//! events as soon as the answer arrives: an event still queued then is never shown.
//!
//! A reader counts as past `target` once it has consumed everything the hub pushed to it up
//! to `target`; a stream that wants none of the turn's events is past it at once.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use tokio::sync::Notify;

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
    use super::*;

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
