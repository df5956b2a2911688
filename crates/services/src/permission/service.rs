//! The Permission service: decides asks from rules and waits for replies when it must ask.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use strata_graph::{BoxError, Node, Scope, Tier};
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use crate::bus::Bus;

use super::error::PermissionError;
use super::events::{AskRequest, PermissionEvent, Reply, Request};
use super::rules::{Action, Rule, Ruleset, evaluate};
use super::wildcard::wildcard_match;

/// How many events a slow subscriber may fall behind before it starts missing them.
pub const EVENT_CAPACITY: usize = 256;

type Outcome = Result<(), PermissionError>;

/// Handle to one instance's permission state: pending requests and `always` approvals.
/// Clones share the state; two `Permission::new()` values are independent.
#[derive(Clone)]
pub struct Permission {
    inner: Arc<Inner>,
}

impl strata_graph::Service for Permission {
    const KEY: &'static str = "Permission";
}

struct Inner {
    state: Mutex<State>,
    events: broadcast::Sender<PermissionEvent>,
}

#[derive(Default)]
struct State {
    /// In the order they were asked.
    pending: Vec<Pending>,
    /// `{permission, pattern, allow}` for every `always` reply so far (never persisted).
    approvals: Ruleset,
    disposed: bool,
}

struct Pending {
    request: Request,
    tx: oneshot::Sender<Outcome>,
}

impl Default for Permission {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Permission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.lock();
        f.debug_struct("Permission")
            .field("pending", &st.pending.len())
            .field("approvals", &st.approvals.len())
            .field("disposed", &st.disposed)
            .finish()
    }
}

impl Permission {
    pub fn new() -> Self {
        Permission {
            inner: Arc::new(Inner {
                state: Mutex::new(State::default()),
                events: broadcast::channel(EVENT_CAPACITY).0,
            }),
        }
    }

    /// The instance-tier node; closing the instance rejects every pending request.
    pub fn node() -> Node {
        Node::new(Tier::Instance, |(bus,): (Bus,), scope: Scope| async move {
            let permission = Permission::new();
            // Every event also goes on the Bus, for front-ends that listen there.
            let mut events = permission.subscribe();
            scope.spawn(async move {
                while let Ok(event) = events.recv().await {
                    bus.publish(event);
                }
            });
            let handle = permission.clone();
            scope.add_finalizer("Permission: reject pending requests", move || async move {
                handle.dispose()
            });
            Ok::<_, BoxError>(permission)
        })
    }

    /// Every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<PermissionEvent> {
        self.inner.events.subscribe()
    }

    /// The requests waiting for a reply, oldest first.
    pub fn pending(&self) -> Vec<Request> {
        self.lock()
            .pending
            .iter()
            .map(|p| p.request.clone())
            .collect()
    }

    /// The approvals recorded by `always` replies, oldest first.
    pub fn approvals(&self) -> Ruleset {
        self.lock().approvals.clone()
    }

    /// Resolves when every pattern of `req` is allowed: by its ruleset, by an earlier `always`
    /// approval, or by a reply. A `deny` in the ruleset fails at once, whatever the approvals
    /// say. Cancelling `cancel` (or dropping the future) withdraws the pending request.
    pub async fn ask(&self, req: AskRequest, cancel: CancellationToken) -> Outcome {
        let (id, rx) = {
            let mut st = self.lock();
            if !needs_reply(&req, &st.approvals)? {
                return Ok(());
            }
            if st.disposed {
                return Err(PermissionError::Disposed);
            }
            let request = Request {
                id: new_id(),
                session_id: req.session_id,
                permission: req.permission,
                patterns: req.patterns,
                always: req.always,
                metadata: req.metadata,
                tool: req.tool,
            };
            let (tx, rx) = oneshot::channel();
            let id = request.id.clone();
            self.publish(PermissionEvent::Asked(request.clone()));
            st.pending.push(Pending { request, tx });
            (id, rx)
        };
        let _withdraw = Withdraw { owner: self, id };
        tokio::select! {
            // A reply that raced the cancellation wins.
            biased;
            outcome = rx => outcome.unwrap_or(Err(PermissionError::Disposed)),
            () = cancel.cancelled() => Err(PermissionError::Cancelled),
        }
    }

    /// Answers the pending request `request_id` (see [`Reply`] for what each answer does to
    /// the other requests of the same session).
    pub fn reply(&self, request_id: &str, reply: Reply) -> Outcome {
        let mut st = self.lock();
        let Some(index) = st.pending.iter().position(|p| p.request.id == request_id) else {
            return Err(PermissionError::NotFound {
                id: request_id.to_string(),
            });
        };
        let this = st.pending.remove(index);
        let session = this.request.session_id.clone();
        self.publish(replied(&this.request, reply.clone()));
        match reply {
            Reply::Once => {
                let _ = this.tx.send(Ok(()));
            }
            Reply::Reject { feedback } => {
                let _ = this.tx.send(Err(PermissionError::Rejected { feedback }));
                for other in take(&mut st.pending, |r| r.session_id == session) {
                    self.publish(replied(&other.request, Reply::Reject { feedback: None }));
                    let _ = other
                        .tx
                        .send(Err(PermissionError::Rejected { feedback: None }));
                }
            }
            Reply::Always => {
                let permission = &this.request.permission;
                let new_rules = this
                    .request
                    .always
                    .iter()
                    .map(|pattern| Rule::new(permission, pattern, Action::Allow));
                st.approvals.extend(new_rules);
                let _ = this.tx.send(Ok(()));
                let approvals = st.approvals.clone();
                let approved = |r: &Request| {
                    r.session_id == session
                        && r.patterns.iter().all(|pattern| {
                            evaluate(&r.permission, pattern, &[&approvals]).action == Action::Allow
                        })
                };
                for other in take(&mut st.pending, approved) {
                    self.publish(replied(&other.request, Reply::Always));
                    let _ = other.tx.send(Ok(()));
                }
            }
        }
        Ok(())
    }

    /// Rejects every pending request with [`PermissionError::Disposed`] and refuses new ones
    /// that would need a reply. Called when the instance closes.
    pub fn dispose(&self) {
        let mut st = self.lock();
        st.disposed = true;
        for p in std::mem::take(&mut st.pending) {
            self.publish(withdrawn(&p.request));
            let _ = p.tx.send(Err(PermissionError::Disposed));
        }
    }

    fn withdraw(&self, id: &str) {
        let mut st = self.lock();
        if let Some(index) = st.pending.iter().position(|p| p.request.id == id) {
            let p = st.pending.remove(index);
            self.publish(withdrawn(&p.request));
        }
    }

    fn publish(&self, event: PermissionEvent) {
        // No subscribers is fine: nobody is watching yet.
        let _ = self.inner.events.send(event);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent between statements, so a poisoned lock is still usable.
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Withdraws the pending request when `ask` ends early (cancelled or dropped); a no-op once it
/// was answered, since answering removes it.
struct Withdraw<'a> {
    owner: &'a Permission,
    id: String,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        self.owner.withdraw(&self.id);
    }
}

/// `Ok(false)` when every pattern is allowed, `Ok(true)` when someone must be asked; the first
/// pattern the ruleset denies fails the whole ask, even after a pattern that needs asking.
fn needs_reply(req: &AskRequest, approvals: &[Rule]) -> Result<bool, PermissionError> {
    let mut ask = false;
    for pattern in &req.patterns {
        match evaluate(&req.permission, pattern, &[&req.ruleset]).action {
            Action::Deny => {
                return Err(PermissionError::Denied {
                    permission: req.permission.clone(),
                    pattern: pattern.clone(),
                    rules: req
                        .ruleset
                        .iter()
                        .filter(|r| wildcard_match(&r.permission, &req.permission))
                        .cloned()
                        .collect(),
                });
            }
            Action::Allow => {}
            Action::Ask => {
                let approved = evaluate(&req.permission, pattern, &[approvals]).action;
                ask |= approved != Action::Allow;
            }
        }
    }
    Ok(ask)
}

/// Removes and returns the pending entries whose request satisfies `pred`, keeping the order.
fn take(pending: &mut Vec<Pending>, pred: impl Fn(&Request) -> bool) -> Vec<Pending> {
    let (taken, kept) = std::mem::take(pending)
        .into_iter()
        .partition(|p| pred(&p.request));
    *pending = kept;
    taken
}

fn replied(request: &Request, reply: Reply) -> PermissionEvent {
    PermissionEvent::Replied {
        session_id: request.session_id.clone(),
        request_id: request.id.clone(),
        reply,
    }
}

fn withdrawn(request: &Request) -> PermissionEvent {
    PermissionEvent::Withdrawn {
        session_id: request.session_id.clone(),
        request_id: request.id.clone(),
    }
}

/// `per_` + milliseconds since the epoch + a process-wide counter + random bits: unique in the
/// process and roughly ordered by creation.
fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let seq = COUNTER.fetch_add(1, Ordering::Relaxed);
    let noise: u32 = rand::random();
    format!("per_{ms:012x}{:06x}{noise:08x}", seq & 0xff_ffff)
}
