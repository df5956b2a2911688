//! The session store on real SQLite files in tempdirs.

use std::path::Path;

use serde_json::json;
use strata_agent::store::{Live, Role, Store, StoreError, kinds};

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(&dir.path().join("data")).unwrap();
    (dir, store)
}

#[test]
fn sessions_are_listed_newest_first_and_last_session_is_per_directory() {
    let (_dir, store) = store();
    let a = Path::new("/project/a");
    let b = Path::new("/project/b");
    let s1 = store.create_session(a, None).unwrap();
    let s2 = store.create_session(b, None).unwrap();
    let s3 = store.create_session(a, None).unwrap();
    let child = store.create_session(a, Some(&s1.id)).unwrap();
    assert!(s1.id.starts_with("ses_") && s1.id < s3.id);
    assert_eq!(child.parent_id.as_deref(), Some(s1.id.as_str()));

    let ids =
        |v: Vec<strata_agent::store::Session>| v.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.list_sessions(None).unwrap()),
        vec![
            child.id.clone(),
            s3.id.clone(),
            s2.id.clone(),
            s1.id.clone()
        ]
    );
    assert_eq!(
        ids(store.list_sessions(Some(b)).unwrap()),
        vec![s2.id.clone()]
    );
    // The last top-level session of `a`, not the child.
    assert_eq!(
        store.last_session(a).unwrap().map(|s| s.id),
        Some(s3.id.clone())
    );
    // A change to s1 makes it the most recent.
    store
        .append_message(&s1.id, Role::User, json!({"text": "again"}))
        .unwrap();
    assert_eq!(
        store.last_session(a).unwrap().map(|s| s.id),
        Some(s1.id.clone())
    );
    assert_eq!(store.list_sessions(None).unwrap()[0].id, s1.id);
    assert!(
        store
            .last_session(Path::new("/elsewhere"))
            .unwrap()
            .is_none()
    );

    let titled = store
        .update_session_title(&s2.id, "Fix the parser")
        .unwrap();
    assert_eq!(titled.title, "Fix the parser");
    assert!(titled.updated_ms > s2.updated_ms);
    assert_eq!(store.session(&s2.id).unwrap(), titled);
}

#[test]
fn messages_and_parts_come_back_in_order_and_upserts_keep_position() {
    let (_dir, store) = store();
    let s = store.create_session(Path::new("/p"), None).unwrap();
    let user = store
        .append_message(&s.id, Role::User, json!({"text": "hi"}))
        .unwrap();
    let reply = store
        .append_message(&s.id, Role::Assistant, json!({"model": "m"}))
        .unwrap();
    let text = store
        .upsert_part(&s.id, &reply.id, None, "text", json!({"text": "Hel"}))
        .unwrap();
    let tool = store
        .upsert_part(
            &s.id,
            &reply.id,
            Some("prt_call_1"),
            "tool",
            json!({"state": "running"}),
        )
        .unwrap();
    assert_eq!((text.seq, tool.seq), (1, 2));
    let text2 = store
        .upsert_part(
            &s.id,
            &reply.id,
            Some(&text.id),
            "text",
            json!({"text": "Hello"}),
        )
        .unwrap();
    assert_eq!(text2.seq, 1, "an update keeps the part's place");
    let done = store
        .update_message(&s.id, &reply.id, json!({"model": "m", "finish": "stop"}))
        .unwrap();
    assert_eq!(done.data["finish"], "stop");

    let all = store.messages(&s.id).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].0, user);
    assert!(all[0].1.is_empty());
    assert_eq!(all[1].0.data["finish"], "stop");
    let parts: Vec<_> = all[1]
        .1
        .iter()
        .map(|p| (p.id.as_str(), p.data.clone()))
        .collect();
    assert_eq!(
        parts,
        vec![
            (text.id.as_str(), json!({"text": "Hello"})),
            ("prt_call_1", json!({"state": "running"}))
        ]
    );

    let export = store.export(&s.id).unwrap();
    assert_eq!(export["info"]["id"], s.id.as_str());
    assert_eq!(export["messages"][1]["info"]["role"], "assistant");
    assert_eq!(export["messages"][1]["parts"][1]["kind"], "tool");
    assert_eq!(export["messages"][0]["info"]["data"]["text"], "hi");
}

#[test]
fn every_change_is_an_event_and_replay_starts_after_a_seq() {
    let (_dir, store) = store();
    let mut live = store.subscribe();
    let s = store.create_session(Path::new("/p"), None).unwrap();
    let m = store
        .append_message(&s.id, Role::User, json!({"text": "hi"}))
        .unwrap();
    let p = store
        .upsert_part(&s.id, &m.id, None, "text", json!({"text": "hi"}))
        .unwrap();
    store.update_session_title(&s.id, "Greeting").unwrap();
    let status = store
        .record_event(&s.id, "session.status", json!({"status": "busy"}))
        .unwrap();
    assert_eq!(status.seq, 5);

    let all = store.events_since(&s.id, 0).unwrap();
    let kinds_seen: Vec<(i64, &str)> = all.iter().map(|e| (e.seq, e.kind.as_str())).collect();
    assert_eq!(
        kinds_seen,
        vec![
            (1, kinds::SESSION_CREATED),
            (2, kinds::MESSAGE_UPDATED),
            (3, kinds::PART_UPDATED),
            (4, kinds::SESSION_UPDATED),
            (5, "session.status"),
        ]
    );
    assert_eq!(all[1].data["message"]["id"], m.id.as_str());
    assert_eq!(all[2].data["part"]["id"], p.id.as_str());
    assert_eq!(all[3].data["session"]["title"], "Greeting");

    let tail = store.events_since(&s.id, 3).unwrap();
    assert_eq!(tail, all[3..].to_vec());
    assert!(store.events_since(&s.id, 5).unwrap().is_empty());

    for (n, expected) in all.iter().enumerate() {
        let item = live.try_recv().unwrap();
        let stored = item.stored().expect("only commits so far");
        assert_eq!(&stored.event, expected, "live events match the table");
        assert_eq!(stored.gseq, n as i64 + 1, "with their global number");
    }
}

#[test]
fn streamed_text_sits_in_the_live_channel_between_the_commits_it_came_between() {
    let (_dir, store) = store();
    let a = store.create_session(Path::new("/p"), None).unwrap();
    let b = store.create_session(Path::new("/p"), None).unwrap();
    let mut live = store.subscribe();
    let m = store
        .append_message(&a.id, Role::Assistant, json!({}))
        .unwrap();
    let p = store
        .upsert_part(&a.id, &m.id, None, "text", json!({"text": ""}))
        .unwrap();
    store
        .record_event(&b.id, "session.status", json!({}))
        .unwrap();
    store.stream_text(&a.id, &m.id, &p.id, "Lo").unwrap();
    store
        .upsert_part(&a.id, &m.id, Some(&p.id), "text", json!({"text": "Lo"}))
        .unwrap();

    let mut got = Vec::new();
    while let Ok(item) = live.try_recv() {
        got.push(match item {
            Live::Stored(s) => format!("stored {} {}", s.event.seq, s.gseq),
            Live::Delta(d) => {
                assert_eq!(
                    (d.session_id, d.message_id, d.part_id),
                    (a.id.clone(), m.id.clone(), p.id.clone())
                );
                format!("delta {:?} after seq {} at {}", d.delta, d.seq, d.gseq)
            }
        });
    }
    // Session a's part (its seq 3, global 4) was its last event when the text streamed; the
    // other session's commit (global 5) came in between, the completion (global 6) after.
    assert_eq!(
        got,
        [
            "stored 2 3",
            "stored 3 4",
            "stored 2 5",
            "delta \"Lo\" after seq 3 at 4",
            "stored 4 6"
        ]
    );
    // A reader that must not run ahead of global 5 reads nothing past it.
    let gseqs = |v: Vec<strata_agent::store::GlobalEvent>| -> Vec<i64> {
        v.iter().map(|e| e.gseq).collect()
    };
    assert_eq!(
        gseqs(store.global_events_between(2, 5, 10).unwrap()),
        [3, 4, 5]
    );
    assert_eq!(gseqs(store.global_events_between(2, 5, 2).unwrap()), [3, 4]);
    assert_eq!(gseqs(store.global_events_after(4, 10).unwrap()), [5, 6]);
}

#[test]
fn a_failed_change_rolls_back_its_state_and_its_event() {
    let (_dir, store) = store();
    let s = store.create_session(Path::new("/p"), None).unwrap();
    let before = store.session(&s.id).unwrap();
    let err = store
        .upsert_part(&s.id, "msg_missing", None, "text", json!({}))
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::NotFound { what: "message", id, .. } if id == "msg_missing"),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("strata.db"),
        "errors name the database: {err}"
    );
    assert_eq!(
        store.session(&s.id).unwrap(),
        before,
        "the session's time change was rolled back"
    );
    assert_eq!(
        store.events_since(&s.id, 0).unwrap().len(),
        1,
        "no event for the failed change"
    );

    // A message of another session is refused the same way.
    let other = store.create_session(Path::new("/p"), None).unwrap();
    let foreign = store
        .append_message(&other.id, Role::User, json!({}))
        .unwrap();
    let err = store
        .upsert_part(&s.id, &foreign.id, None, "text", json!({}))
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid { .. }), "{err:?}");
    assert_eq!(store.events_since(&s.id, 0).unwrap().len(), 1);

    // The next successful change takes the next seq: no gap was left behind.
    let m = store.append_message(&s.id, Role::User, json!({})).unwrap();
    let events = store.events_since(&s.id, 0).unwrap();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2]);
    assert_eq!(events[1].data["message"]["id"], m.id.as_str());
}

#[test]
fn missing_sessions_and_bad_input_are_typed_errors() {
    let (_dir, store) = store();
    assert!(matches!(
        store.session("ses_nope"),
        Err(StoreError::NotFound {
            what: "session",
            ..
        })
    ));
    assert!(matches!(
        store.messages("ses_nope"),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.append_message("ses_nope", Role::User, json!({})),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.record_event("ses_nope", "x", json!({})),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.create_session(Path::new("/p"), Some("ses_nope")),
        Err(StoreError::NotFound { .. })
    ));
    let s = store.create_session(Path::new("/p"), None).unwrap();
    assert!(matches!(
        store.record_event(&s.id, " ", json!({})),
        Err(StoreError::Invalid { .. })
    ));
    assert!(
        store.list_sessions(None).unwrap().len() == 1,
        "the refused child was not created"
    );
}

#[test]
fn reopening_the_database_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let (sid, exported, events) = {
        let store = Store::open_in(dir.path()).unwrap();
        assert_eq!(store.path(), dir.path().join("strata.db"));
        let s = store.create_session(Path::new("/p"), None).unwrap();
        let m = store
            .append_message(&s.id, Role::Assistant, json!({"n": 1}))
            .unwrap();
        store
            .upsert_part(&s.id, &m.id, None, "text", json!({"text": "kept"}))
            .unwrap();
        (
            s.id.clone(),
            store.export(&s.id).unwrap(),
            store.events_since(&s.id, 0).unwrap(),
        )
    };
    let store = Store::open(dir.path().join("strata.db")).unwrap();
    assert_eq!(store.export(&sid).unwrap(), exported);
    assert_eq!(store.events_since(&sid, 0).unwrap(), events);
    let next = store.record_event(&sid, "session.idle", json!({})).unwrap();
    assert_eq!(next.seq, events.len() as i64 + 1);
}

#[test]
fn an_unopenable_path_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "not a folder").unwrap();
    let err = Store::open(blocker.join("strata.db")).unwrap_err();
    assert!(
        err.to_string().contains(&blocker.display().to_string()),
        "{err}"
    );
}

#[test]
fn the_newest_message_of_a_role_and_the_newest_naming_a_key_are_found() {
    let (_dir, store) = store();
    let s = store.create_session(Path::new("/p"), None).unwrap();
    assert_eq!(store.last_message(&s.id, Role::User).unwrap(), None);
    let mut users = Vec::new();
    for i in 0..3 {
        let user = store
            .append_message(&s.id, Role::User, json!({"agent": format!("a{i}")}))
            .unwrap();
        store
            .append_message(&s.id, Role::Assistant, json!({"agent": "x"}))
            .unwrap();
        users.push(user.id);
    }
    let last = store.last_message(&s.id, Role::User).unwrap().unwrap();
    assert_eq!(
        (last.id.as_str(), &last.data["agent"]),
        (users[2].as_str(), &json!("a2"))
    );
    let answer = store.last_message(&s.id, Role::Assistant).unwrap().unwrap();
    assert!(answer.id > last.id, "the answer came after the last prompt");
    // Only the first prompt names a model: a later one without it (a loop's note) is passed.
    let named = json!({"agent": "build", "model": {"providerID": "p", "modelID": "m"}});
    let older = store.append_message(&s.id, Role::User, named).unwrap();
    store
        .append_message(&s.id, Role::User, json!({"agent": "build"}))
        .unwrap();
    let naming = store
        .last_message_naming(&s.id, Role::User, "model")
        .unwrap();
    assert_eq!(naming.unwrap().id, older.id);
    let none = store
        .last_message_naming(&s.id, Role::Assistant, "model")
        .unwrap();
    assert_eq!(none, None, "no answer names a model");
    assert!(matches!(
        store.last_message("ses_nope", Role::User),
        Err(StoreError::NotFound { .. })
    ));
}
