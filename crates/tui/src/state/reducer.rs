//! The pure reducer: server events in, [`State`] changes and [`Effect`]s (re-fetches) out.
//!
//! Events of the open session that carry a sequence number are applied exactly once and in
//! order: a number already applied is a duplicate (a replay after reconnect) and is dropped; a
//! number ahead of the next expected one is held back until the missing ones arrive. When they
//! do not (more than [`GAP_WINDOW`] held, or the app's gap timer calls
//! [`State::flush_gap`]), the session is re-fetched and the held events are applied on top of
//! the snapshot.

use crate::event::{Envelope, ServerEvent, seq};
use crate::model::{
    Busy, MessageInfo, MessageWithParts, OlderPage, PartInfo, SessionInfo, Snapshot,
};
use crate::state::{Connection, MessageView, SessionState, State};

/// How many events may wait behind a missing one before the session is re-fetched.
pub const GAP_WINDOW: usize = 32;

/// Something the app must do for the state to become whole again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Fetch the session, its messages and todos again, then call [`State::load`].
    Refetch(String),
}

impl State {
    /// Applies one event.
    pub fn apply(&mut self, envelope: Envelope) -> Vec<Effect> {
        let seq = seq(&envelope);
        let event = envelope.event;
        let open = self.session_id().is_some() && event.session_id() == self.session_id();
        let (Some(seq), true) = (seq, open) else {
            self.apply_event(event);
            return vec![];
        };
        self.numbered = true;
        let Some(session) = self.session.as_mut() else {
            return vec![];
        };
        if seq <= session.last_seq || session.held.contains_key(&seq) {
            return vec![];
        }
        if seq != session.last_seq + 1 || session.refetching {
            session.held.insert(seq, event);
            if session.held.len() > GAP_WINDOW {
                return self.flush_gap();
            }
            return vec![];
        }
        session.last_seq = seq;
        self.apply_event(event);
        self.drain_held();
        vec![]
    }

    /// Gives up waiting for missing events: asks for a re-fetch when some are held back.
    pub fn flush_gap(&mut self) -> Vec<Effect> {
        match self.session.as_mut() {
            Some(s) if !s.held.is_empty() && !s.refetching => {
                s.refetching = true;
                vec![Effect::Refetch(s.info.id.clone())]
            }
            _ => vec![],
        }
    }

    /// The transport connected again: it replays from the last cursor when the server numbers
    /// its events; otherwise the open session is re-fetched.
    pub fn reconnected(&mut self) -> Vec<Effect> {
        self.connection = Connection::Connected;
        match self.session.as_mut() {
            Some(s) if !self.numbered && !s.refetching => {
                s.refetching = true;
                vec![Effect::Refetch(s.info.id.clone())]
            }
            _ => vec![],
        }
    }

    /// Opens `snapshot`'s session, or refreshes it when it is already open. A refresh keeps
    /// the older messages loaded before the snapshot's window.
    pub fn load(&mut self, snapshot: Snapshot) {
        let same = self.session_id() == Some(snapshot.session.id.as_str());
        let (mut last_seq, held, kept, older) = match self.session.take() {
            Some(s) if same => {
                let (kept, older) = kept_before(s.messages, s.older, &snapshot);
                (s.last_seq, s.held, kept, older)
            }
            _ => (0, Default::default(), vec![], snapshot.older.clone()),
        };
        let mut session = SessionState {
            info: snapshot.session,
            todos: snapshot.todos,
            messages: kept,
            older,
            ..Default::default()
        };
        for MessageWithParts { info, parts } in snapshot.messages {
            let version = self.tick();
            session.messages.push(MessageView {
                info,
                parts,
                version,
            });
        }
        session.reindex();
        if session.older.is_some() {
            session.older_cost = (session.info.cost - session.cost()).max(0.0);
        }
        // Held events the snapshot already includes are dropped; the rest go on top. Without a
        // number from the server, everything that arrived before the fetch is in it.
        let cut = match snapshot.seq {
            Some(s) => s,
            None => held.keys().next_back().copied().unwrap_or(last_seq),
        };
        last_seq = last_seq.max(cut);
        session.last_seq = last_seq;
        session.held = held.into_iter().filter(|(k, _)| *k > cut).collect();
        self.session = Some(session);
        self.drain_held();
    }

    /// Puts a page of older messages before the loaded ones (those already loaded stay).
    pub fn load_older(&mut self, session_id: &str, page: OlderPage) {
        let mut versions = Vec::with_capacity(page.messages.len());
        for _ in &page.messages {
            versions.push(self.tick());
        }
        let Some(s) = self.open(session_id) else {
            return;
        };
        s.loading_older = false;
        let mut older: Vec<MessageView> = page
            .messages
            .into_iter()
            .zip(versions)
            .filter(|(m, _)| !s.index.contains_key(&m.info.id))
            .map(|(MessageWithParts { info, parts }, version)| MessageView {
                info,
                parts,
                version,
            })
            .collect();
        let cost: f64 = older.iter().map(|m| m.info.cost).sum();
        s.older_cost = (s.older_cost - cost).max(0.0);
        s.older = page.older;
        if s.older.is_none() {
            s.older_cost = 0.0;
        }
        older.append(&mut s.messages);
        s.messages = older;
        s.reindex();
    }

    /// A page of older messages could not be fetched: the next scroll to the top asks again.
    pub fn older_failed(&mut self) {
        if let Some(s) = self.session.as_mut() {
            s.loading_older = false;
        }
    }

    /// Closes the open session (a new one starts with the next prompt).
    pub fn close(&mut self) {
        self.session = None;
    }

    fn drain_held(&mut self) {
        loop {
            let Some(session) = self.session.as_mut() else {
                return;
            };
            let next = session.last_seq + 1;
            let Some(event) = session.held.remove(&next) else {
                return;
            };
            session.last_seq = next;
            self.apply_event(event);
        }
    }

    /// A re-fetch failed: the gap stays, and the next timer or event asks again.
    pub fn refetch_failed(&mut self) {
        if let Some(s) = self.session.as_mut() {
            s.refetching = false;
        }
    }

    fn apply_event(&mut self, event: ServerEvent) {
        match event {
            ServerEvent::ServerConnected {} => self.connection = Connection::Connected,
            ServerEvent::InstanceDisposed { .. } => self.connection = Connection::Connecting,
            ServerEvent::SessionCreated { info, .. } | ServerEvent::SessionUpdated { info, .. } => {
                self.session_updated(info)
            }
            ServerEvent::SessionDeleted { session_id, .. } => {
                self.sessions.retain(|s| s.id != session_id);
                if self.session_id() == Some(session_id.as_str()) {
                    self.session = None;
                }
            }
            ServerEvent::SessionStatus { session_id, status } => {
                self.status(session_id, status.into())
            }
            ServerEvent::SessionIdle { session_id } => self.status(session_id, Busy::Idle),
            ServerEvent::SessionError { session_id, error } => {
                if session_id.is_none() || session_id.as_deref() == self.session_id() {
                    self.error = Some(error.text().to_string());
                }
            }
            ServerEvent::MessageUpdated { info, .. } => {
                if let Some(info) = MessageInfo::from_view(&info) {
                    self.message_updated(info)
                }
            }
            ServerEvent::MessageRemoved {
                session_id,
                message_id,
            } => {
                if let Some(s) = self.open(&session_id) {
                    s.messages.retain(|m| m.info.id != message_id);
                    s.reindex();
                }
            }
            ServerEvent::TodoUpdated { session_id, todos } => {
                if let Some(s) = self.open(&session_id) {
                    s.todos = todos;
                }
            }
            // A hook that failed, hung or is missing is shown like an error; it stops nothing.
            ServerEvent::SessionHook { session_id, hook } => {
                if self.session_id() == Some(session_id.as_str())
                    && let Some(warning) = hook.outcome.warning
                {
                    self.error = Some(format!("hook: {warning}"));
                }
            }
            ServerEvent::ServerHeartbeat {} | ServerEvent::SessionDiff { .. } => {}
            event @ (ServerEvent::PartUpdated { .. }
            | ServerEvent::PartDelta { .. }
            | ServerEvent::PartRemoved { .. }) => self.part_event(event),
            event @ (ServerEvent::PermissionAsked(_)
            | ServerEvent::PermissionReplied { .. }
            | ServerEvent::QuestionAsked(_)
            | ServerEvent::QuestionReplied { .. }
            | ServerEvent::QuestionRejected { .. }) => self.ask_event(event),
        }
    }

    /// A session's status: idle ones are not kept.
    fn status(&mut self, session_id: String, status: Busy) {
        if status == Busy::Idle {
            self.statuses.remove(&session_id);
        } else {
            self.statuses.insert(session_id, status);
        }
    }

    /// A session changed: the open one takes its new info, the list moves it to the top.
    fn session_updated(&mut self, mut info: SessionInfo) {
        if let Some(s) = self.session.as_mut().filter(|s| s.info.id == info.id) {
            // Events may leave the sandbox out; what the session said on open still holds.
            if info.sandbox().is_none()
                && let Some(mode) = s.info.extra.get("sandbox")
            {
                info.extra.insert("sandbox".into(), mode.clone());
            }
            s.info = info.clone();
        }
        self.sessions.retain(|s| s.id != info.id);
        if info.parent_id.is_none() {
            self.sessions.insert(0, info);
        }
    }

    /// A message of the open session was created or changed.
    fn message_updated(&mut self, info: MessageInfo) {
        let version = self.tick();
        let Some(s) = self.open(&info.session_id) else {
            return;
        };
        if s.before_window(&info.id) {
            return;
        }
        match s.index.get(&info.id) {
            Some(&i) => {
                s.messages[i].info = info;
                s.messages[i].version = version;
            }
            None => {
                s.index.insert(info.id.clone(), s.messages.len());
                s.messages.push(MessageView {
                    info,
                    parts: vec![],
                    version,
                });
            }
        }
    }

    /// A part was stored whole, grew by a delta, or was removed.
    fn part_event(&mut self, event: ServerEvent) {
        match event {
            ServerEvent::PartUpdated { part, .. } => {
                let Some(part) = PartInfo::from_view(&part) else {
                    return;
                };
                let version = self.tick();
                let Some(m) = self.message_mut(&part.session_id, &part.message_id, version) else {
                    return;
                };
                match m.parts.iter_mut().find(|p| p.id == part.id) {
                    Some(p) => *p = part,
                    None => m.parts.push(part),
                }
            }
            ServerEvent::PartDelta {
                session_id,
                message_id,
                part_id,
                field,
                delta,
            } => {
                let version = self.tick();
                if let Some(m) = self.message_mut(&session_id, &message_id, version)
                    && let Some(p) = m.parts.iter_mut().find(|p| p.id == part_id)
                {
                    p.append(&field, &delta);
                }
            }
            ServerEvent::PartRemoved {
                session_id,
                message_id,
                part_id,
            } => {
                let version = self.tick();
                if let Some(m) = self.message_mut(&session_id, &message_id, version) {
                    m.parts.retain(|p| p.id != part_id);
                }
            }
            _ => {}
        }
    }

    /// A permission or question was asked or answered.
    fn ask_event(&mut self, event: ServerEvent) {
        match event {
            ServerEvent::PermissionAsked(req) => {
                self.permissions.retain(|p| p.id != req.id);
                self.permissions.push(req);
            }
            ServerEvent::PermissionReplied { request_id, .. } => {
                self.permissions.retain(|p| p.id != request_id)
            }
            ServerEvent::QuestionAsked(req) => {
                self.questions.retain(|q| q.id != req.id);
                self.questions.push(req);
            }
            ServerEvent::QuestionReplied { request_id, .. }
            | ServerEvent::QuestionRejected { request_id, .. } => {
                self.questions.retain(|q| q.id != request_id)
            }
            _ => {}
        }
    }

    fn open(&mut self, session_id: &str) -> Option<&mut SessionState> {
        self.session.as_mut().filter(|s| s.info.id == session_id)
    }

    /// The open session's message `id`, its version bumped; a message not seen yet is created
    /// empty (its `message.updated` may come later).
    fn message_mut(
        &mut self,
        session_id: &str,
        id: &str,
        version: u64,
    ) -> Option<&mut MessageView> {
        let s = self.open(session_id)?;
        if s.before_window(id) {
            return None;
        }
        let i = match s.index.get(id) {
            Some(&i) => i,
            None => {
                s.index.insert(id.to_string(), s.messages.len());
                s.messages.push(MessageView {
                    info: crate::model::MessageInfo {
                        id: id.to_string(),
                        session_id: session_id.to_string(),
                        role: "assistant".into(),
                        ..Default::default()
                    },
                    parts: vec![],
                    version,
                });
                s.messages.len() - 1
            }
        };
        let m = &mut s.messages[i];
        m.version = version;
        Some(m)
    }
}

/// On a refresh of the open session: the loaded messages before the snapshot's first, with
/// the cursor before them, when the snapshot is a window that starts inside what is loaded;
/// else nothing, and the snapshot's cursor.
fn kept_before(
    mut loaded: Vec<MessageView>,
    loaded_older: Option<String>,
    snapshot: &Snapshot,
) -> (Vec<MessageView>, Option<String>) {
    let first = snapshot.messages.first().map(|m| m.info.id.as_str());
    let at = first.and_then(|id| loaded.iter().position(|m| m.info.id == id));
    match at {
        Some(at) if snapshot.older.is_some() && at > 0 => {
            loaded.truncate(at);
            (loaded, loaded_older)
        }
        _ => (Vec::new(), snapshot.older.clone()),
    }
}
