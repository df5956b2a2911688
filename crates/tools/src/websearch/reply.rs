//! Reading the endpoint's answer (spec §9 step 3): a plain JSON-RPC body, or server-sent
//! events (the house's decoder) whose data carry JSON-RPC messages (data that are not JSON
//! objects are skipped).

use serde_json::Value;
use strata_protocol::sse::SseParser;

/// What a search answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The result text for the model.
    Text(String),
    /// An answer with no text in it.
    Empty,
    /// A JSON-RPC error (or a tool error) with its message.
    Error(String),
}

/// Reads `body` as one JSON-RPC message, or else as an event stream.
pub fn parse_reply(body: &str) -> Reply {
    if let Ok(message @ Value::Object(_)) = serde_json::from_str::<Value>(body) {
        return from_message(&message);
    }
    let mut events = SseParser::new();
    let mut all = events.push(body.as_bytes());
    all.extend(events.finish());
    all.iter()
        .flat_map(|ev| messages(&ev.data))
        .find(Value::is_object)
        .map_or(Reply::Empty, |message| from_message(&message))
}

/// The JSON in one event's data: the whole of it, or else each of its lines (a server that
/// puts several messages in one event, one per `data:` line).
fn messages(data: &str) -> Vec<Value> {
    match serde_json::from_str::<Value>(data.trim()) {
        Ok(whole) => vec![whole],
        Err(_) => data
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok())
            .collect(),
    }
}

fn from_message(message: &Value) -> Reply {
    if let Some(error) = message.get("error").filter(|e| !e.is_null()) {
        let text = match error.get("message").and_then(Value::as_str) {
            Some(m) => match error.get("code") {
                Some(code) => format!("{m} (code {code})"),
                None => m.to_string(),
            },
            None => error.to_string(),
        };
        return Reply::Error(text);
    }
    let result = &message["result"];
    let text = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["text"].as_str())
        .find(|t| !t.trim().is_empty());
    match text {
        // MCP reports a failed tool call as a result flagged `isError`.
        Some(t) if result["isError"] == Value::Bool(true) => Reply::Error(t.to_string()),
        Some(t) => Reply::Text(t.to_string()),
        None => Reply::Empty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_json_body_gives_its_first_non_empty_text() {
        let body = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[
            {"type":"text","text":"  "},{"type":"text","text":"Title: Rust\nURL: https://r"}]}}"#;
        assert_eq!(
            parse_reply(body),
            Reply::Text("Title: Rust\nURL: https://r".into())
        );
    }

    #[test]
    fn event_stream_data_lines_are_read_and_non_json_frames_skipped() {
        let body = "event: message\ndata: not json\ndata: [1,2]\n\
            data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"found\"}]}}\n\n";
        assert_eq!(parse_reply(body), Reply::Text("found".into()));
    }

    #[test]
    fn errors_carry_their_message() {
        let body = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad query"}}"#;
        assert_eq!(
            parse_reply(body),
            Reply::Error("bad query (code -32602)".into())
        );
        let body = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"quota\"}}\n";
        assert_eq!(parse_reply(body), Reply::Error("quota".into()));
        let body = r#"{"result":{"isError":true,"content":[{"type":"text","text":"no key"}]}}"#;
        assert_eq!(parse_reply(body), Reply::Error("no key".into()));
    }

    #[test]
    fn nothing_usable_is_empty() {
        for body in [
            "",
            "garbage",
            r#"{"result":{"content":[]}}"#,
            r#"{"result":{}}"#,
            "data: {\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\"}]}}",
        ] {
            assert_eq!(parse_reply(body), Reply::Empty, "{body:?}");
        }
    }
}
