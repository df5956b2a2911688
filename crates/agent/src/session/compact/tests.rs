use serde_json::json;

use super::*;
use crate::session::rows::{message, part};

fn info(context: u64, output: u64) -> ModelInfo {
    ModelInfo {
        id: "openai/tiny".into(),
        context,
        output,
        ..ModelInfo::default()
    }
}

fn step(id: &str, input: u64) -> (Message, Vec<Part>) {
    (
        message(
            id,
            Role::Assistant,
            json!({"finish": "tool-calls", "tokens": {"input": input, "output": 10}}),
        ),
        vec![],
    )
}

#[test]
fn due_reads_the_last_finished_step_since_the_last_summary() {
    let tiny = info(1000, 100);
    let mut msgs = vec![step("m1", 500)];
    assert!(!due(&msgs, Some(&tiny)), "threshold is 900");
    msgs.push(step("m2", 890));
    assert!(due(&msgs, Some(&tiny)));
    assert!(!due(&msgs, None), "no window known, never due");
    msgs.push((
        message(
            "m3",
            Role::Assistant,
            json!({"summary": true, "finish": "stop"}),
        ),
        vec![part(
            "m3",
            1,
            "compaction",
            json!({"auto": true, "summary": "so far"}),
        )],
    ));
    assert!(!due(&msgs, Some(&tiny)), "a summary resets the count");
    assert_eq!(last_summary(&msgs), Some((2, "so far".to_string())));
    msgs.push(step("m4", 950));
    assert!(due(&msgs, Some(&tiny)));
}

#[test]
fn due_counts_the_tool_outputs_the_last_step_added() {
    let tiny = info(1000, 100);
    let output = "x".repeat(1600); // about 400 tokens
    let (m, _) = step("m1", 500);
    let parts = vec![part(
        "m1",
        1,
        "tool",
        json!({"callID": "c1", "tool": "read", "state": {"status": "completed", "input": {}, "output": output}}),
    )];
    assert!(
        due(&[(m, parts)], Some(&tiny)),
        "510 used + 400 added > 900"
    );
}

#[test]
fn an_empty_or_retried_summary_does_not_count() {
    let msgs = vec![
        (
            message("m1", Role::Assistant, json!({"summary": true})),
            vec![part(
                "m1",
                1,
                "compaction",
                json!({"auto": true, "summary": ""}),
            )],
        ),
        (
            message(
                "m2",
                Role::Assistant,
                json!({"summary": true, "retried": true}),
            ),
            vec![part(
                "m2",
                1,
                "compaction",
                json!({"auto": true, "summary": "x"}),
            )],
        ),
    ];
    assert_eq!(last_summary(&msgs), None);
}

#[test]
fn the_model_visible_texts_are_pinned() {
    insta::assert_snapshot!("summary_prompt", SUMMARY_PROMPT);
    insta::assert_snapshot!("resume_text", resume_text("  The user wants X.\n"));
    insta::assert_snapshot!("pruned_output", PRUNED_OUTPUT);
}
