//! The Permission service: decides asks from rules and waits for replies when it must ask.

use std::sync::Arc;

use strata_graph::Node;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::pending::{self, Awaited, PendingRequests};

use super::error::PermissionError;
use super::events::{AskRequest, Granted, PermissionEvent, Reply, Request};
use super::rules::{Action, Rule, Ruleset, decide, evaluate};
use super::wildcard::wildcard_match;

/// How many events a slow subscriber may fall behind before it starts missing them.
pub const EVENT_CAPACITY: usize = pending::EVENT_CAPACITY;

type Outcome = Result<(), PermissionError>;
/// What an asker waits for: how its ask was granted, or why not.
type Answer = Result<Granted, PermissionError>;

/// Handle to one instance's permission state: pending requests and `always` approvals.
/// Clones share the state; two `Permission::new()` values are independent.
#[derive(Clone)]
pub struct Permission {
    /// The extra state under the same lock: `{permission, pattern, allow}` for every `always`
    /// reply so far (never persisted).
    pending: Arc<PendingRequests<Request, Ruleset>>,
}

impl strata_graph::Service for Permission {
    const KEY: &'static str = "Permission";
}

impl Awaited for Request {
    type Reply = Answer;
    type Event = PermissionEvent;

    fn id(&self) -> &str {
        &self.id
    }

    fn asked(&self) -> PermissionEvent {
        PermissionEvent::Asked(self.clone())
    }

    fn withdrawn(&self) -> PermissionEvent {
        PermissionEvent::Withdrawn {
            session_id: self.session_id.clone(),
            request_id: self.id.clone(),
        }
    }

    fn disposed() -> Answer {
        Err(PermissionError::Disposed)
    }
}

impl Default for Permission {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Permission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.pending.lock();
        f.debug_struct("Permission")
            .field("pending", &st.len())
            .field("approvals", &st.extra.len())
            .field("disposed", &st.disposed())
            .finish()
    }
}

impl Permission {
    pub fn new() -> Self {
        Permission {
            pending: Arc::new(PendingRequests::new()),
        }
    }

    /// The instance-tier node; closing the instance rejects every pending request.
    pub fn node() -> Node {
        PendingRequests::node("Permission: reject pending requests", |pending| {
            Permission { pending }
        })
    }

    /// Every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<PermissionEvent> {
        self.pending.subscribe()
    }

    /// The requests waiting for a reply, oldest first.
    pub fn pending(&self) -> Vec<Request> {
        self.pending.lock().requests()
    }

    /// The approvals recorded by `always` replies, oldest first.
    pub fn approvals(&self) -> Ruleset {
        self.pending.lock().extra.clone()
    }

    /// Resolves when every pattern of `req` is allowed: by its ruleset, by an earlier `always`
    /// approval, or by a reply. A `deny` in the ruleset fails at once, whatever the approvals
    /// say. Cancelling `cancel` (or dropping the future) withdraws the pending request.
    pub async fn ask(&self, req: AskRequest, cancel: CancellationToken) -> Outcome {
        self.ask_granted(req, cancel).await.map(|_| ())
    }

    /// [`Permission::ask`], saying how the ask was granted: by the rules, or by a reply to a
    /// request (with the [`Fingerprint`](super::Fingerprint) that request kept, for the caller
    /// to check against the call as it is now).
    pub async fn ask_granted(&self, req: AskRequest, cancel: CancellationToken) -> Answer {
        let ticket = {
            let mut st = self.pending.lock();
            if !needs_reply(&req, &st.extra)? {
                return Ok(Granted::Rules);
            }
            if st.disposed() {
                return Err(PermissionError::Disposed);
            }
            let request = Request {
                id: pending::new_id("per_"),
                session_id: req.session_id,
                permission: req.permission,
                patterns: req.patterns,
                always: req.always,
                metadata: req.metadata,
                tool: req.tool,
                shown: req.shown.map(Box::new),
            };
            self.pending.insert(&mut st, request)
        };
        let cancelled = Err(PermissionError::Cancelled);
        self.pending.wait(ticket, cancel, cancelled).await
    }

    /// Answers the pending request `request_id` (see [`Reply`] for what each answer does to
    /// the other requests of the same session).
    pub fn reply(&self, request_id: &str, reply: Reply) -> Outcome {
        let mut st = self.pending.lock();
        let Some(this) = st.take(request_id) else {
            return Err(PermissionError::NotFound {
                id: request_id.to_string(),
            });
        };
        let session = this.request.session_id.clone();
        self.pending.publish(replied(&this.request, reply.clone()));
        match reply {
            Reply::Once => {
                let answer = approval(&this.request);
                this.send(Ok(answer));
            }
            Reply::Reject { feedback } => {
                this.send(Err(PermissionError::Rejected { feedback }));
                for other in st.take_where(|r| r.session_id == session) {
                    let event = replied(&other.request, Reply::Reject { feedback: None });
                    self.pending.publish(event);
                    other.send(Err(PermissionError::Rejected { feedback: None }));
                }
            }
            Reply::Always => {
                let permission = &this.request.permission;
                let new_rules = this
                    .request
                    .always
                    .iter()
                    .map(|pattern| Rule::new(permission, pattern, Action::Allow));
                st.extra.extend(new_rules);
                let answer = approval(&this.request);
                this.send(Ok(answer));
                let approvals = st.extra.clone();
                let approved = |r: &Request| {
                    r.session_id == session
                        && r.patterns.iter().all(|pattern| {
                            evaluate(&r.permission, pattern, &[&approvals]).action == Action::Allow
                        })
                };
                for other in st.take_where(approved) {
                    self.pending.publish(replied(&other.request, Reply::Always));
                    let answer = approval(&other.request);
                    other.send(Ok(answer));
                }
            }
        }
        Ok(())
    }

    /// Rejects every pending request with [`PermissionError::Disposed`] and refuses new ones
    /// that would need a reply. Called when the instance closes.
    pub fn dispose(&self) {
        self.pending.dispose();
    }
}

/// `Ok(false)` when every pattern is allowed, `Ok(true)` when someone must be asked; the first
/// pattern the ruleset denies fails the whole ask, even after a pattern that needs asking.
fn needs_reply(req: &AskRequest, approvals: &[Rule]) -> Result<bool, PermissionError> {
    let mut ask = false;
    for pattern in &req.patterns {
        let rule = evaluate(&req.permission, pattern, &[&req.ruleset]).action;
        match decide(rule, req.hook, req.sandbox_auto_allow) {
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
            // A hook's `ask` is asked whatever was approved before.
            Action::Ask if req.hook == Some(Action::Ask) => ask = true,
            Action::Ask => {
                let approved = evaluate(&req.permission, pattern, &[approvals]).action;
                ask |= approved != Action::Allow;
            }
        }
    }
    Ok(ask)
}

/// The approval of `request`, carrying what it showed.
fn approval(request: &Request) -> Granted {
    Granted::Reply {
        request_id: request.id.clone(),
        shown: request.shown.as_deref().cloned(),
    }
}

fn replied(request: &Request, reply: Reply) -> PermissionEvent {
    PermissionEvent::Replied {
        session_id: request.session_id.clone(),
        request_id: request.id.clone(),
        reply,
    }
}
