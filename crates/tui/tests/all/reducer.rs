//! The reducer: duplicates, order, gaps, reconnect replay, and every part status.

use serde_json::json;
use strata_protocol::ToolState;
use strata_tui::model::{Busy, PartKind};
use strata_tui::state::GAP_WINDOW;
use strata_tui::{Action, ClientEvent, Effect};

use crate::fixtures::*;

fn part_text(app: &strata_tui::App, message: &str, part: &str) -> String {
    let s = app.state.session.as_ref().unwrap();
    let m = s.message(message).unwrap();
    match &m.parts.iter().find(|p| p.id == part).unwrap().kind {
        PartKind::Text(t) => t.text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

fn permission(seq: u64) -> strata_tui::Envelope {
    ev(
        Some(seq),
        "permission.asked",
        json!({"id": "per_1", "sessionID": SID, "permission": "edit", "patterns": ["a.py"],
               "metadata": {}, "always": ["*"]}),
    )
}

#[test]
fn a_replayed_event_is_applied_once() {
    let mut app = app_with(vec![]);
    app.state.apply(permission(1));
    assert!(app.state.permission().is_some());
    let replied = ev(
        Some(2),
        "permission.replied",
        json!({"sessionID": SID, "requestID": "per_1", "reply": "once"}),
    );
    app.state.apply(replied.clone());
    assert!(app.state.permission().is_none());
    // The same events again (a replay): the answered request must not come back.
    assert!(app.state.apply(permission(1)).is_empty());
    assert!(app.state.apply(replied).is_empty());
    assert!(app.state.permission().is_none());
    assert_eq!(app.state.session.as_ref().unwrap().last_seq, 2);
}

#[test]
fn events_out_of_order_are_applied_in_sequence_order() {
    let mut app = app_with(vec![msg_updated(Some(1), assistant("msg_a"))]);
    let early = part_updated(Some(2), text("prt_1", "msg_a", "Do", false));
    let late = part_updated(Some(3), text("prt_1", "msg_a", "Done.", true));
    assert!(app.state.apply(late).is_empty());
    assert_eq!(app.state.held(), 1);
    app.state.apply(early);
    assert_eq!(app.state.held(), 0);
    assert_eq!(part_text(&app, "msg_a", "prt_1"), "Done.");
    assert_eq!(app.state.session.as_ref().unwrap().last_seq, 3);
}

#[test]
fn a_missing_event_triggers_a_refetch_and_the_snapshot_closes_the_gap() {
    let mut app = app_with(vec![msg_updated(Some(1), assistant("msg_a"))]);
    // seq 2 never comes; 3.. wait behind it.
    app.state
        .apply(part_updated(Some(3), text("prt_1", "msg_a", "x", false)));
    assert_eq!(app.on_gap_timer(), vec![Action::Open(SID.into())]);
    // Asked once: a second timer while the fetch runs asks nothing.
    assert!(app.on_gap_timer().is_empty());
    let snap = snapshot_of(&[json!({"info": assistant("msg_a"),
        "parts": [text("prt_1", "msg_a", "xyz", true)]})]);
    app.state.load(snap);
    assert_eq!(app.state.held(), 0);
    assert_eq!(app.state.session.as_ref().unwrap().last_seq, 3);
    assert_eq!(part_text(&app, "msg_a", "prt_1"), "xyz");
    // Numbering goes on from the snapshot.
    app.state
        .apply(part_updated(Some(4), text("prt_1", "msg_a", "xyz!", true)));
    assert_eq!(part_text(&app, "msg_a", "prt_1"), "xyz!");
}

#[test]
fn too_many_events_behind_a_gap_refetch_at_once() {
    let mut app = app_with(vec![msg_updated(Some(1), assistant("msg_a"))]);
    let mut effects = vec![];
    for seq in 3..(3 + GAP_WINDOW as u64 + 1) {
        effects.extend(app.state.apply(status(Some(seq), "busy")));
    }
    assert_eq!(effects, vec![Effect::Refetch(SID.into())]);
}

#[test]
fn a_snapshot_with_a_sequence_keeps_later_held_events() {
    let mut app = app_with(vec![msg_updated(Some(1), assistant("msg_a"))]);
    app.state
        .apply(part_updated(Some(3), text("prt_1", "msg_a", "old", false)));
    app.state.apply(part_updated(
        Some(5),
        text("prt_1", "msg_a", "newest", true),
    ));
    app.state.flush_gap();
    let mut snap = snapshot_of(&[json!({"info": assistant("msg_a"),
        "parts": [text("prt_1", "msg_a", "from snapshot", false)]})]);
    snap.seq = Some(4);
    app.state.load(snap);
    assert_eq!(part_text(&app, "msg_a", "prt_1"), "newest");
    assert_eq!(app.state.session.as_ref().unwrap().last_seq, 5);
}

#[test]
fn a_reconnect_replays_from_the_cursor_without_doubling() {
    let mut app = app_with(vec![]);
    let events = |range: std::ops::Range<u64>| {
        range
            .map(|s| {
                part_updated(
                    Some(s),
                    text(&format!("prt_{s}"), "msg_a", &format!("p{s}"), true),
                )
            })
            .collect::<Vec<_>>()
    };
    app.state.apply(msg_updated(None, assistant("msg_a")));
    for e in events(1..6) {
        app.on_client_event(ClientEvent::Event(e));
    }
    app.on_client_event(ClientEvent::Disconnected {
        attempt: 1,
        error: "reset".into(),
    });
    // The server numbers its events: no re-fetch, the replay fills in.
    assert!(app.on_client_event(ClientEvent::Connected).is_empty());
    for e in events(3..8) {
        app.on_client_event(ClientEvent::Event(e));
    }
    let m = app
        .state
        .session
        .as_ref()
        .unwrap()
        .message("msg_a")
        .unwrap()
        .clone();
    let ids: Vec<&str> = m.parts.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "prt_1", "prt_2", "prt_3", "prt_4", "prt_5", "prt_6", "prt_7"
        ]
    );
}

#[test]
fn a_reconnect_to_a_server_without_numbers_refetches() {
    let mut app = app_with(vec![msg_updated(None, assistant("msg_a"))]);
    app.on_client_event(ClientEvent::Disconnected {
        attempt: 2,
        error: "x".into(),
    });
    assert_eq!(
        app.on_client_event(ClientEvent::Connected),
        vec![Action::Open(SID.into())]
    );
}

#[test]
fn text_streams_by_deltas_and_other_sessions_are_left_alone() {
    let mut app = app_with(vec![
        msg_updated(Some(1), assistant("msg_a")),
        part_updated(Some(2), text("prt_1", "msg_a", "", false)),
        delta("msg_a", "prt_1", "Hel"),
        delta("msg_a", "prt_1", "lo"),
    ]);
    assert_eq!(part_text(&app, "msg_a", "prt_1"), "Hello");
    let mut other = assistant("msg_b");
    other["sessionID"] = json!("ses_other");
    app.state.apply(ev(
        Some(1),
        "message.updated",
        json!({"sessionID": "ses_other", "info": other}),
    ));
    app.state.apply(ev(
        Some(9),
        "session.status",
        json!({"sessionID": "ses_other", "status": {"type": "busy"}}),
    ));
    let s = app.state.session.as_ref().unwrap();
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.last_seq, 2);
    assert_eq!(app.state.statuses.get("ses_other"), Some(&Busy::Busy));
    assert_eq!(app.state.busy(), Busy::Idle);
}

#[test]
fn a_delta_after_its_finished_part_is_not_appended_again() {
    let app = app_with(vec![
        msg_updated(Some(1), assistant("msg_a")),
        part_updated(Some(2), text("prt_1", "msg_a", "", false)),
        delta("msg_a", "prt_1", "Hel"),
        part_updated(Some(3), text("prt_1", "msg_a", "Hello", true)),
        // Late: its text is already in the finished part.
        delta("msg_a", "prt_1", "lo"),
    ]);
    assert_eq!(part_text(&app, "msg_a", "prt_1"), "Hello");
}

#[test]
fn every_tool_status_is_held_as_sent() {
    let states = [
        json!({"status": "pending", "input": {}, "raw": ""}),
        json!({"status": "running", "input": {"filePath": "a.py"}, "time": {"start": 1}}),
        json!({"status": "completed", "input": {"filePath": "a.py"}, "output": "x", "title": "a.py",
               "metadata": {}, "time": {"start": 1, "end": 2}}),
        json!({"status": "error", "input": {"filePath": "a.py"}, "error": "rejected",
               "time": {"start": 1, "end": 2}}),
    ];
    let mut app = app_with(vec![msg_updated(Some(1), assistant("msg_a"))]);
    let mut seen = vec![];
    for (i, state) in states.into_iter().enumerate() {
        app.state.apply(part_updated(
            Some(i as u64 + 2),
            tool("prt_t", "msg_a", "read", state),
        ));
        let s = app.state.session.as_ref().unwrap();
        let part = &s.message("msg_a").unwrap().parts[0];
        let PartKind::Tool(t) = &part.kind else {
            panic!("not a tool")
        };
        seen.push(t.state.status());
        if let ToolState::Error(e) = &t.state {
            assert_eq!(e.error, "rejected");
        }
    }
    assert_eq!(seen, ["pending", "running", "completed", "error"]);
    assert_eq!(
        app.state
            .session
            .as_ref()
            .unwrap()
            .message("msg_a")
            .unwrap()
            .parts
            .len(),
        1
    );
}

#[test]
fn removals_statuses_errors_and_todos() {
    let mut app = app_with(vec![
        msg_updated(Some(1), user("msg_u")),
        msg_updated(Some(2), assistant("msg_a")),
        part_updated(Some(3), text("prt_1", "msg_a", "hi", true)),
        status(Some(4), "busy"),
        ev(
            Some(5),
            "todo.updated",
            json!({"sessionID": SID, "todos": [
            {"content": "write tests", "status": "in_progress", "priority": "high"}]}),
        ),
        ev(
            None,
            "session.error",
            json!({"sessionID": SID, "error": {"name": "APIError", "data": {"message": "rate limited"}}}),
        ),
    ]);
    assert_eq!(app.state.busy(), Busy::Busy);
    assert_eq!(app.state.error.as_deref(), Some("rate limited"));
    assert_eq!(
        app.state.session.as_ref().unwrap().todos[0].content,
        "write tests"
    );
    app.state.apply(ev(
        Some(6),
        "message.part.removed",
        json!({"sessionID": SID, "messageID": "msg_a", "partID": "prt_1"}),
    ));
    app.state.apply(ev(
        Some(7),
        "message.removed",
        json!({"sessionID": SID, "messageID": "msg_u"}),
    ));
    app.state.apply(status(Some(8), "idle"));
    let s = app.state.session.as_ref().unwrap();
    assert_eq!(s.messages.len(), 1);
    assert!(s.message("msg_a").unwrap().parts.is_empty());
    assert_eq!(app.state.busy(), Busy::Idle);
}
