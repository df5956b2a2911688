//! Tests of the scripted model server over real sockets, with a minimal HTTP/1.1 client.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::*;

/// Sends one request with `Connection: close` and returns the raw response text.
fn post(server: &ModelServer, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Api-Key: k-test\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    // A cut stream may end in a reset instead of a clean close; what arrived is what counts.
    let _ = stream.read_to_end(&mut raw);
    String::from_utf8_lossy(&raw).into_owned()
}

fn poll_until(what: &str, limit: Duration, check: impl Fn() -> bool) {
    let held = crate::poll_within_blocking(limit, || check().then_some(()));
    assert!(
        held.is_some(),
        "timed out after {limit:?} waiting for {what}"
    );
}

const OPENAI_BODY: &str =
    r#"{"model":"m-1","stream":true,"stream_options":{"include_usage":true},"messages":[]}"#;

#[test]
fn openai_text_turn_streams_deltas_usage_and_done() {
    let server = ModelServer::start(vec![Turn::text("hello world")]);
    let raw = post(&server, OPENAI_PATH, OPENAI_BODY);
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(
        raw.to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{raw}"
    );
    assert!(
        raw.contains(r#""content":"hell""#) && raw.contains(r#""content":"o wo""#),
        "{raw}"
    );
    assert!(raw.contains(r#""finish_reason":"stop""#), "{raw}");
    assert!(
        raw.contains(&format!(r#""prompt_tokens":{USAGE_INPUT_TOKENS}"#)),
        "{raw}"
    );
    assert!(
        raw.contains("data: [DONE]") && raw.ends_with("0\r\n\r\n"),
        "{raw}"
    );
    assert_eq!(server.remaining(), 0);
    let recorded = server.recorded();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].path, OPENAI_PATH);
    assert_eq!(recorded[0].header("X-API-KEY"), Some("k-test"));
    assert_eq!(server.requests()[0]["model"], "m-1");
}

#[test]
fn anthropic_tool_call_turn_uses_blocks_and_json_deltas() {
    let server = ModelServer::start(vec![Turn::TextAndToolCalls(
        "ok".into(),
        vec![call("toolu_1", "read", r#"{"filePath":"a.txt"}"#)],
    )]);
    let raw = post(&server, ANTHROPIC_PATH, r#"{"model":"c-1","stream":true}"#);
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    for needle in [
        "event: message_start",
        r#""type":"tool_use","id":"toolu_1","name":"read""#,
        r#""partial_json":"{\"fi""#,
        r#""stop_reason":"tool_use""#,
        "event: message_stop",
    ] {
        assert!(raw.contains(needle), "missing {needle} in {raw}");
    }
}

#[test]
fn an_exhausted_script_answers_500_naming_the_request() {
    let server = ModelServer::start(vec![]);
    let raw = post(&server, OPENAI_PATH, OPENAI_BODY);
    assert!(raw.starts_with("HTTP/1.1 500"), "{raw}");
    assert!(
        raw.contains("exhausted") && raw.contains("request #1"),
        "{raw}"
    );
}

#[test]
fn a_route_answers_requests_by_their_first_user_message() {
    let server = ModelServer::start(vec![Turn::text("main one")]);
    server.route("find the config", vec![Turn::text("child one")]);
    let body = |first: &str| {
        json!({"model": "m", "stream": true, "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": first},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "find the config again"},
        ]})
        .to_string()
    };
    let child = post(&server, OPENAI_PATH, &body("please find the config"));
    // Text streams in small pieces: "chil", "d on", "e".
    assert!(child.contains("chil") && !child.contains("mai"), "{child}");
    assert_eq!(server.route_remaining("find the config"), 0);
    // A later message matching the key does not route: only the first user message counts.
    let main = post(&server, OPENAI_PATH, &body("start here"));
    assert!(main.contains("mai") && !main.contains("chil"), "{main}");
    let exhausted = post(&server, OPENAI_PATH, &body("find the config"));
    assert!(
        exhausted.starts_with("HTTP/1.1 500") && exhausted.contains("route"),
        "{exhausted}"
    );
}

#[test]
fn status_turns_unknown_paths_and_pushed_turns() {
    let server = ModelServer::start(vec![Turn::Status(429, r#"{"error":"slow"}"#.into())]);
    let raw = post(&server, "/v2/other", "not json");
    assert!(raw.starts_with("HTTP/1.1 404"), "{raw}");
    assert_eq!(server.remaining(), 1, "an unknown path does not use a turn");
    assert_eq!(server.requests()[0], Value::String("not json".into()));
    let raw = post(&server, OPENAI_PATH, OPENAI_BODY);
    assert!(
        raw.starts_with("HTTP/1.1 429") && raw.contains(r#"{"error":"slow"}"#),
        "{raw}"
    );
    server.push(Turn::text("again"));
    assert_eq!(server.remaining(), 1);
    assert!(post(&server, OPENAI_PATH, OPENAI_BODY).contains("data: [DONE]"));
}

#[test]
fn a_broken_turn_cuts_the_stream_mid_call() {
    let server = ModelServer::start(vec![Turn::broken_call(
        "looking",
        "c1",
        "bash",
        r#"{"command":"ls -la"}"#,
    )]);
    let raw = post(&server, OPENAI_PATH, OPENAI_BODY);
    assert!(
        raw.contains(r#""id":"c1""#),
        "the call start was sent: {raw}"
    );
    assert!(
        !raw.contains("ls -la"),
        "only half of the arguments was sent: {raw}"
    );
    assert!(
        !raw.contains("finish_reason\":\"") && !raw.contains("[DONE]"),
        "{raw}"
    );
    assert!(!raw.ends_with("0\r\n\r\n"), "no terminating chunk: {raw}");
}

#[test]
fn a_hang_sends_headers_and_is_released_when_the_client_leaves() {
    let server = ModelServer::start(vec![Turn::Hang]);
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST {OPENAI_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n\r\n{OPENAI_BODY}",
        OPENAI_BODY.len()
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(
            stream.read(&mut byte).unwrap(),
            1,
            "connection closed early"
        );
        head.push(byte[0]);
    }
    assert!(String::from_utf8_lossy(&head).starts_with("HTTP/1.1 200"));
    assert_eq!(server.hangs_released(), 0);
    drop(stream);
    poll_until(
        "the hanging response to be dropped",
        Duration::from_secs(10),
        || server.hangs_released() == 1,
    );
}

#[test]
fn a_responder_answers_first_and_each_streamed_body_records_its_end() {
    let server = ModelServer::start(vec![Turn::text("from the script")]);
    server.route("routed", vec![Turn::text("from the route")]);
    server.respond_with(|n, body| {
        (body["model"] == "m-1").then(|| Turn::text(format!("answer {n}")))
    });
    let raw = post(&server, OPENAI_PATH, OPENAI_BODY);
    assert!(raw.contains(r#""content":"answ""#), "{raw}");
    // The responder declines: the script answers, and nothing was taken from the route.
    let other = OPENAI_BODY.replace("m-1", "m-2");
    let raw = post(&server, OPENAI_PATH, &other);
    assert!(raw.contains(r#""content":"from""#), "{raw}");
    assert_eq!(
        (server.remaining(), server.route_remaining("routed")),
        (0, 1)
    );
    poll_until("both ends", Duration::from_secs(5), || {
        server.ends().len() == 2
    });
    let ends = server.ends();
    assert_eq!(ends.iter().map(|(n, _)| *n).collect::<Vec<_>>(), vec![1, 2]);
    assert!(ends[0].1 <= ends[1].1);
}

#[test]
fn responses_turns_stream_items_and_count_the_input_list() {
    let server = ModelServer::start(vec![Turn::TextAndToolCalls(
        "ok".into(),
        vec![call("call_1", "read", r#"{"filePath":"a.txt"}"#)],
    )]);
    server.count_input_tokens(1);
    let body = r#"{"model":"r-1","stream":true,"input":[{"role":"user","content":[{"type":"input_text","text":"route me"}]}]}"#;
    let raw = post(&server, RESPONSES_PATH, body);
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    for needle in [
        "event: response.created",
        r#""type":"response.output_text.delta""#,
        r#""call_id":"call_1""#,
        r#""delta":"{\"fi""#,
        "event: response.completed",
    ] {
        assert!(raw.contains(needle), "{needle} missing from {raw}");
    }
    let input = serde_json::from_str::<Value>(body).unwrap()["input"].to_string();
    let tokens = input.len() as u64 + RESPONSES_CACHED_TOKENS;
    assert!(
        raw.contains(&format!(r#""input_tokens":{tokens}"#)),
        "{raw}"
    );
    assert_eq!(server.sent()[0].roles(), ["user"]);
    assert_eq!(first_user_text(&server.requests()[0]), "route me");
}
