//! Each session's todo list: rows `(session_id, position, content, status, priority)`,
//! replaced whole together with a `todo.updated` event.

use rusqlite::params;
use serde_json::json;
use strata_services::todo::Todo;

use super::read::load_session;
use super::types::{Event, StoreError, kinds};
use super::{SqlResult, Store};

impl Store {
    /// Replaces the session's todo list. Event: `todo.updated` (`{"sessionID", "todos"}`), in
    /// the same transaction, so replaying the events gives the current list.
    pub fn replace_todos(&self, session_id: &str, todos: &[Todo]) -> Result<Event, StoreError> {
        let (_, event) = self.change(
            session_id,
            kinds::TODO_UPDATED,
            |tx, _, path| {
                load_session(tx, path, session_id)?;
                tx.execute("DELETE FROM todos WHERE session_id = ?1", [session_id])
                    .op(path, "clearing a todo list")?;
                let mut insert = tx
                    .prepare(
                        "INSERT INTO todos (session_id, position, content, status, priority)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                    )
                    .op(path, "writing a todo list")?;
                for (position, t) in todos.iter().enumerate() {
                    insert
                        .execute(params![
                            session_id,
                            position as i64,
                            t.content,
                            t.status,
                            t.priority
                        ])
                        .op(path, "writing a todo list")?;
                }
                Ok(())
            },
            |()| json!({"sessionID": session_id, "todos": todos}),
        )?;
        Ok(event)
    }

    /// The session's todo list in order; empty when it never had one.
    pub fn todos(&self, session_id: &str) -> Result<Vec<Todo>, StoreError> {
        let path = self.path();
        let conn = self.conn();
        load_session(&conn, path, session_id)?;
        conn.prepare(
            "SELECT content, status, priority FROM todos WHERE session_id = ?1 ORDER BY position",
        )
        .and_then(|mut s| {
            s.query_map([session_id], |r| {
                Ok(Todo {
                    content: r.get(0)?,
                    status: r.get(1)?,
                    priority: r.get(2)?,
                })
            })?
            .collect()
        })
        .op(path, "reading a todo list")
    }
}
