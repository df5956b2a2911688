//! PendingRequests on its own: insert and reply, withdrawal on cancel and drop, dispose,
//! take_where order, and forwarding to the Bus.

use std::time::Duration;

use strata_graph::Scope;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::bus::Bus;

const WAIT: Duration = Duration::from_secs(10);

#[derive(Clone, Debug, PartialEq)]
struct Req(String);

#[derive(Clone, Debug, PartialEq)]
enum Ev {
    Asked(String),
    Withdrawn(String),
}

#[derive(Debug, PartialEq)]
enum Reply {
    Yes,
    Cancelled,
    Disposed,
}

impl Awaited for Req {
    type Reply = Reply;
    type Event = Ev;

    fn id(&self) -> &str {
        &self.0
    }
    fn asked(&self) -> Ev {
        Ev::Asked(self.0.clone())
    }
    fn withdrawn(&self) -> Ev {
        Ev::Withdrawn(self.0.clone())
    }
    fn disposed() -> Reply {
        Reply::Disposed
    }
}

type Pending = PendingRequests<Req>;

fn insert(p: &Pending, id: &str) -> Ticket<Req> {
    let mut st = p.lock();
    p.insert(&mut st, Req(id.into()))
}

async fn next(rx: &mut broadcast::Receiver<Ev>) -> Ev {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("no event within the timeout")
        .expect("event channel closed")
}

#[tokio::test]
async fn a_reply_reaches_the_waiter_and_leaves_nothing_pending() {
    let p = Pending::new();
    let mut events = p.subscribe();
    let ticket = insert(&p, "a");
    assert_eq!(next(&mut events).await, Ev::Asked("a".into()));
    assert_eq!(p.lock().requests(), vec![Req("a".into())]);

    let entry = p.lock().take("a").expect("a is pending");
    entry.send(Reply::Yes);
    let reply = p
        .wait(ticket, CancellationToken::new(), Reply::Cancelled)
        .await;
    assert_eq!(reply, Reply::Yes);
    assert_eq!(p.lock().len(), 0);
    // Answered requests are not withdrawn.
    assert!(events.try_recv().is_err());
    assert!(p.lock().take("a").is_none());
}

/// The request `id` left with a withdrawal event and nothing is pending any more.
async fn assert_withdrawn(p: &Pending, events: &mut broadcast::Receiver<Ev>, id: &str) {
    assert_eq!(next(events).await, Ev::Withdrawn(id.into()));
    assert_eq!(p.lock().len(), 0);
}

#[tokio::test]
async fn cancelling_withdraws_the_request() {
    let p = Pending::new();
    let ticket = insert(&p, "a");
    let mut events = p.subscribe();
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert_eq!(
        p.wait(ticket, cancel, Reply::Cancelled).await,
        Reply::Cancelled
    );
    assert_withdrawn(&p, &mut events, "a").await;
}

#[tokio::test]
async fn dropping_the_wait_withdraws_the_request() {
    let p = Pending::new();
    let ticket = insert(&p, "a");
    let mut events = p.subscribe();
    // A zero timeout polls the wait once (so it is waiting) and then drops it.
    let waiting = p.wait(ticket, CancellationToken::new(), Reply::Cancelled);
    assert!(tokio::time::timeout(Duration::ZERO, waiting).await.is_err());
    assert_withdrawn(&p, &mut events, "a").await;
}

#[tokio::test]
async fn dispose_rejects_everything_pending_and_marks_the_state() {
    let p = Pending::new();
    let a = insert(&p, "a");
    let b = insert(&p, "b");
    let mut events = p.subscribe();
    p.dispose();
    assert!(p.lock().disposed());
    assert_eq!(p.lock().len(), 0);
    assert_eq!(next(&mut events).await, Ev::Withdrawn("a".into()));
    assert_eq!(next(&mut events).await, Ev::Withdrawn("b".into()));
    for ticket in [a, b] {
        let reply = p
            .wait(ticket, CancellationToken::new(), Reply::Cancelled)
            .await;
        assert_eq!(reply, Reply::Disposed);
    }
}

#[tokio::test]
async fn take_where_keeps_the_order_of_both_parts() {
    let p = Pending::new();
    let _tickets: Vec<_> = ["a1", "b1", "a2", "b2"]
        .iter()
        .map(|id| insert(&p, id))
        .collect();
    let taken = p.lock().take_where(|r| r.0.starts_with('a'));
    let taken: Vec<_> = taken.into_iter().map(|e| e.request).collect();
    assert_eq!(taken, vec![Req("a1".into()), Req("a2".into())]);
    assert_eq!(
        p.lock().requests(),
        vec![Req("b1".into()), Req("b2".into())]
    );
}

#[tokio::test]
async fn events_are_forwarded_to_the_bus_while_the_scope_lives() {
    let scope = Scope::new();
    let bus = Bus::new();
    let mut on_bus = bus.subscribe::<Ev>();
    let p = std::sync::Arc::new(Pending::new());
    p.attach(bus, &scope, "test: reject pending");
    let _ticket = insert(&p, "a");
    assert_eq!(next(&mut on_bus).await, Ev::Asked("a".into()));
    scope.close().await;
    // Closing the scope disposed the requests.
    assert!(p.lock().disposed());
    assert_eq!(p.lock().len(), 0);
}
