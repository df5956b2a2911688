//! What an editor offers beyond the basic flows: its buffers as the file system of `read`,
//! `write` and `edit` (and a client that offers none keeps the disk), and the model chooser.

use agent_client_protocol::Agent;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, ImageContent, NewSessionRequest, PromptRequest, SessionConfigKind,
    SessionConfigOption, SessionConfigSelectOptions, SetSessionConfigOptionRequest, StopReason,
};
use serde_json::{Value, json};
use strata_testkit::model_server::Turn;

use super::fixture::{Buffers, Log, project, with_client, with_editor};

/// A read of `a.txt`, an edit of it, then a closing text.
fn read_then_edit() -> Vec<Turn> {
    vec![
        Turn::tool_call("call_read", "read", r#"{"filePath":"a.txt"}"#),
        Turn::tool_call(
            "call_edit",
            "edit",
            r#"{"filePath":"a.txt","oldString":"unsaved","newString":"edited"}"#,
        ),
        Turn::text("Done."),
    ]
}

/// Every request the model got, as one text (tool results included).
fn sent(requests: Vec<Value>) -> String {
    Value::Array(requests).to_string()
}

async fn turn(cx: &ConnectionTo<Agent>, dir: &std::path::Path, text: &str) -> StopReason {
    let created = cx
        .send_request(NewSessionRequest::new(dir))
        .block_task()
        .await
        .unwrap();
    let prompt = PromptRequest::new(created.session_id, vec![text.into()]);
    cx.send_request(prompt)
        .block_task()
        .await
        .unwrap()
        .stop_reason
}

#[tokio::test]
async fn with_the_editors_file_system_reads_see_unsaved_buffers_and_edits_land_in_them() {
    let p = project(read_then_edit(), json!({}), &[("a.txt", "saved on disk\n")]).await;
    let file = p.dir.join("a.txt");
    let buffers = Buffers::with(&[(file.clone(), "unsaved in the editor\n")]);
    let dir = p.dir.clone();
    let stop = with_editor(
        &p.core,
        None,
        Log::default(),
        Some(buffers.clone()),
        async move |cx| turn(&cx, &dir, "Change it").await,
    )
    .await;
    assert_eq!(stop, StopReason::EndTurn);
    let sent = sent(p.model.requests());
    assert!(sent.contains("unsaved in the editor"), "{sent}");
    assert!(!sent.contains("saved on disk"), "{sent}");
    assert_eq!(buffers.get(&file).unwrap(), "edited in the editor\n");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "saved on disk\n");
    assert!(buffers.writes.lock().unwrap().contains(&file));
}

#[tokio::test]
async fn binary_files_and_bash_stay_on_disk_with_the_editors_file_system() {
    let p = project(
        vec![
            Turn::tool_call("call_bin", "read", r#"{"filePath":"blob.bin"}"#),
            Turn::tool_call(
                "call_bash",
                "bash",
                r#"{"command":"cat a.txt","description":"Show the file"}"#,
            ),
            Turn::text("Done."),
        ],
        json!({"permission": {"bash": "allow"}}),
        &[("a.txt", "on disk\n"), ("blob.bin", "\0\0binary\0")],
    )
    .await;
    let file = p.dir.join("a.txt");
    let buffers = Buffers::with(&[(file, "in the buffer\n")]);
    let dir = p.dir.clone();
    with_editor(
        &p.core,
        None,
        Log::default(),
        Some(buffers.clone()),
        async move |cx| turn(&cx, &dir, "Look").await,
    )
    .await;
    let sent = sent(p.model.requests());
    assert!(sent.contains("on disk"), "{sent}");
    assert!(!sent.contains("in the buffer"), "{sent}");
    assert!(buffers.reads.lock().unwrap().is_empty(), "{buffers:?}");
}

#[tokio::test]
async fn a_client_without_the_capability_reads_and_edits_the_disk() {
    let p = project(
        read_then_edit(),
        json!({}),
        &[("a.txt", "unsaved on disk\n")],
    )
    .await;
    let dir = p.dir.clone();
    let stop = with_client(&p.core, None, Log::default(), async move |cx| {
        turn(&cx, &dir, "Change it").await
    })
    .await;
    assert_eq!(stop, StopReason::EndTurn);
    let sent = sent(p.model.requests());
    assert!(sent.contains("unsaved on disk"), "{sent}");
    assert_eq!(
        std::fs::read_to_string(p.dir.join("a.txt")).unwrap(),
        "edited on disk\n"
    );
}

/// The model ids the chooser offers, and the current one.
fn chooser(options: &[SessionConfigOption]) -> (String, Vec<String>) {
    let model = options
        .iter()
        .find(|o| &*o.id.0 == "model")
        .expect("a model option");
    let SessionConfigKind::Select(select) = &model.kind else {
        panic!("the model option is a select: {model:?}");
    };
    let ids = match &select.options {
        SessionConfigSelectOptions::Grouped(groups) => groups
            .iter()
            .flat_map(|g| g.options.iter().map(|o| o.value.0.to_string()))
            .collect(),
        SessionConfigSelectOptions::Ungrouped(options) => {
            options.iter().map(|o| o.value.0.to_string()).collect()
        }
        other => panic!("unexpected options {other:?}"),
    };
    (select.current_value.0.to_string(), ids)
}

#[tokio::test]
async fn the_model_chosen_in_the_editor_runs_the_next_turn() {
    let p = project(
        vec![Turn::text("First."), Turn::text("Second.")],
        json!({"provider": {"openai": {"models": {"other-model": {"name": "Other"}}}}}),
        &[],
    )
    .await;
    let dir = p.dir.clone();
    let (offered, refused) = with_client(&p.core, None, Log::default(), async move |cx| {
        let created = cx
            .send_request(NewSessionRequest::new(&dir))
            .block_task()
            .await
            .unwrap();
        let sid = created.session_id;
        let offered = chooser(&created.config_options.expect("config options"));
        let say = async |text: &str| {
            let prompt = PromptRequest::new(sid.clone(), vec![text.into()]);
            cx.send_request(prompt).block_task().await.unwrap();
        };
        say("one").await;
        let set = |model: &str| {
            cx.send_request(SetSessionConfigOptionRequest::new(
                sid.clone(),
                "model",
                model,
            ))
            .block_task()
        };
        let refused = set("openai/no-such-model").await.unwrap_err();
        let answer = set("openai/other-model").await.unwrap();
        assert_eq!(chooser(&answer.config_options).0, "openai/other-model");
        say("two").await;
        (offered, refused)
    })
    .await;
    assert_eq!(offered.0, "openai/scripted-model");
    assert!(
        offered.1.contains(&"openai/other-model".to_string()),
        "{offered:?}"
    );
    assert!(refused.message.contains("no-such-model"), "{refused:?}");
    let models: Vec<Value> = p
        .model
        .requests()
        .iter()
        .map(|r| r["model"].clone())
        .collect();
    assert_eq!(models, [json!("scripted-model"), json!("other-model")]);
}

#[tokio::test]
async fn an_image_in_the_prompt_reaches_the_model_as_an_attachment() {
    let p = project(vec![Turn::text("A red dot.")], json!({}), &[]).await;
    let dir = p.dir.clone();
    let stop = with_client(&p.core, None, Log::default(), async move |cx| {
        let created = cx
            .send_request(NewSessionRequest::new(&dir))
            .block_task()
            .await
            .unwrap();
        let image = ImageContent::new("iVBORw0KGgo=", "image/png").uri("file:///tmp/dot.png");
        let blocks = vec!["What is this?".into(), ContentBlock::Image(image)];
        let prompt = PromptRequest::new(created.session_id, blocks);
        let stop = cx.send_request(prompt).block_task().await.unwrap();
        stop.stop_reason
    })
    .await;
    assert_eq!(stop, StopReason::EndTurn);
    let request = &p.model.requests()[0];
    let user = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .cloned()
        .unwrap();
    assert_eq!(
        user["content"],
        json!([
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        ]),
        "{request}"
    );
}
