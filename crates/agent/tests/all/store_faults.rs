//! The session database on a disk that fills up or turns read-only: a write fails with an
//! error naming the database and saying what to do, and nothing already stored is damaged.

use std::path::Path;

use serde_json::json;
use strata_agent::store::{Role, Store};
use strata_testkit::SmallDisk;

#[test]
fn a_full_disk_fails_a_session_event_clearly_and_keeps_what_was_stored() {
    let Some(disk) = SmallDisk::mount(2048) else {
        return;
    };
    let store = Store::open_in(disk.path()).unwrap();
    let session = store.create_session(Path::new("/p"), None).unwrap();
    for i in 0..20 {
        store
            .append_message(&session.id, Role::User, json!({"i": i}))
            .unwrap();
    }
    let before = store.events_since(&session.id, 0).unwrap();
    let filler = disk.fill(0);

    let err = store
        .append_message(
            &session.id,
            Role::User,
            json!({"big": "x".repeat(512 * 1024)}),
        )
        .expect_err("a write to a full disk fails");
    let text = err.to_string();
    assert!(text.contains("strata.db"), "names the database: {text}");
    assert!(text.contains("free some space"), "says what to do: {text}");

    // What was stored reads back unchanged, from this handle and a fresh one.
    assert_eq!(store.events_since(&session.id, 0).unwrap(), before);
    drop(store);
    std::fs::remove_file(filler).unwrap();
    let store = Store::open_in(disk.path()).unwrap();
    assert_eq!(store.integrity_check().unwrap(), Vec::<String>::new());
    assert_eq!(store.events_since(&session.id, 0).unwrap(), before);
    // With room again the session goes on, its sequence without a gap.
    let next = store
        .append_message(&session.id, Role::User, json!({"i": 20}))
        .unwrap();
    let after = store.events_since(&session.id, 0).unwrap();
    assert_eq!(after.len(), before.len() + 1, "{next:?}");
    assert_eq!(after.last().unwrap().seq, before.last().unwrap().seq + 1);
}

#[test]
fn a_read_only_data_directory_fails_at_open_naming_it_and_the_variable() {
    let Some(disk) = SmallDisk::mount(1024) else {
        return;
    };
    disk.make_read_only();
    let err = Store::open_in(disk.path()).expect_err("nothing can be created there");
    let text = err.to_string();
    assert!(text.contains(&disk.path().display().to_string()), "{text}");
    assert!(text.contains("STRATA_DATA_DIR"), "{text}");
}
