//! End-to-end tests of `strata serve` on 127.0.0.1 with the scripted model: a tool turn over
//! SSE with a dropped and resumed stream, a permission answered over HTTP, aborting a long
//! bash, a server killed mid-turn and restarted, auth, the public-address rule, the MCP
//! servers' status, and `strata run --attach`.

use std::collections::BTreeSet;

use serde_json::json;
use strata_testkit::model_server::{ModelServer, Turn};
use strata_testkit::poll_with_timeout;

use super::common::{Project, strata_bin};
use super::e2e_run_support::{MODEL, strata};
use super::e2e_serve_support::{LIMIT, idle, is, prompt, serve};

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_turn_streams_over_sse_and_a_dropped_stream_resumes_without_loss() {
    let p = Project::new();
    p.file("a.txt", "hello\n");
    let model = ModelServer::start(vec![
        Turn::tool_call("call_1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::tool_call("call_2", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("Done reading."),
    ]);
    let s = serve(&p, &model, &[]);
    let id = s.session().await;
    let mut events = s.events("/event", None).await;
    assert!(is(&events.next().await.unwrap().1, "server.connected"));
    let (status, _) = s
        .post(&format!("/session/{id}/prompt_async"), prompt("read it"))
        .await;
    assert_eq!(status, 204);
    // Read part of the turn, then drop the stream.
    let mut seen: Vec<(i64, serde_json::Value)> = Vec::new();
    while seen.len() < 6 {
        let (cursor, item) = events.next().await.unwrap();
        if let Some(c) = cursor {
            seen.push((c, item));
        }
    }
    drop(events);
    let mut again = s.events("/event", Some(seen.last().unwrap().0)).await;
    let rest = again.until(idle).await;
    seen.extend(rest.into_iter().filter_map(|(c, i)| c.map(|c| (c, i))));
    // Per-session numbers run without gaps or repeats from the first one seen.
    let seqs: Vec<i64> = seen
        .iter()
        .map(|(_, i)| i["seq"].as_i64().unwrap())
        .collect();
    let expected: Vec<i64> = (seqs[0]..seqs[0] + seqs.len() as i64).collect();
    assert_eq!(seqs, expected);
    let tools: BTreeSet<String> = seen
        .iter()
        .filter(|(_, i)| i["properties"]["part"]["state"]["status"] == "completed")
        .map(|(_, i)| {
            i["properties"]["part"]["callID"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        tools,
        BTreeSet::from(["call_1".to_string(), "call_2".to_string()])
    );
    assert!(
        seen.iter()
            .any(|(_, i)| i["properties"]["part"]["text"] == "Done reading.")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_is_answered_over_http() {
    let p = Project::new();
    p.file(
        "strata.json",
        r#"{"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}}"#,
    );
    let model = ModelServer::start(vec![
        Turn::tool_call(
            "call_1",
            "bash",
            r#"{"command":"echo approved-run","description":"echo"}"#,
        ),
        Turn::text("ok"),
    ]);
    let s = serve(&p, &model, &[]);
    let (_, mut events) = s.prompted("echo").await;
    let asked = events.until(|i| is(i, "permission.asked")).await;
    let request = asked.last().unwrap().1["properties"].clone();
    let (_, pending) = s.get("/permission").await;
    assert_eq!(pending[0]["id"], request["id"]);
    let (status, body) = s
        .post(
            &format!("/permission/{}/reply", request["id"].as_str().unwrap()),
            json!({"reply": "once"}),
        )
        .await;
    assert_eq!((status, body), (200, json!(true)));
    let rest = events.until(idle).await;
    let output = rest
        .iter()
        .find(|(_, i)| i["properties"]["part"]["state"]["status"] == "completed")
        .map(|(_, i)| i["properties"]["part"]["state"]["output"].to_string())
        .expect("the bash call completed");
    assert!(output.contains("approved-run"), "{output}");
}

#[tokio::test(flavor = "multi_thread")]
async fn abort_stops_a_long_bash() {
    let p = Project::new();
    let model = ModelServer::start(vec![
        Turn::tool_call(
            "call_1",
            "bash",
            r#"{"command":"sleep 300","description":"wait"}"#,
        ),
        Turn::text("never"),
    ]);
    let s = serve(&p, &model, &[]);
    let (id, mut events) = s.prompted("wait").await;
    events
        .until(|i| i["properties"]["part"]["state"]["status"] == "running")
        .await;
    let started = std::time::Instant::now();
    let (status, body) = s.post(&format!("/session/{id}/abort"), json!({})).await;
    assert_eq!((status, body), (200, json!(true)));
    let rest = events.until(idle).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(
        rest.iter()
            .any(|(_, i)| i["properties"]["error"]["name"] == "MessageAbortedError"),
        "{rest:#?}"
    );
    assert_eq!(
        model.recorded().len(),
        1,
        "the turn stopped after the abort"
    );
}

/// A script whose first turn is a bash call that writes its process group and sleeps.
fn sleeping_then(after: Vec<Turn>) -> ModelServer {
    let mut turns = vec![Turn::tool_call(
        "call_1",
        "bash",
        r#"{"command":"echo $$ > group.pid; sleep 300","description":"wait"}"#,
    )];
    turns.extend(after);
    ModelServer::start(turns)
}

/// Starts a server, runs a turn whose bash call sleeps, queues `queued` behind it and
/// SIGKILLs the server mid-call; returns the session and the call's process group.
async fn killed_mid_turn(p: &Project, model: &ModelServer, queued: &str) -> (String, i32) {
    let mut s = serve(p, model, &[]);
    let (id, mut events) = s.prompted("wait").await;
    events
        .until(|i| i["properties"]["part"]["state"]["status"] == "running")
        .await;
    let pid_file = p.dir.join("group.pid");
    let pgid: i32 = poll_with_timeout("the bash call to write its group", LIMIT, || async {
        std::fs::read_to_string(&pid_file).ok()?.trim().parse().ok()
    })
    .await;
    // A second prompt waits in the queue behind the running turn.
    s.post(&format!("/session/{id}/prompt_async"), prompt(queued))
        .await;
    // SIGKILL: no chance to clean up.
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    (id, pgid)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_killed_mid_turn_closes_the_turn_on_restart() {
    let p = Project::new();
    let model = sleeping_then(Vec::new());
    let (id, pgid) = killed_mid_turn(&p, &model, "and then check the logs").await;
    let s = serve(&p, &model, &[]);
    let (status, messages) = s.get(&format!("/session/{id}/message")).await;
    assert_eq!(status, 200);
    let tool = messages
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap().clone())
        .find(|p| p["type"] == "tool")
        .unwrap();
    assert_eq!(tool["state"]["status"], "error");
    assert_eq!(tool["state"]["metadata"]["interrupted"], true, "{tool:#}");
    // The dead server's `sleep` was ended by the new one.
    poll_with_timeout("the killed server's tool group to end", LIMIT, || async {
        strata_services::process::live_members(pgid)
            .is_some_and(|m| m.is_empty())
            .then_some(())
    })
    .await;
    let (_, status_map) = s.get("/session/status").await;
    assert_eq!(status_map, json!({}));
    // The stored events end with the error and idle, and nothing before them is lost.
    let mut replay = s.events("/event", Some(0)).await;
    let items = replay.until(|i| is(i, "session.error")).await;
    let error = &items.last().unwrap().1;
    assert_eq!(error["properties"]["error"]["name"], "ServerStoppedError");
    assert!(items.iter().any(|(_, i)| is(i, "session.created")));
    // The queued prompt never ran: it is reported, quoted, so it can be sent again.
    let lost = replay
        .until(|i| is(i, "session.error") && i.to_string().contains("and then check the logs"))
        .await;
    assert!(lost.last().unwrap().1.to_string().contains("not sent"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_queued_prompt_runs_after_a_restart_when_the_config_says_so() {
    let p = Project::new();
    p.file("strata.json", r#"{"server": {"resume_queued": true}}"#);
    let model = sleeping_then(vec![Turn::text("Resumed and answered.")]);
    let (id, _) = killed_mid_turn(&p, &model, "and then check the logs").await;
    let s = serve(&p, &model, &[]);
    let mut replay = s.events("/event", Some(0)).await;
    replay
        .until(|i| i.to_string().contains("Resumed and answered."))
        .await;
    replay.until(idle).await;
    let (_, messages) = s.get(&format!("/session/{id}/message")).await;
    let texts: Vec<String> = messages
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap().clone())
        .filter(|p| p["type"] == "text")
        .map(|p| p["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        texts.iter().any(|t| t == "and then check the logs"),
        "{texts:?}"
    );
    assert_eq!(texts.last().unwrap(), "Resumed and answered.");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_protects_every_route() {
    let p = Project::new();
    let model = ModelServer::start(vec![]);
    let s = serve(&p, &model, &[("STRATA_SERVER_PASSWORD", "pw")]);
    let (status, body) = s.get("/session").await;
    assert_eq!(status, 401);
    assert_eq!(body["name"], "Unauthorized");
    let ok = reqwest::Client::new()
        .get(format!("{}/session", s.url))
        .basic_auth("opencode", Some("pw"))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status().as_u16(), 200);
    assert!(!s.log_text().contains("unsecured"));
}

#[test]
fn a_public_address_without_a_password_is_refused() {
    let p = Project::new();
    let model = ModelServer::start(vec![]);
    let run = strata(
        &p,
        &model,
        &["serve", "--hostname", "0.0.0.0", "--port", "0"],
    );
    run.expect_code(2);
    assert!(run.stderr.contains("--i-know-it-is-public"), "{run:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn run_attach_renders_a_remote_turn_like_a_local_one() {
    let p = Project::new();
    p.file("a.txt", "hello\n");
    let model = ModelServer::start(vec![
        Turn::tool_call("call_1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("Read it."),
    ]);
    let s = serve(&p, &model, &[]);
    let url = s.url.clone();
    let run = tokio::task::spawn_blocking(move || {
        let model2 = ModelServer::start(vec![]);
        strata(
            &p,
            &model2,
            &[
                "run",
                "--attach",
                &url,
                "--model",
                MODEL,
                "--format",
                "json",
                "read a.txt",
            ],
        )
    })
    .await
    .unwrap();
    run.expect_code(0);
    let lines: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "step_start",
            "tool_use",
            "step_finish",
            "step_start",
            "text",
            "step_finish"
        ]
    );
    assert_eq!(lines[1]["part"]["tool"], "read");
    assert_eq!(lines[4]["part"]["text"], "Read it.");
    poll_with_timeout("the server to log nothing unknown", LIMIT, || async {
        (!s.log_text().contains("unknown route")).then_some(())
    })
    .await;
}

/// `GET /mcp` reports the real connections: a stdio MCP server (`strata mcp` on a directory of
/// its own) connected, a missing program failed with the reason, a disabled one disabled.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_status_reports_the_configured_servers() {
    let p = Project::new();
    let other = p.tmp.join("mcp-project");
    std::fs::create_dir_all(&other).unwrap();
    let config = json!({"mcp": {
        "strata": {"type": "local", "command": [strata_bin(), "mcp", "--dir", other]},
        "missing": {"type": "local", "command": ["strata-no-such-mcp-server"]},
        "off": {"type": "local", "command": ["strata-no-such-mcp-server"], "enabled": false},
    }});
    p.file("strata.json", config.to_string());
    let model = ModelServer::start(vec![]);
    let s = serve(&p, &model, &[]);
    let (status, body) = s.get("/mcp").await;
    assert_eq!(status, 200, "{body}\n{}", s.log_text());
    assert_eq!(body["strata"], json!({"status": "connected"}), "{body}");
    assert_eq!(body["off"], json!({"status": "disabled"}));
    assert_eq!(body["missing"]["status"], "failed");
    assert!(
        body["missing"]["error"]
            .as_str()
            .unwrap()
            .contains("strata-no-such-mcp-server"),
        "{body}"
    );
}
