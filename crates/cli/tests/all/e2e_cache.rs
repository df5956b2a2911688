//! Prompt caching end to end: `strata run` with a Claude model against the scripted server's
//! simulated cache stores each step's cache reads and writes, prices them, and `strata
//! session show` prints them; `options.cache: false` sends no breakpoints. The show output is
//! pinned with a snapshot of a session written straight into the store, whose numbers do not
//! depend on the machine (a real run's prompt holds the temporary directory's path).

use serde_json::{Value, json};
use strata_agent::store::{Role, Store};
use strata_protocol::message::{AssistantMessage, Tokens, UserMessage};
use strata_protocol::part::{PartData, TextPart};
use strata_testkit::model_server::{CacheRules, ModelServer, Turn};

use crate::common::Project;
use crate::e2e_run_support::*;

const CLAUDE: &str = "anthropic/claude-sonnet-4";

/// `strata run --format json --model CLAUDE PROMPT` with the Anthropic wire on `server`.
fn run_claude(p: &Project, server: &ModelServer, prompt: &str) -> Vec<Value> {
    let args = ["run", "--format", "json", "--model", CLAUDE, prompt];
    let mut cmd = command(p, server, &args);
    cmd.env("ANTHROPIC_BASE_URL", server.anthropic_url())
        .env("ANTHROPIC_API_KEY", "k-test");
    let out = finish(cmd.spawn().expect("start strata"));
    out.expect_code(0);
    json_lines(&out)
}

fn step_finishes(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["type"] == "step_finish")
        .map(|e| &e["part"])
        .collect()
}

#[test]
fn cache_reads_and_writes_are_stored_priced_and_shown() {
    let p = Project::new();
    p.file("a.txt", "alpha\n");
    let server = ModelServer::start(vec![
        Turn::tool_call("toolu_1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("It says alpha."),
    ]);
    server.simulate_cache(CacheRules::default());
    let events = run_claude(&p, &server, "what is in a.txt?");
    let usage = server.cache_usage();
    assert_eq!(usage.len(), 2);
    assert!(usage[0].write > 0 && usage[1].read > 0, "{usage:?}");
    assert_eq!(
        usage[1].read, usage[0].write,
        "step 2 reads what step 1 wrote"
    );
    let finishes = step_finishes(&events);
    assert_eq!(finishes.len(), 2, "{events:#?}");
    for (part, u) in finishes.iter().zip(&usage) {
        let t = &part["tokens"];
        assert_eq!(t["input"], u.input, "{part}");
        assert_eq!(t["cache"]["read"], u.read, "{part}");
        assert_eq!(t["cache"]["write"], u.write, "{part}");
        // claude-sonnet-4: $3 input, $15 output, $0.30 cache read, $3.75 cache write.
        let out = t["output"].as_u64().unwrap() as f64;
        let priced =
            (u.input as f64 * 3.0 + out * 15.0 + u.read as f64 * 0.3 + u.write as f64 * 3.75) / 1e6;
        let cost = part["cost"].as_f64().unwrap();
        assert!((cost - priced).abs() < 1e-12, "{cost} vs {priced}");
    }
    let marks = server.requests()[1]
        .to_string()
        .matches("cache_control")
        .count();
    assert_eq!(marks, 3, "system and the last two messages");

    let session = events[0]["sessionID"].as_str().unwrap();
    let show = strata(&p, &server, &["session", "show", session]);
    show.expect_code(0);
    // The totals line sums the steps.
    let read: u64 = usage.iter().map(|u| u.read).sum();
    let write: u64 = usage.iter().map(|u| u.write).sum();
    assert!(
        show.stdout.contains(&format!(
            "{} cache read, {} cache write",
            grouped(read),
            grouped(write)
        )),
        "{show:#?}"
    );
}

#[test]
fn cache_false_in_the_config_sends_no_breakpoints() {
    let p = Project::new();
    p.file(
        "strata.json",
        r#"{"provider": {"anthropic": {"options": {"cache": false}}}}"#,
    );
    let server = ModelServer::start(vec![Turn::text("Hello.")]);
    server.simulate_cache(CacheRules::default());
    let events = run_claude(&p, &server, "hi");
    let body = server.requests()[0].to_string();
    assert!(!body.contains("cache_control"), "{body}");
    assert!(server.requests()[0]["system"].is_string());
    let usage = server.cache_usage();
    assert_eq!((usage[0].read, usage[0].write), (0, 0));
    let finishes = step_finishes(&events);
    assert_eq!(
        finishes[0]["tokens"]["cache"],
        json!({"read": 0, "write": 0})
    );
}

#[test]
fn session_show_prints_the_cache_tokens_line() {
    let p = Project::new();
    let store = Store::open_in(&p.data).unwrap();
    let session = store.create_session(&p.dir, None).unwrap();
    store
        .update_session_title(&session.id, "Read the notes")
        .unwrap();
    let user = store
        .append_message(
            &session.id,
            Role::User,
            serde_json::to_value(UserMessage::new(0, "build")).unwrap(),
        )
        .unwrap();
    let text = PartData::from(TextPart::user("read notes.txt"));
    store
        .upsert_part(&session.id, &user.id, None, text.kind(), text.to_value())
        .unwrap();
    let steps = [(1200, 40, 0, 5210, 0.0214), (310, 25, 5210, 480, 0.00526)];
    for (input, output, read, write, cost) in steps {
        let mut step = AssistantMessage::new(0, "build", "anthropic", "claude-sonnet-4");
        step.tokens = Tokens::new(input, output);
        step.tokens.cache.read = read;
        step.tokens.cache.write = write;
        step.cost = cost;
        step.finish = Some("stop".into());
        let m = store
            .append_message(
                &session.id,
                Role::Assistant,
                serde_json::to_value(&step).unwrap(),
            )
            .unwrap();
        let answer = PartData::from(TextPart::assistant("Done.", 0, Some(0)));
        store
            .upsert_part(&session.id, &m.id, None, answer.kind(), answer.to_value())
            .unwrap();
    }
    let show = p.strata(&["session", "show", &session.id]);
    show.expect_code(0);
    let out = show
        .stdout
        .replace(&session.id, "[session]")
        .replace(&p.dir_str(), "[dir]");
    insta::assert_snapshot!("session_show_cache", without_times(&out));
}

/// `out` with every `YYYY-MM-DD HH:MM` replaced by `[when]` (the store stamps messages now).
fn without_times(out: &str) -> String {
    const SHAPE: &[u8] = b"0000-00-00 00:00";
    let bytes = out.as_bytes();
    let fits = |at: usize| {
        bytes.get(at..at + SHAPE.len()).is_some_and(|b| {
            b.iter().zip(SHAPE).all(|(c, s)| {
                if *s == b'0' {
                    c.is_ascii_digit()
                } else {
                    c == s
                }
            })
        })
    };
    let (mut kept, mut at) = (String::new(), 0);
    while at < out.len() {
        if fits(at) {
            kept.push_str("[when]");
            at += SHAPE.len();
        } else {
            let c = out[at..].chars().next().unwrap_or_default();
            kept.push(c);
            at += c.len_utf8();
        }
    }
    kept
}

/// `1234567` → `1,234,567`, as `session show` prints counts.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
