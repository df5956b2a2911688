//! The agent's line transport (`strata_acp::serve`) with raw bytes from an editor: a malformed
//! line, even one that is not UTF-8, is answered with an error and reading goes on.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::fixture::{TURN, project};

#[tokio::test]
async fn bytes_that_are_not_utf8_get_an_error_and_the_next_request_its_answer() {
    let p = project(vec![], json!({}), &[]).await;
    let (editor, agent_side) = tokio::io::duplex(1 << 16);
    let (agent_in, agent_out) = tokio::io::split(agent_side);
    let agent = tokio::spawn(strata_acp::serve(p.core.clone(), agent_in, agent_out));
    let (read, mut write) = tokio::io::split(editor);
    let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
                      "params": {"protocolVersion": 1, "clientCapabilities": {}}});
    let mut bytes = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initi\xffalize\"}\r\n".to_vec();
    bytes.extend_from_slice(format!("{init}\n").as_bytes());
    write.write_all(&bytes).await.unwrap();
    let mut lines = BufReader::new(read).lines();
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let line = tokio::time::timeout(TURN, lines.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("the agent keeps its side open");
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    assert_eq!(answers[0]["id"], 1, "{answers:?}");
    assert!(answers[0]["error"]["code"].is_i64(), "{answers:?}");
    assert_eq!(answers[1]["id"], 2, "{answers:?}");
    assert!(
        answers[1]["result"]["agentCapabilities"].is_object(),
        "{answers:?}"
    );
    drop(write);
    drop(lines);
    tokio::time::timeout(TURN, agent)
        .await
        .expect("the agent ends with its input")
        .unwrap()
        .unwrap();
}
