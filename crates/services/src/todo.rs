//! Todos: each session's todo list (spec §10), behind a small trait so that tools (floor 3)
//! can keep it without knowing where it lives.
//!
//! The agent implements [`TodoList`] over its session store, so a replacement is committed in
//! one SQLite transaction with its `todo.updated` event row. Graphs without a session store
//! (`strata tool`, tool tests) get [`Todos::throwaway`]: an in-memory list per session id that
//! ends with the process, and says so through [`Todos::is_throwaway`].
//!
//! Every replacement that succeeds is also published on the [`Bus`] as a [`TodoUpdated`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use strata_graph::{BoxError, Node, Scope, Tier};

use crate::bus::Bus;

/// One item of a todo list: the wire's own type. `status` and `priority` are free strings;
/// the model is told to use pending / in_progress / completed / cancelled and high / medium /
/// low.
pub use strata_protocol::wire::Todo;

/// A session's list was replaced (`todo.updated`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoUpdated {
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub todos: Vec<Todo>,
}

/// Why a list could not be read or replaced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the todo list of session `{session_id}` could not be {action}: {detail}")]
pub struct TodoError {
    pub session_id: String,
    /// `read` or `saved`.
    pub action: &'static str,
    pub detail: String,
}

/// Where todo lists are kept.
pub trait TodoList: Send + Sync + 'static {
    /// The session's list in order; empty when it never had one.
    fn get(&self, session_id: &str) -> Result<Vec<Todo>, TodoError>;
    /// Replaces the whole list at once (all or nothing).
    fn replace(&self, session_id: &str, todos: &[Todo]) -> Result<(), TodoError>;
    /// Whether lists vanish with the process instead of belonging to a stored session.
    fn throwaway(&self) -> bool;
}

/// Handle to the todo lists. Cheap to clone.
#[derive(Clone)]
pub struct Todos {
    list: Arc<dyn TodoList>,
    bus: Bus,
}

impl strata_graph::Service for Todos {
    const KEY: &'static str = "Todos";
}

impl std::fmt::Debug for Todos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Todos")
            .field("throwaway", &self.list.throwaway())
            .finish()
    }
}

impl Todos {
    pub fn new(list: impl TodoList, bus: Bus) -> Self {
        Todos {
            list: Arc::new(list),
            bus,
        }
    }

    /// In-memory lists that end with the process.
    pub fn throwaway(bus: Bus) -> Self {
        Self::new(Memory::default(), bus)
    }

    /// The global-tier node of graphs without a session store: [`Todos::throwaway`]. The
    /// agent's graph replaces it with lists kept in the session database.
    pub fn node() -> Node {
        Node::new(Tier::Global, |(bus,): (Bus,), _scope: Scope| async move {
            Ok::<_, BoxError>(Todos::throwaway(bus))
        })
    }

    pub fn get(&self, session_id: &str) -> Result<Vec<Todo>, TodoError> {
        self.list.get(session_id)
    }

    /// Replaces the session's list, then publishes [`TodoUpdated`] on the Bus.
    pub fn replace(&self, session_id: &str, todos: Vec<Todo>) -> Result<(), TodoError> {
        self.list.replace(session_id, &todos)?;
        // No subscriber is fine: stored lists have their event row for later readers.
        self.bus.publish(TodoUpdated {
            session_id: session_id.to_string(),
            todos,
        });
        Ok(())
    }

    pub fn is_throwaway(&self) -> bool {
        self.list.throwaway()
    }
}

/// Lists kept in memory, per session id.
#[derive(Default)]
struct Memory {
    lists: Mutex<HashMap<String, Vec<Todo>>>,
}

impl Memory {
    fn lists(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Todo>>> {
        // Each statement leaves the map consistent, so a poisoned lock is still usable.
        self.lists.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl TodoList for Memory {
    fn get(&self, session_id: &str) -> Result<Vec<Todo>, TodoError> {
        Ok(self.lists().get(session_id).cloned().unwrap_or_default())
    }

    fn replace(&self, session_id: &str, todos: &[Todo]) -> Result<(), TodoError> {
        self.lists().insert(session_id.to_string(), todos.to_vec());
        Ok(())
    }

    fn throwaway(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_throwaway_list_is_replaced_whole_per_session_and_announced() {
        let bus = Bus::new();
        let mut events = bus.subscribe::<TodoUpdated>();
        let todos = Todos::throwaway(bus);
        assert!(todos.is_throwaway());
        assert_eq!(todos.get("s1").unwrap(), []);
        let first = vec![
            Todo::new("a", "pending", "high"),
            Todo::new("b", "completed", "low"),
        ];
        todos.replace("s1", first.clone()).unwrap();
        todos
            .replace("s2", vec![Todo::new("other", "pending", "low")])
            .unwrap();
        assert_eq!(todos.get("s1").unwrap(), first);
        todos
            .replace("s1", vec![Todo::new("c", "in_progress", "medium")])
            .unwrap();
        assert_eq!(
            todos.get("s1").unwrap(),
            [Todo::new("c", "in_progress", "medium")]
        );
        let got = events.recv().await.unwrap();
        assert_eq!(
            (got.session_id.as_str(), got.todos.as_slice()),
            ("s1", first.as_slice())
        );
        let wire = serde_json::to_value(&got).unwrap();
        assert_eq!(wire["sessionID"], "s1");
        assert_eq!(wire["todos"][0]["content"], "a");
    }
}
