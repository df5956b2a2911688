//! The session todo lists of a running agent, kept in the session database: the
//! [`TodoList`] behind the `todowrite` tool when the agent's graph runs.

use strata_graph::{BoxError, Node, Scope, Tier};
use strata_services::bus::Bus;
use strata_services::todo::{Todo, TodoError, TodoList, Todos};

use crate::store::Store;

/// Todo lists as rows of the session database (see [`Store::replace_todos`]).
#[derive(Debug)]
pub struct StoredTodos {
    store: Store,
}

impl StoredTodos {
    pub fn new(store: Store) -> Self {
        StoredTodos { store }
    }
}

impl TodoList for StoredTodos {
    fn get(&self, session_id: &str) -> Result<Vec<Todo>, TodoError> {
        self.store.todos(session_id).map_err(|e| TodoError {
            session_id: session_id.to_string(),
            action: "read",
            detail: e.to_string(),
        })
    }

    fn replace(&self, session_id: &str, todos: &[Todo]) -> Result<(), TodoError> {
        self.store
            .replace_todos(session_id, todos)
            .map(drop)
            .map_err(|e| TodoError {
                session_id: session_id.to_string(),
                action: "saved",
                detail: e.to_string(),
            })
    }

    fn throwaway(&self) -> bool {
        false
    }
}

/// The global-tier node giving [`Todos`] over the session store; it takes the place of the
/// throwaway lists of the tools-only graph.
pub fn todos_node() -> Node {
    Node::new(
        Tier::Global,
        |(store, bus): (Store, Bus), _scope: Scope| async move {
            Ok::<_, BoxError>(Todos::new(StoredTodos::new(store), bus))
        },
    )
}
