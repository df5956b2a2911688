//! Snapshots of every view drawn into a `TestBackend` at 80×24 and 120×40.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use strata_protocol::wire::SessionTools;
use strata_tui::app::{QuestionUi, Reply, ToolCounts};
use strata_tui::model::MessageWithParts;
use strata_tui::view::ViewState;
use strata_tui::{App, view};

use crate::fixtures::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// Draws a frame and tells the app what it measured, as the runtime does.
fn draw(app: &mut App, view_state: &mut ViewState, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::draw(f, app, view_state)).unwrap();
    app.on_drawn(view_state.drawn());
    t
}

/// Snapshots `app` at both sizes.
fn check(name: &str, mut app: App) {
    let mut view_state = ViewState::default();
    for (w, h) in SIZES {
        let t = draw(&mut app, &mut view_state, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), t.backend());
    }
}

fn turn_start() -> Vec<strata_tui::Envelope> {
    vec![
        msg_updated(Some(1), user("msg_u")),
        part_updated(
            Some(2),
            text(
                "prt_u",
                "msg_u",
                "please fix the greeting in src/app.py",
                false,
            ),
        ),
        status(Some(3), "busy"),
        msg_updated(Some(4), assistant("msg_a")),
    ]
}

const REPLY: &str = "I'll change the greeting.\n\n## Plan\n\n1. Read `src/app.py`\n2. Replace **Bye** with *Ciao*\n\n```python\ndef farewell():\n    # say goodbye\n    print(\"Ciao\")  # 42\n```\n\nThat's all";

#[test]
fn empty_session() {
    check("empty", App::new(boot()));
}

#[test]
fn the_status_bar_shows_the_sessions_sandbox_mode() {
    let mut app = app_with(vec![]);
    let mut view_state = ViewState::default();
    let screen = |app: &mut App, view_state: &mut ViewState| {
        format!("{:?}", draw(app, view_state, 120, 40).backend())
    };
    assert!(!screen(&mut app, &mut view_state).contains("sandbox"));
    let mut open = snapshot();
    open.session
        .extra
        .insert("sandbox".into(), json!("workspace-write"));
    app.state.load(open);
    let shown = screen(&mut app, &mut view_state);
    assert!(
        shown.contains("sandbox workspace-write · 0 tokens"),
        "{shown}"
    );
    // A later update without the field keeps what the session said on open.
    let info = json!({
        "id": SID, "slug": "s", "projectID": "p", "directory": "/p", "title": "Renamed",
        "version": "1", "cost": 0.0,
        "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "time": {"created": 1, "updated": 2}
    });
    let update = json!({"sessionID": SID, "info": info});
    app.state.apply(ev(None, "session.updated", update));
    assert_eq!(
        app.state.session.as_ref().unwrap().info.title,
        "Renamed",
        "applied"
    );
    assert!(screen(&mut app, &mut view_state).contains("sandbox workspace-write"));
}

#[test]
fn streaming_reply() {
    let mut events = turn_start();
    events.push(part_updated(Some(5), text("prt_1", "msg_a", "", false)));
    for chunk in REPLY.split_inclusive(' ') {
        events.push(delta("msg_a", "prt_1", chunk));
    }
    check("streaming", app_with(events));
}

fn tool_states() -> Vec<(&'static str, Value)> {
    vec![
        (
            "read",
            json!({"status": "pending", "input": {}, "raw": "{\"file"}),
        ),
        (
            "bash",
            json!({"status": "running", "input": {"command": "cargo test"}, "time": {"start": 1},
            "metadata": {"output": "running 3 tests\ntest a ... ok\n"}}),
        ),
        (
            "read",
            json!({"status": "completed", "input": {"filePath": "src/app.py"}, "title": "src/app.py",
            "output": "<file>\n00001| def greet():\n00002|     print(\"Hi\")\n</file>", "metadata": {},
            "time": {"start": 1, "end": 2}}),
        ),
        (
            "edit",
            json!({"status": "completed", "input": {"filePath": "src/app.py"}, "title": "src/app.py",
            "output": "Edit applied.", "time": {"start": 1, "end": 2},
            "metadata": {"diff": "--- src/app.py\n+++ src/app.py\n@@ -4,2 +4,2 @@\n def farewell():\n-    print(\"Bye\")\n+    print(\"Ciao\")"}}),
        ),
        (
            "edit",
            json!({"status": "error", "input": {"filePath": "src/app.py"},
            "error": "The user rejected permission to use this specific tool call.", "time": {"start": 1, "end": 2}}),
        ),
    ]
}

fn tools_app() -> App {
    let mut events = turn_start();
    for (i, (name, state)) in tool_states().into_iter().enumerate() {
        events.push(part_updated(
            Some(5 + i as u64),
            tool(&format!("prt_{i}"), "msg_a", name, state),
        ));
    }
    app_with(events)
}

#[test]
fn tool_cards_in_each_state() {
    check("tools_folded", tools_app());
    let mut app = tools_app();
    app.on_key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL));
    check("tools_expanded", app);
}

#[test]
fn permission_dialog() {
    let mut events = turn_start();
    events.push(ev(Some(5), "permission.asked", json!({"id": "per_1", "sessionID": SID, "permission": "edit",
        "patterns": ["src/app.py"], "always": ["*"],
        "metadata": {"filepath": "/p/src/app.py", "diff": "Index: /p/src/app.py\n===\n--- /p/src/app.py\n+++ /p/src/app.py\n@@ -4,2 +4,2 @@\n def farewell():\n-    print(\"Bye\")\n+    print(\"Ciao\")"}})));
    let mut app = app_with(events);
    for c in "keep it".chars() {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    app.on_key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE));
    check("permission", app);
}

#[test]
fn sandbox_escape_dialog() {
    let mut events = turn_start();
    events.push(ev(
        Some(5),
        "permission.asked",
        json!({"id": "per_2", "sessionID": SID,
        "permission": "sandbox_escape", "patterns": ["git push origin main"],
        "always": ["git push origin main"],
        "metadata": {"command": "git push origin main", "escapesSandbox": true,
            "justification": "the user asked to publish the branch",
            "title": "Run outside the sandbox: git push origin main"}}),
    ));
    check("sandbox_escape", app_with(events));
}

#[test]
fn permission_dialog_after_a_change_on_disk() {
    let mut events = turn_start();
    events.push(ev(Some(5), "permission.asked", json!({"id": "per_2", "sessionID": SID, "permission": "edit",
        "patterns": ["src/app.py"], "always": ["*"],
        "metadata": {"filepath": "/p/src/app.py",
        "title": "src/app.py changed since the last ask; this is the diff against the file as it is now",
        "changedSinceAsk": {"requestID": "per_1", "files": ["src/app.py"]},
        "diff": "Index: /p/src/app.py\n===\n--- /p/src/app.py\n+++ /p/src/app.py\n@@ -4,3 +4,3 @@\n def farewell():\n-    print(\"Bye\")\n+    print(\"Ciao\")\n     return 0"}})));
    check("permission_reasked", app_with(events));
}

#[test]
fn question_dialog() {
    let q = |multiple: bool| {
        json!({"question": "Which greeting should farewell() print?", "header": "Greeting",
        "multiple": multiple, "options": [{"label": "Ciao", "description": "Italian"},
        {"label": "Adios", "description": "Spanish"}, {"label": "Bye", "description": "keep it"}]})
    };
    let mut events = turn_start();
    events.push(ev(
        Some(5),
        "question.asked",
        json!({"id": "que_1", "sessionID": SID, "questions": [q(false)]}),
    ));
    check("question_single", app_with(events));
    let mut events = turn_start();
    events.push(ev(
        Some(5),
        "question.asked",
        json!({"id": "que_2", "sessionID": SID, "questions": [q(true), q(false)]}),
    ));
    let mut app = app_with(events);
    app.on_key(KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE));
    app.on_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
    app.on_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
    app.on_key(KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE));
    check("question_multiple", app);
}

#[test]
fn todo_list() {
    let mut events = turn_start();
    events.push(ev(
        Some(5),
        "todo.updated",
        json!({"sessionID": SID, "todos": [
        {"content": "Read src/app.py", "status": "completed", "priority": "high"},
        {"content": "Change the farewell greeting", "status": "in_progress", "priority": "high"},
        {"content": "Run the tests", "status": "pending", "priority": "medium"},
        {"content": "Translate the docs", "status": "cancelled", "priority": "low"}]}),
    ));
    check("todos", app_with(events));
}

#[test]
fn an_error() {
    let mut events = turn_start();
    let mut failed = assistant("msg_a");
    failed["error"] = json!({"name": "APIError", "data": {"message": "The model provider answered 429: rate limited"}});
    events.push(msg_updated(Some(5), failed));
    events.push(status(Some(6), "idle"));
    events.push(ev(
        None,
        "session.error",
        json!({"sessionID": SID, "error": {"name": "APIError",
        "data": {"message": "The model provider answered 429: rate limited"}}}),
    ));
    check("error", app_with(events));
}

#[test]
fn a_step_served_from_the_prompt_cache() {
    // The status line shows the last step's context with what the cache read and wrote.
    let mut events = turn_start();
    let mut done = assistant("msg_a");
    done["finish"] = json!("stop");
    done["tokens"] = json!({"input": 310, "output": 42, "reasoning": 0,
                            "cache": {"read": 18_250, "write": 1_420}});
    events.push(part_updated(Some(5), text("prt_1", "msg_a", "Done.", true)));
    events.push(msg_updated(Some(6), done));
    events.push(status(Some(7), "idle"));
    check("cache_usage", app_with(events));
}

#[test]
fn the_tool_counts_from_slash_tools() {
    // `/tools` asks for the counts; the reply shows them in a notice and the status line.
    let mut app = app_with(vec![]);
    app.on_reply(Reply::Tools {
        session_id: SID.into(),
        tools: SessionTools {
            model: "openai/gpt-5".into(),
            loaded: 16,
            deferred: 120,
            tools: vec![],
        },
    });
    check("tool_counts", app);
    // Counts of another session are not shown for this one.
    let mut app = app_with(vec![]);
    app.status.tools = Some(ToolCounts {
        session_id: "ses_other".into(),
        loaded: 3,
        deferred: 1,
    });
    let screen = format!(
        "{:?}",
        draw(&mut app, &mut ViewState::default(), 120, 40).backend()
    );
    assert!(!screen.contains("deferred"), "{screen}");
}

fn long_session(n: usize) -> App {
    let mut messages = vec![];
    for i in 0..n {
        let (u, a) = (format!("msg_u{i:04}"), format!("msg_a{i:04}"));
        let mut ui = user(&u);
        ui["id"] = json!(u);
        messages.push(json!({"info": ui, "parts": [text(&format!("prt_u{i}"), &u, &format!("question number {i}"), false)]}));
        let mut ai = assistant(&a);
        ai["finish"] = json!("stop");
        messages.push(json!({"info": ai, "parts": [text(&format!("prt_a{i}"), &a, &format!("Answer **{i}**: the `value` is {}.", i * 7), true)]}));
    }
    let mut app = App::new(boot());
    app.state.load(snapshot_of(&messages));
    app.state.connection = strata_tui::state::Connection::Connected;
    app
}

#[test]
fn a_long_session_scrolled() {
    let mut app = long_session(100);
    app.viewport.scroll = 30;
    check("long_scrolled", app);
    let mut app = long_session(100);
    let _ = draw(&mut app, &mut ViewState::default(), 80, 24);
    app.on_key(KeyEvent::new(KeyCode::PageUp, KeyModifiers::NONE));
    assert!(app.viewport.scroll > 0);
}

#[test]
fn layouts_are_cached_per_message_and_width() {
    let mut app = long_session(200);
    let mut vs = ViewState::default();
    let _ = draw(&mut app, &mut vs, 80, 24);
    let first = vs.cache.misses;
    assert_eq!(first, 400, "each message laid out once");
    let _ = draw(&mut app, &mut vs, 80, 24);
    assert_eq!(vs.cache.misses, first, "nothing laid out again");
    // A streamed token re-lays-out only its own message.
    app.state.apply(delta("msg_a0199", "prt_a199", " more"));
    let _ = draw(&mut app, &mut vs, 80, 24);
    assert_eq!(vs.cache.misses, first + 1);
    let _ = draw(&mut app, &mut vs, 120, 40);
    assert_eq!(vs.cache.misses, first + 1 + 400);
}

#[test]
fn drawing_reads_the_app_and_the_runtime_tells_it_what_was_measured() {
    let mut app = long_session(100);
    app.state.apply(ev(
        None,
        "question.asked",
        json!({"id": "que_2", "sessionID": SID, "questions": [{"question": "Which?",
        "options": [{"label": "A"}, {"label": "B"}]}]}),
    ));
    // Left over from an earlier question: the view shows the new one fresh, and leaves it.
    app.dialogs.question = QuestionUi {
        request_id: "que_1".into(),
        cursor: 1,
        custom: "old".into(),
        ..Default::default()
    };
    app.viewport.scroll = 100_000;
    let before = (
        app.dialogs.clone(),
        app.viewport.clone(),
        app.status.clone(),
    );
    let mut vs = ViewState::default();
    let mut frames = vec![];
    for _ in 0..2 {
        let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
        t.draw(|f| view::draw(f, &app, &mut vs)).unwrap();
        frames.push(t.backend().to_string());
    }
    assert_eq!(frames[0], frames[1]);
    assert!(frames[0].contains("▸ (•) A"), "{}", frames[0]);
    assert!(!frames[0].contains("old"), "{}", frames[0]);
    assert_eq!(
        (
            app.dialogs.clone(),
            app.viewport.clone(),
            app.status.clone()
        ),
        before
    );
    // What the frame measured reaches the app only through `on_drawn`.
    let max = vs.max_scroll.unwrap();
    assert!(vs.page > 2 && max > vs.page, "page {} max {max}", vs.page);
    app.on_drawn(vs.drawn());
    assert_eq!((app.viewport.page, app.viewport.scroll), (vs.page, max));
    // Page down starts from what was on screen (keys reach the conversation once the
    // question is gone).
    app.state.questions.clear();
    app.on_key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE));
    assert_eq!(app.viewport.scroll, max - vs.page / 2);
}

#[test]
fn markdown_and_code_are_styled() {
    let lines = view::markdown("```rust\nfn main() {}\n```", 40);
    let fn_span = lines
        .iter()
        .flat_map(|l| &l.spans)
        .find(|s| s.content == "fn")
        .unwrap();
    assert_eq!(fn_span.style.fg, Some(ratatui::style::Color::Magenta));
}

/// Exchange `i` of a long session, with ids that ascend with time as a server's do.
fn exchange(i: usize) -> [MessageWithParts; 2] {
    let (u, a) = (format!("msg_{:05}", 2 * i), format!("msg_{:05}", 2 * i + 1));
    let mut answer = assistant(&a);
    answer["finish"] = json!("stop");
    [
        json!({"info": user(&u), "parts": [text(&format!("prt_{u}"), &u, &format!("question {i}"), false)]}),
        json!({"info": answer, "parts": [text(&format!("prt_{a}"), &a, &format!("answer {i}"), true)]}),
    ]
    .map(|m| MessageWithParts::from_json(&m).unwrap())
}

fn exchanges(range: std::ops::Range<usize>) -> Vec<MessageWithParts> {
    range.flat_map(exchange).collect()
}

#[test]
fn a_long_session_opens_on_its_newest_page_and_loads_older_ones_from_the_top() {
    // 300 exchanges; the snapshot holds the newest 50 (100 messages) and a cursor.
    let mut app = App::new(boot());
    let mut opened = snapshot();
    opened.session.cost = 0.0123 * 300.0;
    opened.messages = exchanges(250..300);
    opened.older = Some("msg_00500".into());
    app.state.load(opened);
    let mut vs = ViewState::default();
    let screen = format!("{:?}", draw(&mut app, &mut vs, 80, 24).backend());
    assert!(
        screen.contains("answer 299"),
        "the newest message is on screen"
    );
    assert_eq!(vs.cache.misses, 100, "only the loaded page is laid out");
    assert!(app.history_wanted().is_empty(), "the top is far away");
    let s = app.state.session.as_ref().unwrap();
    assert!(
        (s.cost() - 0.0123 * 300.0).abs() < 1e-9,
        "the cost is the session's"
    );

    // An event about a message before the page is not shown as a new message.
    app.state
        .apply(part_updated(None, text("prt_x", "msg_00010", "late", true)));
    app.state.apply(part_updated(
        None,
        text("prt_new", "msg_00600", "new step", true),
    ));
    let ids: Vec<&str> = app
        .state
        .session
        .as_ref()
        .unwrap()
        .messages
        .iter()
        .map(|m| m.info.id.as_str())
        .collect();
    assert_eq!(
        (ids.len(), ids[0], ids[100]),
        (101, "msg_00500", "msg_00600")
    );

    // Scrolling to the top of the page asks for the page before, once.
    while app
        .viewport
        .max_scroll
        .is_some_and(|max| app.viewport.scroll < max)
    {
        app.on_key(KeyEvent::new(KeyCode::PageUp, KeyModifiers::NONE));
        let _ = draw(&mut app, &mut vs, 80, 24);
    }
    let wanted = app.history_wanted();
    assert_eq!(
        wanted,
        vec![strata_tui::app::Action::LoadOlder {
            session_id: SID.into(),
            before: "msg_00500".into()
        }]
    );
    assert!(app.history_wanted().is_empty(), "one page at a time");
    let at = app.viewport.scroll;
    app.on_reply(strata_tui::app::Reply::Older {
        session_id: SID.into(),
        page: strata_tui::model::OlderPage {
            messages: exchanges(200..250),
            older: Some("msg_00400".into()),
        },
    });
    let screen = format!("{:?}", draw(&mut app, &mut vs, 80, 24).backend());
    let s = app.state.session.as_ref().unwrap();
    assert_eq!(
        (s.messages.len(), s.older.as_deref()),
        (201, Some("msg_00400"))
    );
    assert_eq!(app.viewport.scroll, at, "what was on screen stays there");
    assert!(screen.contains("question 250"), "{screen}");
    assert!((s.cost() - 0.0123 * 300.0).abs() < 1e-9);
}
