//! The simulated cache's rules, one test each, through the server's hook ([`account`]), and
//! once over a real socket to see the usage reported in both Messages events.

use std::io::{Read, Write};
use std::net::TcpStream;

use super::*;
use crate::model_server::{ANTHROPIC_PATH, OPENAI_PATH, Turn};

fn on(rules: CacheRules) -> Mutex<Option<PromptCache>> {
    Mutex::new(Some(PromptCache {
        rules,
        now: Duration::ZERO,
        entries: HashMap::new(),
        keyed: HashMap::new(),
        log: Vec::new(),
    }))
}

fn anthropic(cache: &Mutex<Option<PromptCache>>, body: &Value) -> CacheUsage {
    match account(cache, true, body) {
        Ok(Some(a)) => a.usage,
        other => panic!("a Messages request is accounted: {other:?}"),
    }
}

fn text(t: &str, marked: bool) -> Value {
    let mut b = json!({"type": "text", "text": t});
    if marked {
        b["cache_control"] = json!({"type": "ephemeral"});
    }
    b
}

/// A Messages body: a system prompt (marked) and one user message of `blocks`.
fn body(system: &str, blocks: Vec<Value>) -> Value {
    json!({
        "system": [text(system, true)],
        "messages": [{"role": "user", "content": blocks}],
    })
}

/// Tokens of blocks by the documented rule: canonical bytes / 4, tagged by where they sit.
fn tokens(tagged: &[(&str, Value)]) -> u64 {
    let bytes: usize = tagged
        .iter()
        .map(|(tag, v)| canonical(&json!({ *tag: v })).len())
        .sum();
    (bytes / 4) as u64
}

fn long(c: char) -> String {
    std::iter::repeat_n(c, 6000).collect()
}

#[test]
fn canonical_text_sorts_keys_and_ignores_marks() {
    let a = json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": 0}, "cache_control": {"type": "ephemeral"}});
    assert_eq!(
        canonical(&a),
        r#"{"a":{"x":0,"y":[1,{"c":3,"d":2}]},"b":1}"#
    );
}

#[test]
fn a_marked_prefix_is_written_then_read_and_the_rest_is_plain_input() {
    let cache = on(CacheRules::default());
    let sys = long('s');
    let first = anthropic(&cache, &body(&sys, vec![text("go", false)]));
    let system_tokens = tokens(&[("system", text(&sys, false))]);
    assert_eq!(first.read, 0);
    assert_eq!(first.write, system_tokens, "{first:?}");
    assert!(first.input > 0, "the unmarked question is plain input");
    let again = anthropic(&cache, &body(&sys, vec![text("go", false)]));
    assert_eq!(
        again,
        CacheUsage {
            input: first.input,
            read: system_tokens,
            write: 0
        }
    );
}

#[test]
fn a_prefix_under_the_minimum_is_not_cached() {
    let cache = on(CacheRules::default());
    let short = body("be brief", vec![text("go", true)]);
    let first = anthropic(&cache, &short);
    assert_eq!((first.read, first.write), (0, 0));
    assert_eq!(anthropic(&cache, &short), first, "nothing was stored");
}

#[test]
fn a_growing_conversation_reads_the_last_prefix_and_writes_only_what_it_added() {
    let cache = on(CacheRules::default());
    let sys = long('s');
    let step1 = vec![text("question", true)];
    let one = anthropic(&cache, &body(&sys, step1));
    let step2 = vec![text("question", false), text(&long('a'), true)];
    let two = anthropic(&cache, &body(&sys, step2));
    assert_eq!((one.read, two.read), (0, one.write));
    let all = tokens(&[
        ("system", text(&sys, false)),
        ("user", text("question", false)),
        ("user", text(&long('a'), false)),
    ]);
    assert_eq!(two.write, all - two.read);
    assert_eq!(two.input, 0, "everything up to the last mark is cached");
}

#[test]
fn the_look_back_covers_twenty_block_boundaries_before_a_breakpoint() {
    // Request 1 writes the prefix ending at block 1; request 2 adds n blocks and marks only
    // the last: found when n is at most 20.
    for (n, found) in [(20, true), (21, false)] {
        let cache = on(CacheRules::default());
        let sys = long('s');
        anthropic(&cache, &body(&sys, vec![text("q", true)]));
        let mut blocks = vec![text("q", false)];
        blocks.extend((0..n).map(|i| text(&format!("b{i}"), i == n - 1)));
        let usage = anthropic(&cache, &body(&sys, blocks));
        let system_tokens = tokens(&[("system", text(&sys, false))]);
        // The system breakpoint always finds itself; the question's prefix only within reach.
        assert_eq!(usage.read > system_tokens, found, "n = {n}: {usage:?}");
    }
}

#[test]
fn entries_live_five_minutes_from_their_last_use() {
    let cache = on(CacheRules::default());
    let req = body(&long('s'), vec![text("go", false)]);
    let elapse = |by: u64| {
        if let Some(c) = lock(&cache).as_mut() {
            c.now += Duration::from_secs(by);
        }
    };
    let first = anthropic(&cache, &req);
    elapse(240);
    assert_eq!(
        anthropic(&cache, &req).read,
        first.write,
        "alive at 4 minutes"
    );
    elapse(240);
    assert_eq!(
        anthropic(&cache, &req).read,
        first.write,
        "the read at 4 minutes renewed it"
    );
    elapse(301);
    let late = anthropic(&cache, &req);
    assert_eq!(
        (late.read, late.write),
        (0, first.write),
        "expired, written again"
    );
}

#[test]
fn the_clock_can_move_on_each_request() {
    let cache = on(CacheRules {
        per_request: Duration::from_secs(301),
        ..CacheRules::default()
    });
    let req = body(&long('s'), vec![text("go", false)]);
    let first = anthropic(&cache, &req);
    assert_eq!(
        anthropic(&cache, &req),
        first,
        "each request finds the last expired"
    );
}

#[test]
fn more_than_four_breakpoints_are_refused() {
    let cache = on(CacheRules::default());
    let marks = (0..4).map(|i| text(&format!("b{i}"), true)).collect();
    let err = account(&cache, true, &body("sys", marks)).unwrap_err();
    assert!(
        err.contains("maximum of 4") && err.contains("Found 5"),
        "{err}"
    );
}

#[test]
fn tools_come_first_and_a_changed_tool_misses_the_cache() {
    let cache = on(CacheRules::default());
    let with_tool = |description: &str| {
        let mut b = body(&long('s'), vec![text("go", false)]);
        b["tools"] = json!([{"name": "read", "description": description}]);
        b
    };
    let first = anthropic(&cache, &with_tool("reads"));
    assert_eq!(anthropic(&cache, &with_tool("reads")).read, first.write);
    assert_eq!(anthropic(&cache, &with_tool("reads files")).read, 0);
}

#[test]
fn keyed_chat_requests_get_automatic_prefix_caching_in_steps_of_128() {
    let cache = on(CacheRules::default());
    let chat = |messages: Vec<Value>| json!({"prompt_cache_key": "ses_1", "messages": messages});
    let sys = json!({"role": "system", "content": long('s')});
    let usage = |b: &Value| match account(&cache, false, b) {
        Ok(Some(a)) => a.usage,
        other => panic!("{other:?}"),
    };
    let first = usage(&chat(vec![sys.clone()]));
    assert_eq!(first.read, 0);
    let second = usage(&chat(vec![
        sys.clone(),
        json!({"role": "user", "content": "go"}),
    ]));
    let seen = tokens(&[("message", sys.clone())]);
    assert_eq!(second.read, 1024 + (seen - 1024) / 128 * 128);
    assert_eq!(second.total(), second.input + second.read);
    let unkeyed = json!({"messages": [sys]});
    assert!(matches!(account(&cache, false, &unkeyed), Ok(None)));
}

#[test]
fn the_server_reports_cache_usage_in_message_start_and_message_delta() {
    let server = ModelServer::start(vec![
        Turn::text("one"),
        Turn::text("two"),
        Turn::text("three"),
    ]);
    server.simulate_cache(CacheRules::default());
    let mut req = body(&long('s'), vec![text("go", false)]);
    req["model"] = json!("claude-test");
    req["stream"] = json!(true);
    let first = post(&server, ANTHROPIC_PATH, &req.to_string());
    let second = post(&server, ANTHROPIC_PATH, &req.to_string());
    let usage = server.cache_usage();
    assert_eq!(usage.len(), 2);
    let write = format!(r#""cache_creation_input_tokens":{}"#, usage[0].write);
    let read = format!(r#""cache_read_input_tokens":{}"#, usage[1].read);
    for (raw, field) in [(&first, &write), (&second, &read)] {
        assert_eq!(raw.matches(field.as_str()).count(), 2, "{field} in {raw}");
    }
    // Off for chat completions without a key: the usage stays the server's fixed one.
    let chat =
        r#"{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}"#;
    let chat = post(&server, OPENAI_PATH, chat);
    assert!(chat.contains(r#""prompt_tokens":21"#), "{chat}");
    assert!(!chat.contains("cached_tokens"), "{chat}");
    assert_eq!(server.cache_usage().len(), 2);
}

/// One HTTP request with `Connection: close`; the raw response text.
fn post(server: &ModelServer, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    String::from_utf8_lossy(&raw).into_owned()
}
