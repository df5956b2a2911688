//! The Bus service: typed, in-process publish/subscribe.
//!
//! Each event type gets its own broadcast channel, made the first time anyone publishes or
//! subscribes to it, so subscribers only ever see the type they asked for. The event types shared
//! across floors (file edits, file-watcher changes) are defined here.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::broadcast;

/// How many events a slow subscriber may fall behind before it starts missing them.
pub const CAPACITY: usize = 1024;

/// Handle to the process-wide event bus.
#[derive(Clone, Default)]
pub struct Bus {
    channels: Arc<Mutex<HashMap<TypeId, Box<dyn Any + Send + Sync>>>>,
}

impl strata_graph::Service for Bus {
    const KEY: &'static str = "Bus";
}

impl Bus {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends `event` to every current subscriber of `E`; returns how many received it.
    /// With no subscribers the event is dropped.
    pub fn publish<E: Clone + Send + Sync + 'static>(&self, event: E) -> usize {
        self.sender::<E>().send(event).unwrap_or(0)
    }

    /// A receiver of every `E` published from now on.
    pub fn subscribe<E: Clone + Send + Sync + 'static>(&self) -> broadcast::Receiver<E> {
        self.sender::<E>().subscribe()
    }

    fn sender<E: Clone + Send + Sync + 'static>(&self) -> broadcast::Sender<E> {
        let mut channels = self.lock();
        let entry = channels
            .entry(TypeId::of::<E>())
            .or_insert_with(|| Box::new(broadcast::channel::<E>(CAPACITY).0));
        match entry.downcast_ref::<broadcast::Sender<E>>() {
            Some(tx) => tx.clone(),
            // Unreachable: the map is keyed by the TypeId of the sender's event type. Repair the
            // entry rather than panic.
            None => {
                let tx = broadcast::channel::<E>(CAPACITY).0;
                *entry = Box::new(tx.clone());
                tx
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<TypeId, Box<dyn Any + Send + Sync>>> {
        // A poisoned lock only means a holder panicked; the map itself is still valid.
        self.channels.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl std::fmt::Debug for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bus")
            .field("event_types", &self.lock().len())
            .finish()
    }
}

/// A tool changed a file's content (write, edit, apply_patch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdited {
    pub path: PathBuf,
}

/// What happened to a watched file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WatchKind {
    Add,
    Change,
    Unlink,
}

/// A file in the project was added, changed or removed (from any source).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWatcher {
    pub path: PathBuf,
    pub kind: WatchKind,
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::broadcast::error::TryRecvError;

    #[tokio::test]
    async fn subscribers_receive_their_type_in_order() {
        let bus = Bus::new();
        let mut a = bus.subscribe::<FileEdited>();
        let mut b = bus.clone().subscribe::<FileEdited>();
        assert_eq!(
            bus.publish(FileEdited {
                path: "a.txt".into()
            }),
            2
        );
        bus.publish(FileEdited {
            path: "b.txt".into(),
        });
        for rx in [&mut a, &mut b] {
            assert_eq!(rx.recv().await.unwrap().path, PathBuf::from("a.txt"));
            assert_eq!(rx.recv().await.unwrap().path, PathBuf::from("b.txt"));
        }
    }

    #[tokio::test]
    async fn other_types_see_nothing() {
        let bus = Bus::new();
        let mut edits = bus.subscribe::<FileEdited>();
        let mut watch = bus.subscribe::<FileWatcher>();
        bus.publish(FileWatcher {
            path: "x".into(),
            kind: WatchKind::Unlink,
        });
        assert_eq!(edits.try_recv().unwrap_err(), TryRecvError::Empty);
        let got = watch.recv().await.unwrap();
        assert_eq!(got.kind, WatchKind::Unlink);
        assert_eq!(watch.try_recv().unwrap_err(), TryRecvError::Empty);
    }

    #[test]
    fn publishing_without_subscribers_is_harmless() {
        let bus = Bus::new();
        assert_eq!(bus.publish(42u32), 0);
        // A later subscriber does not see earlier events.
        let mut rx = bus.subscribe::<u32>();
        assert_eq!(rx.try_recv().unwrap_err(), TryRecvError::Empty);
        bus.publish(7u32);
        assert_eq!(rx.try_recv().unwrap(), 7);
    }
}
