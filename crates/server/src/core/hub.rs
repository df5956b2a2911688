//! The event fan-out. Stored events are read back from SQLite in their global order, converted
//! once, and handed to every subscriber's bounded queue. The store's live channel says how far
//! to read: it carries each commit and each text delta in the order they happened, and the
//! fan-out takes it in that order (see `fanout`), so a delta goes out after the events stored
//! before it and before its part's completion. Other live-only events (permission and
//! question requests) go out after what the channel held when they were published. A
//! subscriber whose queue is full is dropped: its stream ends and it resumes from its last
//! cursor with `Last-Event-ID`.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use strata_agent::store::Store;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::CoreError;
use super::convert::Converter;
pub use super::fanout::EventFilter;
use super::fanout::{Command, PAGE, Task};
pub use super::frame::Frame;
use super::progress::{Reader, Readers};

/// Frames a subscriber may have queued before it counts as too slow and is disconnected.
pub const CLIENT_QUEUE: usize = 4096;
/// Handle to the fan-out task.
#[derive(Debug, Clone)]
pub struct Hub {
    commands: mpsc::UnboundedSender<Command>,
    delivered: watch::Receiver<i64>,
    readers: Arc<Readers>,
    store: Store,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Command")
    }
}

impl Hub {
    /// Starts the fan-out task; it ends when `stop` fires.
    pub fn start(store: Store, stop: CancellationToken) -> Result<Hub, CoreError> {
        // Subscribed before the last event is read: whatever is committed after it is in the
        // channel.
        let live = store.subscribe();
        let last = store.global_last()?;
        let (commands, rx) = mpsc::unbounded_channel();
        let (delivered_tx, delivered) = watch::channel(last);
        let task = Task {
            store: store.clone(),
            live,
            converter: Converter::new(store.clone()),
            clients: Vec::new(),
            last,
            delivered: delivered_tx,
        };
        tokio::spawn(task.run(rx, stop));
        Ok(Hub {
            commands,
            delivered,
            readers: Arc::default(),
            store,
        })
    }

    /// Sends a live-only event to the subscribers that want it, after the stored events and
    /// text deltas already in the store's live channel.
    pub fn publish(&self, frame: Frame) {
        let _ = self.commands.send(Command::Live(Box::new(frame)));
    }

    /// A new subscription; with `after`, the stored events after that cursor come first.
    pub fn subscribe(&self, filter: EventFilter, after: Option<i64>) -> Subscription {
        // Without a cursor the stream starts now, not when the hub gets to the registration:
        // what is committed in between is replayed.
        let after = after.or_else(|| self.store.global_last().ok());
        let (queue, rx) = mpsc::channel(CLIENT_QUEUE);
        let (registered, at) = oneshot::channel();
        let reader = self.readers.add(after.unwrap_or(0));
        let _ = self.commands.send(Command::Subscribe {
            filter: filter.clone(),
            queue,
            reader: reader.clone(),
            registered,
        });
        Subscription {
            readers: self.readers.clone(),
            reader,
            returned: after.unwrap_or(0),
            store: self.store.clone(),
            converter: Converter::new(self.store.clone()),
            filter,
            replay_after: after,
            registered_at: Some(at),
            replay_until: 0,
            pending: VecDeque::new(),
            live: rx,
        }
    }

    /// Waits (at most `limit`) until every stored event up to `cursor` has been handed to the
    /// subscribers and taken by their streams.
    pub async fn delivered(&self, cursor: i64, limit: Duration) {
        let mut rx = self.delivered.clone();
        let _ = tokio::time::timeout(limit, async {
            let _ = rx.wait_for(|d| *d >= cursor).await;
            self.readers.past(cursor).await;
        })
        .await;
    }
}

/// One subscriber's stream: replayed stored events first, then live frames.
#[derive(Debug)]
pub struct Subscription {
    readers: Arc<Readers>,
    reader: Arc<Reader>,
    /// The cursor of the last stored frame returned.
    returned: i64,
    store: Store,
    converter: Converter,
    filter: EventFilter,
    replay_after: Option<i64>,
    registered_at: Option<oneshot::Receiver<i64>>,
    replay_until: i64,
    pending: VecDeque<Frame>,
    live: mpsc::Receiver<Arc<Frame>>,
}

impl Subscription {
    /// The next frame; `None` when the hub dropped this subscriber (too slow) or stopped.
    pub async fn next(&mut self) -> Option<Arc<Frame>> {
        // Asked for more: the caller has taken every frame returned so far.
        self.readers.consumed(&self.reader, self.returned);
        let frame = self.next_frame().await?;
        if let Some(cursor) = frame.cursor {
            self.returned = self.returned.max(cursor);
        }
        Some(frame)
    }

    async fn next_frame(&mut self) -> Option<Arc<Frame>> {
        if let Some(at) = &mut self.registered_at {
            // Everything up to `at` is replayed from the store; the queue has what follows.
            // (Taken only once answered, so a caller's select! may cancel this safely.)
            self.replay_until = at.await.ok()?;
            self.registered_at = None;
        }
        loop {
            if let Some(frame) = self.pending.pop_front() {
                return Some(Arc::new(frame));
            }
            match self.replay_after {
                Some(after) if after < self.replay_until => {
                    let page = self
                        .store
                        .global_events_between(after, self.replay_until, PAGE)
                        .ok()?;
                    let mut next = self.replay_until;
                    for stored in &page {
                        next = stored.gseq;
                        let frames = self.converter.frames(stored);
                        self.pending
                            .extend(frames.into_iter().filter(|f| self.filter.wants(f)));
                    }
                    if page.is_empty() {
                        next = self.replay_until;
                    }
                    self.replay_after = Some(next);
                }
                _ => {
                    // The replay is taken: it counts as consumed even where it held no frame.
                    let replayed = self.replay_after.unwrap_or(self.replay_until);
                    self.readers.consumed(&self.reader, replayed);
                    return self.live.recv().await;
                }
            }
        }
    }
}
