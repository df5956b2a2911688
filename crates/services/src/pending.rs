//! Requests that wait for a reply from a front-end (permission asks, questions): the list of
//! pending requests with the channel each asker waits on, the broadcast of their events
//! (also forwarded to the Bus), withdrawal when an asker gives up, and rejecting everything
//! still pending when the instance closes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use strata_graph::{BoxError, Node, Scope, Service, Tier};
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use crate::bus::Bus;

/// How many events a slow subscriber may fall behind before it starts missing them.
pub(crate) const EVENT_CAPACITY: usize = 256;

/// A request a front-end replies to, and what its service says about it.
pub(crate) trait Awaited: Clone + Send + 'static {
    type Reply: Send + 'static;
    type Event: Clone + Send + Sync + 'static;

    fn id(&self) -> &str;
    /// Published when the request is put to the front-ends.
    fn asked(&self) -> Self::Event;
    /// Published when the request leaves without a reply (asker gone, instance closed).
    fn withdrawn(&self) -> Self::Event;
    /// What the asker gets when the instance closes before a reply.
    fn disposed() -> Self::Reply;
}

/// The pending requests of one service, plus `X`: state of the service's own that must change
/// under the same lock (for Permission, its `always` approvals).
pub(crate) struct PendingRequests<R: Awaited, X = ()> {
    state: Mutex<Slots<R, X>>,
    events: broadcast::Sender<R::Event>,
}

/// The locked state: the pending entries in the order they were asked.
pub(crate) struct Slots<R: Awaited, X> {
    entries: Vec<Entry<R>>,
    disposed: bool,
    pub(crate) extra: X,
}

/// One pending request and the channel its asker waits on.
pub(crate) struct Entry<R: Awaited> {
    pub(crate) request: R,
    tx: oneshot::Sender<R::Reply>,
}

/// An inserted request whose asker has not started waiting yet.
pub(crate) struct Ticket<R: Awaited> {
    id: String,
    rx: oneshot::Receiver<R::Reply>,
}

impl<R: Awaited> Entry<R> {
    /// Hands `reply` to the asker; an asker that already left is fine.
    pub(crate) fn send(self, reply: R::Reply) {
        let _ = self.tx.send(reply);
    }
}

impl<R: Awaited, X> Slots<R, X> {
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn disposed(&self) -> bool {
        self.disposed
    }

    /// The pending requests, oldest first.
    pub(crate) fn requests(&self) -> Vec<R> {
        self.entries.iter().map(|e| e.request.clone()).collect()
    }

    /// Removes the entry of request `id`, if it is still pending.
    pub(crate) fn take(&mut self, id: &str) -> Option<Entry<R>> {
        let index = self.entries.iter().position(|e| e.request.id() == id)?;
        Some(self.entries.remove(index))
    }

    /// Removes and returns the entries whose request satisfies `pred`, keeping the order.
    pub(crate) fn take_where(&mut self, pred: impl Fn(&R) -> bool) -> Vec<Entry<R>> {
        let (taken, kept) = std::mem::take(&mut self.entries)
            .into_iter()
            .partition(|e| pred(&e.request));
        self.entries = kept;
        taken
    }
}

impl<R: Awaited, X: Default> PendingRequests<R, X> {
    pub(crate) fn new() -> Self {
        PendingRequests {
            state: Mutex::new(Slots {
                entries: Vec::new(),
                disposed: false,
                extra: X::default(),
            }),
            events: broadcast::channel(EVENT_CAPACITY).0,
        }
    }

    /// The instance-tier node of service `S`, which `wrap` builds around fresh pending
    /// requests; closing the instance rejects whatever is still pending (`label` names that
    /// step).
    pub(crate) fn node<S: Service>(label: &'static str, wrap: fn(Arc<Self>) -> S) -> Node
    where
        X: Send + 'static,
    {
        Node::new(
            Tier::Instance,
            move |(bus,): (Bus,), scope: Scope| async move {
                let pending = Arc::new(Self::new());
                pending.attach(bus, &scope, label);
                Ok::<_, BoxError>(wrap(pending))
            },
        )
    }
}

impl<R: Awaited, X> PendingRequests<R, X> {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Slots<R, X>> {
        // The state stays consistent between statements, so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every event published from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<R::Event> {
        self.events.subscribe()
    }

    pub(crate) fn publish(&self, event: R::Event) {
        // No subscribers is fine: nobody is watching yet.
        let _ = self.events.send(event);
    }

    /// Ties these requests to an instance: every event also goes on `bus` (for front-ends that
    /// listen there) while `scope` lives, and closing `scope` rejects whatever is still pending.
    pub(crate) fn attach(self: &Arc<Self>, bus: Bus, scope: &Scope, label: &'static str)
    where
        X: Send + 'static,
    {
        let mut events = self.subscribe();
        scope.spawn(async move {
            while let Ok(event) = events.recv().await {
                bus.publish(event);
            }
        });
        let this = self.clone();
        scope.add_finalizer(label, move || async move { this.dispose() });
    }

    /// Publishes `request` as asked and adds it to `st` (the caller holds the lock, so its
    /// own checks and the insert are one step).
    pub(crate) fn insert(&self, st: &mut Slots<R, X>, request: R) -> Ticket<R> {
        let (tx, rx) = oneshot::channel();
        let id = request.id().to_string();
        self.publish(request.asked());
        st.entries.push(Entry { request, tx });
        Ticket { id, rx }
    }

    /// Waits for the reply to `ticket`: `cancelled` when `cancel` fires first. Cancelling
    /// (or dropping the future) withdraws the request.
    pub(crate) async fn wait(
        &self,
        ticket: Ticket<R>,
        cancel: CancellationToken,
        cancelled: R::Reply,
    ) -> R::Reply {
        let _withdraw = Withdraw {
            owner: self,
            id: ticket.id,
        };
        tokio::select! {
            // A reply that raced the cancellation wins.
            biased;
            reply = ticket.rx => reply.unwrap_or_else(|_| R::disposed()),
            () = cancel.cancelled() => cancelled,
        }
    }

    /// Rejects every pending request with [`Awaited::disposed`] and marks the state disposed,
    /// so the service refuses new ones. Called when the instance closes.
    pub(crate) fn dispose(&self) {
        let mut st = self.lock();
        st.disposed = true;
        for e in std::mem::take(&mut st.entries) {
            self.publish(e.request.withdrawn());
            e.send(R::disposed());
        }
    }

    fn withdraw(&self, id: &str) {
        let mut st = self.lock();
        if let Some(e) = st.take(id) {
            self.publish(e.request.withdrawn());
        }
    }
}

/// `prefix` + milliseconds since the epoch + a process-wide counter + random bits: a request
/// id unique in the process and roughly ordered by creation.
pub(crate) fn new_id(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let seq = COUNTER.fetch_add(1, Ordering::Relaxed);
    let noise: u32 = rand::random();
    format!("{prefix}{ms:012x}{:06x}{noise:08x}", seq & 0xff_ffff)
}

/// Withdraws the pending request when `wait` ends early (cancelled or dropped); a no-op once it
/// was answered, since answering removes it.
struct Withdraw<'a, R: Awaited, X> {
    owner: &'a PendingRequests<R, X>,
    id: String,
}

impl<R: Awaited, X> Drop for Withdraw<'_, R, X> {
    fn drop(&mut self) {
        self.owner.withdraw(&self.id);
    }
}

#[cfg(test)]
#[path = "tests_pending.rs"]
mod tests;
