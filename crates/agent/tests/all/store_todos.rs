//! Session todo lists in the store, on real SQLite files: replaced whole, in order, in ONE
//! transaction with their `todo.updated` event.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail by panicking

use std::path::Path;

use serde_json::json;
use strata_agent::store::{Store, StoreError, kinds};
use strata_services::todo::Todo;

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(&dir.path().join("data")).unwrap();
    (dir, store)
}

fn list(items: &[&str]) -> Vec<Todo> {
    items
        .iter()
        .map(|c| Todo::new(c, "pending", "medium"))
        .collect()
}

#[test]
fn a_list_is_replaced_whole_and_read_back_in_order_with_its_event() {
    let (_dir, store) = store();
    let s = store.create_session(Path::new("/p"), None).unwrap();
    let other = store.create_session(Path::new("/p"), None).unwrap();
    assert!(store.todos(&s.id).unwrap().is_empty());
    let mut live = store.subscribe();

    let event = store.replace_todos(&s.id, &list(&["c", "a", "b"])).unwrap();
    assert_eq!(event.kind, kinds::TODO_UPDATED);
    assert_eq!(event.kind, "todo.updated");
    assert_eq!(
        event.data,
        json!({"sessionID": s.id, "todos": list(&["c", "a", "b"])})
    );
    assert_eq!(
        live.try_recv().unwrap().stored().unwrap().event,
        event,
        "published after the commit"
    );
    assert_eq!(store.todos(&s.id).unwrap(), list(&["c", "a", "b"]));

    store.replace_todos(&s.id, &list(&["z"])).unwrap();
    store.replace_todos(&other.id, &list(&["x", "y"])).unwrap();
    assert_eq!(store.todos(&s.id).unwrap(), list(&["z"]));
    assert_eq!(store.todos(&other.id).unwrap(), list(&["x", "y"]));
    store.replace_todos(&s.id, &[]).unwrap();
    assert!(store.todos(&s.id).unwrap().is_empty());

    // Replaying the events gives the current list.
    let replayed = store
        .events_since(&s.id, 0)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == kinds::TODO_UPDATED)
        .map(|e| e.data["todos"].clone())
        .collect::<Vec<_>>();
    assert_eq!(replayed.len(), 3);
    assert_eq!(replayed[2], json!([]));
    // Another handle on the same file (another process) reads the same.
    let again = Store::open(store.path()).unwrap();
    assert_eq!(again.todos(&other.id).unwrap(), list(&["x", "y"]));
}

#[test]
fn the_list_and_its_event_commit_together_or_not_at_all() {
    let (_dir, store) = store();
    let s = store.create_session(Path::new("/p"), None).unwrap();
    store.replace_todos(&s.id, &list(&["keep me"])).unwrap();
    let before = store.events_since(&s.id, 0).unwrap();

    // Make the event row fail: the list must not change either.
    let conn = rusqlite::Connection::open(store.path()).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER no_todo_events BEFORE INSERT ON events
         WHEN NEW.kind = 'todo.updated'
         BEGIN SELECT RAISE(ABORT, 'todo events refused by the test'); END;",
    )
    .unwrap();
    let err = store
        .replace_todos(&s.id, &list(&["lost", "also lost"]))
        .unwrap_err();
    assert!(err.to_string().contains("refused by the test"), "{err}");
    assert_eq!(store.todos(&s.id).unwrap(), list(&["keep me"]));
    assert_eq!(store.events_since(&s.id, 0).unwrap(), before);

    conn.execute_batch("DROP TRIGGER no_todo_events").unwrap();
    store.replace_todos(&s.id, &list(&["now"])).unwrap();
    assert_eq!(store.todos(&s.id).unwrap(), list(&["now"]));
}

#[test]
fn an_unknown_session_is_named_and_nothing_is_written() {
    let (_dir, store) = store();
    let err = store
        .replace_todos("ses_missing", &list(&["a"]))
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err:?}");
    assert!(err.to_string().contains("ses_missing"), "{err}");
    assert!(store.events_since("ses_missing", 0).unwrap().is_empty());
    assert!(store.todos("ses_missing").is_err());
}
