//! Background shells in the agent loop with the scripted model: a loopback HTTP server started
//! by one `bash` call, reached by `curl` in a second, read with a filter and killed by
//! `bash_kill`; and the notice a finished shell adds to the next request.

use serde_json::json;
use strata_agent::session::{RunOutcome, SessionTarget};
use strata_services::background::BackgroundShells;
use strata_testkit::model_server::{ModelServer, SentRequest, Turn, render_requests};
use strata_testkit::{TestInstance, process_ended};
use tokio_util::sync::CancellationToken;

use crate::loop_support::*;

/// A port nothing listens on right now (the kernel's pick, released at once).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn outputs(t: &TestInstance, session: &str) -> Vec<String> {
    tool_parts(&store(t), session)
        .iter()
        .map(|p| {
            p["state"]["output"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[tokio::test]
async fn a_background_server_is_reached_by_curl_and_ended_by_bash_kill() {
    strata_testkit::require_external!("python3", "apt-get install python3");
    strata_testkit::require_external!("curl", "apt-get install curl");
    let port = free_port();
    TestInstance::builder()
        .graph(strata_agent::production())
        .file("hello.txt", "hello from the background\n")
        .run(|t| async move {
            let serve = format!(
                "echo $$ > server.pid; exec python3 -u -m http.server {port} --bind 127.0.0.1"
            );
            let fetch = format!(
                "for i in $(seq 1 200); do curl -sf http://127.0.0.1:{port}/hello.txt && exit 0; \
                 sleep 0.05; done; exit 1"
            );
            let server = ModelServer::start(vec![
                Turn::tool_call(
                    "c1",
                    "bash",
                    &json!({"command": serve, "run_in_background": true}).to_string(),
                ),
                Turn::tool_call("c2", "bash", &json!({ "command": fetch }).to_string()),
                Turn::tool_call(
                    "c3",
                    "bash_output",
                    r#"{"shell_id":"bg_1","filter":"GET /hello"}"#,
                ),
                Turn::tool_call("c4", "bash_kill", r#"{"shell_id":"bg_1"}"#),
                Turn::text("Served, fetched and stopped."),
            ]);
            let runner = graph_runner(&t, &server, options());
            let ran = run(&t, &runner, "serve the folder and fetch hello.txt").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let out = outputs(&t, &ran.session_id);
            assert!(
                out[0].starts_with("Background shell bg_1: running."),
                "{}",
                out[0]
            );
            assert_eq!(out[1], "hello from the background\n");
            assert!(
                out[2].contains("\"GET /hello.txt HTTP/1.1\" 200"),
                "{}",
                out[2]
            );
            assert!(!out[2].contains("Serving HTTP"), "{}", out[2]);
            assert_eq!(
                out[3],
                "Background shell bg_1 was ended, with every process it started."
            );
            let pid: u32 = std::fs::read_to_string(t.dir().join("server.pid"))
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            assert!(process_ended(pid), "the server still runs");
            assert!(
                std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
                "the port still answers"
            );
        })
        .await;
}

#[tokio::test]
async fn a_finished_shell_is_noticed_once_in_the_next_request() {
    TestInstance::builder()
        .graph(strata_agent::production())
        .run(|t| async move {
            let script = "echo building; while [ ! -e go ]; do sleep 0.02; done; \
                          echo 'error: one test failed'; exit 2";
            let server = ModelServer::start(vec![
                Turn::tool_call(
                    "c1",
                    "bash",
                    &json!({"command": script, "run_in_background": true}).to_string(),
                ),
                Turn::text("It runs in the background."),
                Turn::text("The build failed."),
                Turn::text("Nothing new."),
            ]);
            let runner = graph_runner(&t, &server, options());
            let first = run(&t, &runner, "build in the background").await;
            let session = first.session_id.clone();
            std::fs::write(t.dir().join("go"), "").unwrap();
            let shells = t.get::<BackgroundShells>();
            strata_testkit::poll_with_timeout("the build to end", LIMIT, || async {
                shells.list(&session)[0].status.ended().then_some(())
            })
            .await;
            let target = SessionTarget::Id(session.clone());
            run_in(
                &t,
                &runner,
                target.clone(),
                "how did it go?",
                CancellationToken::new(),
            )
            .await;
            run_in(
                &t,
                &runner,
                target,
                "anything else?",
                CancellationToken::new(),
            )
            .await;

            let requests = server.requests();
            assert_eq!(requests.len(), 4);
            insta::assert_snapshot!(render_requests(&requests[2..3]));
            let last = SentRequest::from_body(&requests[3]).to_string();
            assert_eq!(
                last.matches("<background-shells>").count(),
                1,
                "the notice is not repeated: {last}"
            );
        })
        .await;
}
