//! Stored rows and events in the API's shapes: a store event becomes one or more
//! [`Envelope`]s (`session.status` idle also gives the older `session.idle`), sessions become
//! [`SessionInfo`] and messages [`MessageView`].

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use strata_agent::store::{
    Event, GlobalEvent, Message, Part, Role, SESSION_DELETED, Session, Store, kinds,
};
use strata_protocol::event::{SessionStatus, StatusEvent};
use strata_protocol::message::{ErrorInfo, Tokens};
use strata_protocol::wire::{
    Envelope, MessageView, PartView, PermissionRule, ServerEvent, SessionInfo, SessionTime, Todo,
};

use super::frame::Frame;

/// The version clients see in session infos and `/global/health`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The event id of a stored event: derived from its global cursor, so replays repeat it.
pub fn stored_id(gseq: i64) -> String {
    format!("evt_{gseq:016}")
}

/// A stable project id for a directory (opencode uses the repository's first commit).
pub fn project_id(directory: &str) -> String {
    let digest = Sha256::digest(directory.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The API view of a session, with its client-given permission rules.
pub fn session_info(session: &Session, rules: Vec<PermissionRule>) -> SessionInfo {
    let directory = session.directory.to_string_lossy().into_owned();
    SessionInfo {
        slug: session.id.trim_start_matches("ses_").to_string(),
        project_id: project_id(&directory),
        id: session.id.clone(),
        parent_id: session.parent_id.clone(),
        title: session.title.clone(),
        version: VERSION.to_string(),
        cost: 0.0,
        tokens: Tokens::default(),
        time: SessionTime {
            created: session.created_ms,
            updated: session.updated_ms,
        },
        permission: rules,
        extra: {
            let mut extra = Map::new();
            extra.insert("path".into(), json!(directory));
            extra
        },
        directory,
    }
}

/// The API view of a stored session as the routes answer it: its client-given rules, and the
/// tokens and cost its messages recorded so far.
pub fn session_view(store: &Store, session: &Session) -> SessionInfo {
    let mut info = session_info(session, stored_rules(store, &session.id));
    match store.usage(&session.id) {
        Ok((tokens, cost)) => {
            info.tokens = tokens;
            info.cost = cost;
        }
        Err(e) => tracing::warn!(session = %session.id, "could not sum the session's usage: {e}"),
    }
    info
}

/// The session's stored rules in the wire shape (none when unset or unreadable).
pub fn stored_rules(store: &Store, session_id: &str) -> Vec<PermissionRule> {
    store
        .session_rules(session_id)
        .ok()
        .flatten()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default()
}

/// The API view of a message; an assistant message also gets `parentID` (the user message it
/// answers, when known) and `path`.
pub fn message_view(
    message: &Message,
    parent: Option<&str>,
    directory: Option<&str>,
) -> MessageView {
    message_view_of(message.clone(), parent, directory)
}

/// [`message_view`], taking the message: its data moves into the view, uncopied.
pub fn message_view_of(
    message: Message,
    parent: Option<&str>,
    directory: Option<&str>,
) -> MessageView {
    let mut data: Map<String, Value> = match message.data {
        Value::Object(mut map) => {
            for key in ["id", "sessionID", "role"] {
                map.shift_remove(key);
            }
            map
        }
        _ => Map::new(),
    };
    if message.role == Role::Assistant {
        if let Some(parent) = parent {
            data.entry("parentID").or_insert_with(|| json!(parent));
        }
        if let Some(dir) = directory {
            data.entry("path")
                .or_insert_with(|| json!({"cwd": dir, "root": dir}));
        }
    }
    MessageView {
        id: message.id,
        session_id: message.session_id,
        role: message.role,
        data,
    }
}

/// Turns stored events into envelopes, remembering per session what later events need (its
/// directory, its latest user message).
#[derive(Debug)]
pub struct Converter {
    store: Store,
    directories: HashMap<String, Option<String>>,
    last_user: HashMap<String, String>,
}

impl Converter {
    pub fn new(store: Store) -> Self {
        Self {
            store,
            directories: HashMap::new(),
            last_user: HashMap::new(),
        }
    }

    /// The directory of a session (cached; `None` once it is gone).
    pub fn directory(&mut self, session_id: &str) -> Option<String> {
        if let Some(d) = self.directories.get(session_id) {
            return d.clone();
        }
        let dir = self
            .store
            .session(session_id)
            .ok()
            .map(|s| s.directory.to_string_lossy().into_owned());
        self.directories.insert(session_id.to_string(), dir.clone());
        dir
    }

    /// The frames of one stored event, all with its cursor.
    pub fn frames(&mut self, stored: &GlobalEvent) -> Vec<Frame> {
        let event = &stored.event;
        let directory = self.session_directory(event);
        self.events(event)
            .into_iter()
            .map(|ev| Frame {
                cursor: Some(stored.gseq),
                directory: directory.clone(),
                envelope: Envelope {
                    id: stored_id(stored.gseq),
                    event: ev,
                    seq: Some(event.seq),
                },
            })
            .collect()
    }

    fn session_directory(&mut self, event: &Event) -> Option<String> {
        if let Some(dir) = event
            .data
            .get("session")
            .and_then(|s| s.get("directory"))
            .and_then(Value::as_str)
        {
            self.directories
                .insert(event.session_id.clone(), Some(dir.to_string()));
            return Some(dir.to_string());
        }
        self.directory(&event.session_id)
    }

    /// The API events of one stored event, by kind.
    fn events(&mut self, event: &Event) -> Vec<ServerEvent> {
        let sid = event.session_id.clone();
        match event.kind.as_str() {
            kinds::SESSION_CREATED | kinds::SESSION_UPDATED | SESSION_DELETED => {
                self.session_event(event).into_iter().collect()
            }
            kinds::MESSAGE_UPDATED => self.message_updated(event).into_iter().collect(),
            kinds::PART_UPDATED => match event.part() {
                Some(part) => vec![part_updated(&part, event.created_ms)],
                None => vec![],
            },
            kinds::TODO_UPDATED => {
                let todos: Vec<Todo> = event
                    .data
                    .get("todos")
                    .and_then(|t| serde_json::from_value(t.clone()).ok())
                    .unwrap_or_default();
                vec![ServerEvent::TodoUpdated {
                    session_id: sid,
                    todos,
                }]
            }
            "session.status" => status_events(event),
            "session.error" => {
                let error = event
                    .data
                    .get("error")
                    .and_then(|e| serde_json::from_value::<ErrorInfo>(e.clone()).ok())
                    .unwrap_or_else(|| ErrorInfo::new("UnknownError", "the turn failed"));
                vec![ServerEvent::SessionError {
                    session_id: Some(sid),
                    error,
                }]
            }
            strata_protocol::event::kinds::SESSION_HOOK => {
                match event.data.get("hook").cloned().map(serde_json::from_value) {
                    Some(Ok(hook)) => vec![ServerEvent::SessionHook {
                        session_id: sid,
                        hook,
                    }],
                    _ => vec![],
                }
            }
            kinds::MESSAGE_REMOVED => match event.data.get("messageID").and_then(Value::as_str) {
                Some(message_id) => vec![ServerEvent::MessageRemoved {
                    session_id: sid,
                    message_id: message_id.to_string(),
                }],
                None => vec![],
            },
            // Kinds with no API event (yet) are not sent; they stay in the store.
            _ => vec![],
        }
    }

    /// `session.created`, `.updated` or `.deleted`, with the revert an undo set.
    fn session_event(&self, event: &Event) -> Option<ServerEvent> {
        let s: Session = serde_json::from_value(event.data.get("session")?.clone()).ok()?;
        let session_id = event.session_id.clone();
        // Not `session_view`: a replayed event must read as it did live, and the usage summed
        // now would differ from the usage then.
        let mut info = session_info(&s, stored_rules(&self.store, &s.id));
        // An undo change carries the revert it set (or `null` when it cleared one).
        match event.data.get("revert") {
            Some(Value::Null) | None => {}
            Some(revert) => {
                info.extra.insert("revert".into(), revert.clone());
            }
        }
        Some(match event.kind.as_str() {
            kinds::SESSION_CREATED => ServerEvent::SessionCreated { session_id, info },
            kinds::SESSION_UPDATED => ServerEvent::SessionUpdated { session_id, info },
            _ => ServerEvent::SessionDeleted { session_id, info },
        })
    }

    /// `message.updated`, with the user message the message answers as its parent.
    fn message_updated(&mut self, event: &Event) -> Option<ServerEvent> {
        let message: Message = serde_json::from_value(event.data.get("message")?.clone()).ok()?;
        let sid = event.session_id.clone();
        if message.role == Role::User {
            self.last_user.insert(sid.clone(), message.id.clone());
        }
        let dir = self.directory(&sid);
        let parent = match self.last_user.get(&sid) {
            Some(p) => Some(p.clone()),
            // A replay that starts mid-turn has not seen the prompt: ask the store.
            None => self
                .store
                .user_message_before(&sid, message.created_ms, &message.id)
                .ok()
                .flatten()
                .inspect(|p| {
                    self.last_user.insert(sid.clone(), p.clone());
                }),
        };
        let info = message_view(&message, parent.as_deref(), dir.as_deref());
        Some(ServerEvent::MessageUpdated {
            session_id: sid,
            info,
        })
    }
}

/// `session.status`, and `session.idle` after it when the session went idle.
fn status_events(event: &Event) -> Vec<ServerEvent> {
    let Ok(status) = serde_json::from_value::<StatusEvent>(event.data.clone()) else {
        return vec![];
    };
    let session_id = event.session_id.clone();
    let idle = status.status == SessionStatus::Idle;
    let mut out = vec![ServerEvent::SessionStatus {
        session_id: session_id.clone(),
        status: status.status,
    }];
    if idle {
        out.push(ServerEvent::SessionIdle { session_id });
    }
    out
}

/// `message.part.updated` for a stored part.
pub fn part_updated(part: &Part, time: i64) -> ServerEvent {
    ServerEvent::PartUpdated {
        session_id: part.session_id.clone(),
        part: PartView::of(part),
        time: Some(time),
    }
}
