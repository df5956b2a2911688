//! The four flows an editor depends on: a turn with a read, an edit (its diff arrives) and a
//! bash call that asks; cancelling mid-turn, with an ask pending; loading a stored session
//! (one longer than a chunk comes whole and in order); switching to plan mode. Then the rest
//! an editor shows: the MCP servers it passes, thoughts and plans, a subagent's ask, and the
//! skills and MCP prompts offered as commands.

use agent_client_protocol::Agent;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CancelNotification, LoadSessionRequest, McpServer, McpServerHttp, NewSessionRequest,
    PromptRequest, PromptResponse, SessionId, SetSessionModeRequest, StopReason,
};
use serde_json::{Value, json};
use strata_agent::store::Role;
use strata_protocol::wire::Todo;
use strata_testkit::model_server::Turn;
use strata_testkit::poll_with_timeout;

use super::fixture::{Log, TURN, project, with_client};

/// Bash asks; nothing else does, and the sandbox does not wave bash through.
fn asking_bash() -> Value {
    json!({"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}})
}

async fn new_session(cx: &ConnectionTo<Agent>, dir: &std::path::Path) -> SessionId {
    let created = cx
        .send_request(NewSessionRequest::new(dir))
        .block_task()
        .await
        .unwrap();
    let modes = created.modes.expect("the agents are offered as modes");
    assert_eq!(&*modes.current_mode_id.0, "build");
    let ids: Vec<&str> = modes.available_modes.iter().map(|m| &*m.id.0).collect();
    assert!(ids.contains(&"plan"), "{ids:?}");
    created.session_id
}

async fn prompt(cx: &ConnectionTo<Agent>, sid: &SessionId, text: &str) -> PromptResponse {
    cx.send_request(PromptRequest::new(sid.clone(), vec![text.into()]))
        .block_task()
        .await
        .unwrap()
}

fn of_kind<'a>(updates: &'a [Value], kind: &str) -> Vec<&'a Value> {
    updates
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .collect()
}

#[tokio::test]
async fn a_turn_streams_a_read_an_edit_with_its_diff_and_a_bash_call_that_asks() {
    let p = project(
        vec![
            Turn::tool_call("call_read", "read", r#"{"filePath":"a.txt"}"#),
            Turn::tool_call(
                "call_edit",
                "edit",
                r#"{"filePath":"a.txt","oldString":"hello","newString":"goodbye"}"#,
            ),
            Turn::tool_call(
                "call_bash",
                "bash",
                r#"{"command":"echo acp-ran","description":"Print a marker"}"#,
            ),
            Turn::text("All done."),
        ],
        asking_bash(),
        &[("a.txt", "hello\n")],
    )
    .await;
    let log = Log::default();
    let dir = p.dir.clone();
    let answer = with_client(&p.core, Some("once"), log.clone(), async move |cx| {
        let sid = new_session(&cx, &dir).await;
        prompt(&cx, &sid, "Change the greeting").await
    })
    .await;
    assert_eq!(answer.stop_reason, StopReason::EndTurn);
    assert_eq!(
        std::fs::read_to_string(p.dir.join("a.txt")).unwrap(),
        "goodbye\n"
    );

    let updates = log.updates();
    let calls = of_kind(&updates, "tool_call");
    let kinds: Vec<&Value> = calls.iter().map(|c| &c["kind"]).collect();
    assert_eq!(kinds, [&json!("read"), &json!("edit"), &json!("execute")]);
    assert_eq!(calls[0]["toolCallId"], "call_read");
    let at = p.dir.join("a.txt").to_string_lossy().into_owned();
    let done = |id: &str| {
        of_kind(&updates, "tool_call_update")
            .into_iter()
            .rfind(|u| u["toolCallId"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("an update of {id}: {updates:#?}"))
    };
    let read = done("call_read");
    assert_eq!(
        (&read["status"], &read["kind"]),
        (&json!("completed"), &json!("read"))
    );
    assert_eq!(read["locations"][0]["path"], json!(at));
    assert!(read["content"].to_string().contains("hello"), "{read}");
    let edit = done("call_edit");
    assert_eq!(edit["status"], "completed");
    let diff = &edit["content"][0];
    assert_eq!(diff["type"], "diff");
    assert_eq!(diff["path"], json!(at));
    assert_eq!(
        (&diff["oldText"], &diff["newText"]),
        (&json!("hello"), &json!("goodbye"))
    );
    let bash = done("call_bash");
    assert_eq!(bash["status"], "completed");
    assert!(bash["content"].to_string().contains("acp-ran"), "{bash}");

    let asks = log.asks();
    assert_eq!(asks.len(), 1, "only bash asks: {asks:?}");
    assert_eq!(&*asks[0].tool_call.tool_call_id.0, "call_bash");
    let options: Vec<&str> = asks[0].options.iter().map(|o| &*o.option_id.0).collect();
    assert_eq!(options, ["once", "always", "reject"]);
    assert_eq!(log.said(), "All done.");
}

#[tokio::test]
async fn a_cancelled_prompt_stops_the_turn_and_its_pending_ask() {
    let p = project(
        vec![
            Turn::tool_call(
                "call_bash",
                "bash",
                r#"{"command":"echo never","description":"Print"}"#,
            ),
            Turn::text("unused"),
        ],
        asking_bash(),
        &[],
    )
    .await;
    let log = Log::default();
    let (dir, seen) = (p.dir.clone(), log.clone());
    let answer = with_client(&p.core, None, log.clone(), async move |cx| {
        let sid = new_session(&cx, &dir).await;
        let pending = cx
            .send_request(PromptRequest::new(sid.clone(), vec!["run it".into()]))
            .block_task();
        let asked = async {
            poll_with_timeout("the bash ask", TURN, || async {
                (!seen.asks().is_empty()).then_some(())
            })
            .await;
            cx.send_notification(CancelNotification::new(sid.clone()))
                .unwrap();
            seen.cancel_held();
        };
        let (answer, ()) = tokio::join!(pending, asked);
        answer.unwrap()
    })
    .await;
    assert_eq!(answer.stop_reason, StopReason::Cancelled);
    assert_eq!(
        p.model.remaining(),
        1,
        "the turn asked the model nothing more"
    );
    assert!(!log.said().contains("unused"));
    assert!(p.core.busy_sessions().is_empty());
}

#[tokio::test]
async fn loading_a_stored_session_replays_its_history() {
    let p = project(vec![Turn::text("Hello from before.")], json!({}), &[]).await;
    let dir = p.dir.clone();
    let sid = with_client(&p.core, None, Log::default(), async move |cx| {
        let sid = new_session(&cx, &dir).await;
        prompt(&cx, &sid, "Say hello").await;
        sid
    })
    .await;

    // A second editor connection, as after a restart.
    let log = Log::default();
    let dir = p.dir.clone();
    let loaded = with_client(&p.core, None, log.clone(), async move |cx| {
        cx.send_request(LoadSessionRequest::new(sid, dir))
            .block_task()
            .await
            .unwrap()
    })
    .await;
    assert_eq!(&*loaded.modes.unwrap().current_mode_id.0, "build");
    let updates = log.updates();
    assert_eq!(updates[0]["sessionUpdate"], "user_message_chunk");
    assert_eq!(updates[0]["content"]["text"], "Say hello");
    assert_eq!(log.said(), "Hello from before.");
    assert!(!of_kind(&updates, "available_commands_update").is_empty());
}

#[tokio::test]
async fn switching_to_plan_mode_runs_the_next_turn_as_the_plan_agent() {
    let p = project(
        vec![Turn::text("A plan."), Turn::text("Built.")],
        json!({}),
        &[],
    )
    .await;
    let dir = p.dir.clone();
    let refused = with_client(&p.core, None, Log::default(), async move |cx| {
        let sid = new_session(&cx, &dir).await;
        let set = async |mode: &str| {
            cx.send_request(SetSessionModeRequest::new(sid.clone(), mode.to_string()))
                .block_task()
                .await
        };
        set("plan").await.unwrap();
        prompt(&cx, &sid, "Plan it").await;
        let refused = set("no-such-agent").await.unwrap_err();
        set("build").await.unwrap();
        prompt(&cx, &sid, "Build it").await;
        refused
    })
    .await;
    assert!(refused.message.contains("no-such-agent"), "{refused:?}");
    // Only the plan agent may leave plan mode, so only its turn offers `plan_exit`.
    let offers_plan_exit: Vec<bool> = p
        .model
        .requests()
        .iter()
        .map(|r| r["tools"].to_string().contains("\"plan_exit\""))
        .collect();
    assert_eq!(offers_plan_exit, [true, false]);
}

#[tokio::test]
async fn the_mcp_servers_the_editor_passes_are_connected_for_its_session() {
    let web = strata_testkit::mcp_server::serve_http().await;
    let p = project(vec![Turn::text("Connected.")], json!({}), &[]).await;
    let (dir, url) = (p.dir.clone(), web.url("/mcp"));
    with_client(&p.core, None, Log::default(), async move |cx| {
        let server = McpServer::Http(McpServerHttp::new("web", url));
        let created = cx
            .send_request(NewSessionRequest::new(&dir).mcp_servers(vec![server]))
            .block_task()
            .await
            .unwrap();
        prompt(&cx, &created.session_id, "Use the web").await
    })
    .await;
    let tools = p.model.requests()[0]["tools"].to_string();
    assert!(tools.contains("\"web_echo\""), "{tools}");
}

#[tokio::test]
async fn reasoning_streams_as_thoughts_and_the_todo_list_as_a_plan() {
    let todos = json!({"todos": [
        {"content": "Read the code", "status": "completed", "priority": "high"},
        {"content": "Fix the parser", "status": "in_progress", "priority": "medium"},
    ]});
    let p = project(
        vec![
            Turn::reasoning(
                "Two steps.",
                None,
                Turn::tool_call("call_todo", "todowrite", &todos.to_string()),
            ),
            Turn::text("Planned."),
        ],
        json!({}),
        &[],
    )
    .await;
    let log = Log::default();
    let dir = p.dir.clone();
    with_client(&p.core, None, log.clone(), async move |cx| {
        let sid = new_session(&cx, &dir).await;
        prompt(&cx, &sid, "Make a list").await
    })
    .await;
    let updates = log.updates();
    let thought: String = of_kind(&updates, "agent_thought_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(thought, "Two steps.");
    let plans = of_kind(&updates, "plan");
    assert_eq!(plans.len(), 1, "{updates:#?}");
    assert_eq!(
        plans[0]["entries"],
        json!([
            {"content": "Read the code", "priority": "high", "status": "completed"},
            {"content": "Fix the parser", "priority": "medium", "status": "in_progress"},
        ])
    );
    let calls = of_kind(&updates, "tool_call");
    assert_eq!(calls[0]["kind"], "think");
    assert_eq!(log.said(), "Planned.");
}

#[tokio::test]
async fn a_subagents_ask_reaches_the_editor_on_the_parents_session() {
    let task = json!({"description": "Check", "prompt": "CHILD-JOB: run the check",
                      "subagent_type": "general"});
    let p = project(
        vec![
            Turn::tool_call("call_task", "task", &task.to_string()),
            Turn::text("The child is done."),
        ],
        asking_bash(),
        &[],
    )
    .await;
    let bash = json!({"command": "echo from-child", "description": "Check"}).to_string();
    p.model.route(
        "CHILD-JOB",
        vec![
            Turn::tool_call("call_child", "bash", &bash),
            Turn::text("checked"),
        ],
    );
    let log = Log::default();
    let dir = p.dir.clone();
    let (sid, answer) = with_client(&p.core, Some("once"), log.clone(), async move |cx| {
        let sid = new_session(&cx, &dir).await;
        let answer = prompt(&cx, &sid, "Delegate it").await;
        (sid, answer)
    })
    .await;
    assert_eq!(answer.stop_reason, StopReason::EndTurn);
    let asks = log.asks();
    assert_eq!(asks.len(), 1, "{asks:?}");
    assert_eq!(asks[0].session_id, sid);
    assert_eq!(&*asks[0].tool_call.tool_call_id.0, "call_child");
    assert_eq!(log.said(), "The child is done.");
    assert_eq!(p.model.route_remaining("CHILD-JOB"), 0);
}

#[tokio::test]
async fn the_mcp_prompts_are_commands_and_a_slash_prompt_runs_one() {
    strata_testkit::require_external!(
        "mcp-server-everything",
        "npm install -g @modelcontextprotocol/server-everything"
    );
    let config = json!({"mcp": {"everything": {"type": "local",
        "command": ["mcp-server-everything"]}}});
    let p = project(vec![Turn::text("Sunny.")], config, &[]).await;
    let dir = p.dir.clone();
    let log = Log::default();
    let seen = log.clone();
    let (answer, refused) = with_client(&p.core, None, log.clone(), async move |cx| {
        let sid = new_session(&cx, &dir).await;
        poll_with_timeout("the commands", TURN, || async {
            (!of_kind(&seen.updates(), "available_commands_update").is_empty()).then_some(())
        })
        .await;
        let refused = cx
            .send_request(PromptRequest::new(
                sid.clone(),
                vec!["/everything:args-prompt".into()],
            ))
            .block_task()
            .await
            .unwrap_err();
        let answer = prompt(&cx, &sid, "/everything:args-prompt Paris state=TX").await;
        (answer, refused)
    })
    .await;
    let updates = log.updates();
    let commands = &of_kind(&updates, "available_commands_update")[0]["availableCommands"];
    let args = commands
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "everything:args-prompt")
        .unwrap_or_else(|| panic!("no args-prompt in {commands}"));
    assert_eq!(args["input"]["hint"], "city [state]");
    assert!(
        commands
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "everything:simple-prompt" && c.get("input").is_none()),
        "{commands}"
    );
    assert!(
        refused.message.contains("`city`"),
        "the missing argument is named: {refused:?}"
    );
    assert_eq!(answer.stop_reason, StopReason::EndTurn);
    let sent = p.model.requests()[0]["messages"].to_string();
    assert!(sent.contains("What's weather in Paris, TX?"), "{sent}");
    assert_eq!(
        p.model.remaining(),
        0,
        "the refused prompt reached no model"
    );
}

#[tokio::test]
async fn a_project_skill_is_a_command_and_a_slash_names_it_to_the_model() {
    let skill = "---\nname: release\ndescription: Cut a release branch and tag it\n---\n\
                 Run the release checklist.\n";
    let p = project(
        vec![Turn::text("Releasing.")],
        json!({}),
        &[(".strata/skills/release/SKILL.md", skill)],
    )
    .await;
    let dir = p.dir.clone();
    let log = Log::default();
    let seen = log.clone();
    with_client(&p.core, None, log.clone(), async move |cx| {
        let sid = new_session(&cx, &dir).await;
        poll_with_timeout("the commands", TURN, || async {
            (!of_kind(&seen.updates(), "available_commands_update").is_empty()).then_some(())
        })
        .await;
        prompt(&cx, &sid, "/release the 1.2 branch").await;
    })
    .await;
    let updates = log.updates();
    let commands = &of_kind(&updates, "available_commands_update")[0]["availableCommands"];
    assert_eq!(
        commands,
        &json!([{
            "name": "release",
            "description": "Cut a release branch and tag it",
            "input": {"hint": "what to use the skill for"},
        }]),
        "{commands}"
    );
    let sent = p.model.requests()[0]["messages"].to_string();
    assert!(
        sent.contains("Use the skill `release` for this: the 1.2 branch"),
        "{sent}"
    );
}

#[tokio::test]
async fn a_session_longer_than_a_chunk_replays_whole_and_in_order_then_its_plan() {
    let p = project(vec![], json!({}), &[]).await;
    let store = p.core.store();
    let sid = store.create_session(&p.dir, None).unwrap().id;
    // 250 exchanges: 500 messages, read in chunks of 200.
    for i in 0..250 {
        let user = store
            .append_message(&sid, Role::User, json!({"agent": "build"}))
            .unwrap();
        let question = json!({"text": format!("q{i}")});
        store
            .upsert_part(&sid, &user.id, None, "text", question)
            .unwrap();
        let answer = json!({"agent": "build", "providerID": "openai", "modelID": "m"});
        let reply = store.append_message(&sid, Role::Assistant, answer).unwrap();
        let text = json!({"text": format!("a{i}"), "time": {"start": 1, "end": 2}});
        store
            .upsert_part(&sid, &reply.id, None, "text", text)
            .unwrap();
    }
    store
        .replace_todos(&sid, &[Todo::new("ship it", "pending", "high")])
        .unwrap();

    let log = Log::default();
    let dir = p.dir.clone();
    with_client(&p.core, None, log.clone(), async move |cx| {
        cx.send_request(LoadSessionRequest::new(sid, dir))
            .block_task()
            .await
            .unwrap()
    })
    .await;
    let updates = log.updates();
    let replayed: Vec<String> = updates
        .iter()
        .filter_map(|u| match u["sessionUpdate"].as_str()? {
            "user_message_chunk" | "agent_message_chunk" => {
                Some(u["content"]["text"].as_str()?.to_string())
            }
            "plan" => Some(format!("plan: {}", u["entries"][0]["content"].as_str()?)),
            _ => None,
        })
        .collect();
    let mut expected: Vec<String> = (0..250)
        .flat_map(|i| [format!("q{i}"), format!("a{i}")])
        .collect();
    expected.push("plan: ship it".into());
    assert_eq!(replayed, expected);
}
