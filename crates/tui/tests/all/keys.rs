//! Keys and slash commands turn into the right actions.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use strata_tui::app::{Overlay, QuestionUi};
use strata_tui::model::{ModelChoice, PermissionReply};
use strata_tui::{Action, App, ClientEvent};

use crate::fixtures::*;

fn key(app: &mut App, code: KeyCode) -> Vec<Action> {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn mods(app: &mut App, code: KeyCode, m: KeyModifiers) -> Vec<Action> {
    app.on_key(KeyEvent::new(code, m))
}

fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

#[test]
fn enter_sends_and_shift_or_alt_enter_break_the_line() {
    let mut app = app_with(vec![]);
    typed(&mut app, "one");
    assert!(mods(&mut app, KeyCode::Enter, KeyModifiers::SHIFT).is_empty());
    typed(&mut app, "two");
    mods(&mut app, KeyCode::Enter, KeyModifiers::ALT);
    typed(&mut app, "three");
    let sent = key(&mut app, KeyCode::Enter);
    assert_eq!(
        sent,
        vec![Action::Prompt {
            session_id: Some(SID.into()),
            text: "one\ntwo\nthree".into(),
            agent: "build".into(),
            model: Some(ModelChoice {
                provider_id: "mock".into(),
                model_id: "mock".into()
            }),
        }]
    );
    assert!(app.input.is_empty());
    // History: Up brings the prompt back.
    key(&mut app, KeyCode::Up);
    assert_eq!(app.input.text(), "one\ntwo\nthree");
}

#[test]
fn without_a_session_the_prompt_asks_for_one() {
    let mut app = App::new(boot());
    typed(&mut app, "hi");
    let Action::Prompt { session_id, .. } = &key(&mut app, KeyCode::Enter)[0] else {
        panic!()
    };
    assert_eq!(session_id, &None);
}

#[test]
fn tab_cycles_the_primary_agents() {
    let mut app = app_with(vec![]);
    assert_eq!(app.agent(), "build");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.agent(), "plan");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.agent(), "build", "subagents are not offered");
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.agent(), "plan");
}

#[test]
fn esc_interrupts_only_a_busy_session() {
    let mut app = app_with(vec![]);
    assert!(key(&mut app, KeyCode::Esc).is_empty());
    app.state.apply(status(None, "busy"));
    assert_eq!(key(&mut app, KeyCode::Esc), vec![Action::Abort(SID.into())]);
}

#[test]
fn ctrl_c_clears_then_quits_and_ctrl_d_quits_on_empty_input() {
    let mut app = app_with(vec![]);
    typed(&mut app, "draft");
    assert!(mods(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL).is_empty());
    assert!(app.input.is_empty());
    assert_eq!(
        mods(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL),
        vec![Action::Quit]
    );
    let mut app = app_with(vec![]);
    mods(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    typed(&mut app, "x");
    // Another key in between disarms.
    assert!(mods(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL).is_empty());
    typed(&mut app, "x");
    assert!(mods(&mut app, KeyCode::Char('d'), KeyModifiers::CONTROL).is_empty());
    mods(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert_eq!(
        mods(&mut app, KeyCode::Char('d'), KeyModifiers::CONTROL),
        vec![Action::Quit]
    );
}

fn asked() -> strata_tui::Envelope {
    ev(
        None,
        "permission.asked",
        json!({"id": "per_1", "sessionID": SID, "permission": "edit",
        "patterns": ["a.py"], "metadata": {}, "always": ["*"]}),
    )
}

#[test]
fn the_permission_dialog_answers_by_key() {
    let mut app = app_with(vec![asked()]);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Action::ReplyPermission {
            request_id: "per_1".into(),
            reply: PermissionReply::Once,
            message: None
        }]
    );
    assert!(
        app.state.permission().is_none(),
        "the dialog closes at once"
    );
    let mut app = app_with(vec![asked()]);
    key(&mut app, KeyCode::Right);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Action::ReplyPermission {
            request_id: "per_1".into(),
            reply: PermissionReply::Always,
            message: None
        }]
    );
    let mut app = app_with(vec![asked()]);
    typed(&mut app, "use b.py");
    assert_eq!(
        key(&mut app, KeyCode::Esc),
        vec![Action::ReplyPermission {
            request_id: "per_1".into(),
            reply: PermissionReply::Reject,
            message: Some("use b.py".into())
        }]
    );
}

fn question(multiple: bool, n: usize) -> strata_tui::Envelope {
    let q = json!({"question": "Which one?", "header": "Pick", "multiple": multiple,
        "options": [{"label": "A", "description": "first"}, {"label": "B", "description": "second"}]});
    ev(
        None,
        "question.asked",
        json!({"id": "que_1", "sessionID": SID, "questions": vec![q; n]}),
    )
}

#[test]
fn the_question_dialog_takes_single_multiple_and_typed_answers() {
    let mut app = app_with(vec![question(false, 2)]);
    key(&mut app, KeyCode::Down);
    assert!(
        key(&mut app, KeyCode::Enter).is_empty(),
        "one question left"
    );
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    typed(&mut app, "my own");
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Action::ReplyQuestion {
            request_id: "que_1".into(),
            answers: vec![vec!["B".into()], vec!["my own".into()]]
        }]
    );
    let mut app = app_with(vec![question(true, 1)]);
    key(&mut app, KeyCode::Char(' '));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char(' '));
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Action::ReplyQuestion {
            request_id: "que_1".into(),
            answers: vec![vec!["A".into(), "B".into()]]
        }]
    );
    let mut app = app_with(vec![question(true, 1)]);
    assert_eq!(
        key(&mut app, KeyCode::Esc),
        vec![Action::RejectQuestion("que_1".into())]
    );
}

fn asked_question(id: &str) -> ClientEvent {
    let q = json!({"question": "Which one?", "header": "Pick", "multiple": false,
        "options": [{"label": "A", "description": "first"}, {"label": "B", "description": "second"}]});
    ClientEvent::Event(ev(
        None,
        "question.asked",
        json!({"id": id, "sessionID": SID, "questions": [q]}),
    ))
}

#[test]
fn a_question_coming_up_resets_the_question_dialog() {
    let mut app = app_with(vec![]);
    app.on_client_event(asked_question("que_1"));
    assert_eq!(app.dialogs.question.request_id, "que_1", "reset on arrival");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    typed(&mut app, "mine");
    // A second question waits behind the first: the dialog keeps its place.
    app.on_client_event(asked_question("que_2"));
    assert_eq!(app.dialogs.question.custom, "mine");
    // The first is answered elsewhere: the second comes up on a fresh dialog, before any key.
    app.on_client_event(ClientEvent::Event(ev(
        None,
        "question.rejected",
        json!({"sessionID": SID, "requestID": "que_1"}),
    )));
    assert_eq!(
        app.dialogs.question,
        QuestionUi {
            request_id: "que_2".into(),
            checked: vec![false, false],
            ..Default::default()
        }
    );
}

fn command(app: &mut App, line: &str) -> Vec<Action> {
    typed(app, line);
    key(app, KeyCode::Enter)
}

#[test]
fn slash_commands() {
    let mut app = app_with(vec![
        msg_updated(Some(1), user("msg_u")),
        msg_updated(Some(2), assistant("msg_a")),
    ]);
    assert_eq!(
        command(&mut app, "/undo"),
        vec![Action::Revert {
            session_id: SID.into(),
            message_id: "msg_u".into()
        }]
    );
    assert_eq!(
        command(&mut app, "/redo"),
        vec![Action::Unrevert(SID.into())]
    );
    assert_eq!(command(&mut app, "/export"), vec![Action::Export]);
    assert_eq!(command(&mut app, "/tools"), vec![Action::Tools(SID.into())]);
    command(&mut app, "/model mock/big");
    assert_eq!(app.chooser.model.as_ref().unwrap().model_id, "big");
    command(&mut app, "/agent plan");
    assert_eq!(app.agent(), "plan");
    assert_eq!(command(&mut app, "/sessions"), vec![Action::ListSessions]);
    let Some(Overlay::Picker(p)) = &app.dialogs.overlay else {
        panic!("no picker")
    };
    assert_eq!(p.items.len(), 2);
    key(&mut app, KeyCode::Down);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Action::Open("ses_0".into())]
    );
    command(&mut app, "/model");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.chooser.model.as_ref().unwrap().model_id, "mock");
    command(&mut app, "/help");
    assert_eq!(app.dialogs.overlay, Some(Overlay::Help));
    key(&mut app, KeyCode::Char('x'));
    assert_eq!(app.dialogs.overlay, None);
    command(&mut app, "/nope");
    assert!(app.status.notice.as_deref().unwrap().contains("/help"));
    assert_eq!(
        command(&mut app, "/new"),
        vec![Action::End(SID.into())],
        "the session left behind ends"
    );
    assert!(app.state.session.is_none());
    assert!(command(&mut app, "/new").is_empty(), "no session to end");
    assert!(
        command(&mut app, "/tools").is_empty(),
        "no session to count"
    );
    assert!(
        app.status
            .notice
            .as_deref()
            .unwrap()
            .contains("No session yet"),
        "{:?}",
        app.status.notice
    );
}

#[test]
fn paste_keeps_newlines_and_ctrl_o_unfolds_tool_cards() {
    let mut app = app_with(vec![]);
    app.on_paste("line 1\r\nline 2");
    assert_eq!(app.input.text(), "line 1\nline 2");
    assert!(!app.viewport.expanded);
    mods(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert!(app.viewport.expanded);
}

/// The server's commands (its MCP prompts) from the bootstrap.
fn with_mcp_prompts(mut app: App) -> App {
    app.chooser.commands = vec![strata_tui::model::CommandInfo {
        name: "everything:args-prompt".into(),
        description: Some("A prompt with arguments".into()),
        source: "mcp".into(),
        template: String::new(),
        hints: vec!["city".into(), "[state]".into()],
    }];
    app
}

#[test]
fn a_slash_mcp_prompt_runs_the_servers_command_with_the_rest_of_the_line() {
    let mut app = with_mcp_prompts(app_with(vec![]));
    typed(&mut app, "/everything:args-prompt \"New York\" state=NY");
    let sent = key(&mut app, KeyCode::Enter);
    assert_eq!(
        sent,
        vec![Action::Command {
            session_id: Some(SID.into()),
            name: "everything:args-prompt".into(),
            arguments: "\"New York\" state=NY".into(),
            agent: "build".into(),
            model: Some(ModelChoice {
                provider_id: "mock".into(),
                model_id: "mock".into()
            }),
        }]
    );
    // Without a session the command asks for one; an unknown prompt is only a notice.
    let mut fresh = with_mcp_prompts(App::new(boot()));
    typed(&mut fresh, "/everything:args-prompt");
    let Action::Command { session_id, .. } = &key(&mut fresh, KeyCode::Enter)[0] else {
        panic!("no command")
    };
    assert_eq!(session_id, &None);
    typed(&mut fresh, "/everything:nope x");
    assert!(key(&mut fresh, KeyCode::Enter).is_empty());
    assert_eq!(
        fresh.status.notice.as_deref(),
        Some("Unknown command /everything:nope; /help lists them")
    );
}
