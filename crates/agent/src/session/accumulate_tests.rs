//! The accumulator's unit tests: event sequences in, part changes out.

use super::*;

fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
        meta: None,
    }
}

#[test]
fn text_then_calls_then_finish() {
    let mut a = StepAccumulator::new();
    let mut all = Vec::new();
    for e in [
        StreamEvent::TextDelta("Let me ".into()),
        StreamEvent::TextDelta("look.".into()),
        StreamEvent::ToolCallStarted {
            id: "c1".into(),
            name: "read".into(),
        },
        StreamEvent::ToolCallDelta {
            id: "c1".into(),
            delta: "{\"filePath\":".into(),
        },
        StreamEvent::ToolCallDelta {
            id: "c1".into(),
            delta: "\"a\"}".into(),
        },
    ] {
        all.extend(a.push(e));
    }
    assert_eq!(
        all,
        vec![
            Change::TextOpened,
            Change::TextDelta("Let me ".into()),
            Change::TextDelta("look.".into()),
            Change::TextClosed("Let me look.".into()),
            Change::CallStarted {
                id: "c1".into(),
                name: "read".into()
            },
        ]
    );
    assert!(
        a.ready_calls().is_empty(),
        "not runnable before it is ready"
    );
    assert_eq!(
        a.unfinished_calls(),
        vec![("c1".into(), "read".into(), "{\"filePath\":\"a\"}".into())]
    );
    let ready = a.push(StreamEvent::ToolCallReady(call(
        "c1",
        "read",
        "{\"filePath\":\"a\"}",
    )));
    assert_eq!(
        ready,
        vec![Change::CallReady(call(
            "c1",
            "read",
            "{\"filePath\":\"a\"}"
        ))]
    );
    let fin = a.push(StreamEvent::Finish {
        reason: FinishReason::ToolCalls,
        usage: None,
    });
    assert_eq!(
        fin,
        vec![Change::Finished {
            reason: FinishReason::ToolCalls,
            usage: None
        }]
    );
    assert_eq!(a.text(), "Let me look.");
    assert!(a.unfinished_calls().is_empty());
}

#[test]
fn text_after_a_call_opens_a_new_part_and_unannounced_calls_start_when_ready() {
    let mut a = StepAccumulator::new();
    let c = a.push(StreamEvent::ToolCallReady(call("c9", "glob", "{}")));
    assert_eq!(
        c,
        vec![
            Change::CallStarted {
                id: "c9".into(),
                name: "glob".into()
            },
            Change::CallReady(call("c9", "glob", "{}")),
        ]
    );
    let t = a.push(StreamEvent::TextDelta("done".into()));
    assert_eq!(t[0], Change::TextOpened);
    assert_eq!(a.close_text(), Some(Change::TextClosed("done".into())));
    assert_eq!(a.close_text(), None);
    assert_eq!(a.ready_calls().len(), 1);
}

#[test]
fn reasoning_opens_a_part_closed_by_its_end_or_by_what_follows() {
    let mut a = StepAccumulator::new();
    let mut all = Vec::new();
    for e in [
        StreamEvent::ReasoningDelta("Hm".into()),
        StreamEvent::ReasoningDelta("m.".into()),
        StreamEvent::ReasoningEnd {
            signature: Some("s1".into()),
            item: None,
        },
        StreamEvent::RedactedReasoning("xx".into()),
        StreamEvent::ReasoningDelta("again".into()),
        StreamEvent::TextDelta("Answer".into()),
    ] {
        all.extend(a.push(e));
    }
    let closed =
        |text: &str, signature: Option<&str>, redacted: Option<&str>| Change::ReasoningClosed {
            text: text.into(),
            signature: signature.map(str::to_string),
            redacted: redacted.map(str::to_string),
            item: None,
        };
    assert_eq!(
        all,
        vec![
            Change::ReasoningOpened,
            closed("Hmm.", Some("s1"), None),
            Change::ReasoningOpened,
            closed("", None, Some("xx")),
            Change::ReasoningOpened,
            closed("again", None, None),
            Change::TextOpened,
            Change::TextDelta("Answer".into()),
        ]
    );
    assert_eq!(a.text(), "Answer", "reasoning is not the answer");
    let mut b = StepAccumulator::new();
    assert_eq!(
        b.push(StreamEvent::ReasoningEnd {
            signature: Some("s2".into()),
            item: None,
        }),
        vec![Change::ReasoningOpened, closed("", Some("s2"), None)],
        "a signed block without text is kept"
    );
    assert!(
        b.push(StreamEvent::ReasoningEnd {
            signature: None,
            item: None
        })
        .is_empty()
    );
}

#[test]
fn a_responses_reasoning_item_closes_its_part_or_stands_alone() {
    let item = |id: &str| ReasoningItem {
        id: id.into(),
        encrypted_content: format!("enc-{id}"),
    };
    let end = |id: &str| StreamEvent::ReasoningEnd {
        signature: None,
        item: Some(item(id)),
    };
    let closed = |text: &str, id: &str| Change::ReasoningClosed {
        text: text.into(),
        signature: None,
        redacted: None,
        item: Some(item(id)),
    };
    let mut a = StepAccumulator::new();
    let mut all = a.push(StreamEvent::ReasoningDelta("Plan.".into()));
    all.extend(a.push(end("rs_1")));
    all.extend(a.push(end("rs_2")));
    assert_eq!(
        all,
        vec![
            Change::ReasoningOpened,
            closed("Plan.", "rs_1"),
            Change::ReasoningOpened,
            closed("", "rs_2"),
        ],
        "an item without a summary is still kept, to be sent back"
    );
}

#[test]
fn the_call_table_keeps_each_calls_part() {
    let mut a = StepAccumulator::new();
    a.push(StreamEvent::ToolCallStarted {
        id: "c1".into(),
        name: "read".into(),
    });
    a.push(StreamEvent::ToolCallReady(call("c2", "glob", "{}")));
    a.set_part("c1", "prt_1".into());
    a.set_part("c2", "prt_2".into());
    a.set_part("nope", "prt_x".into());
    assert_eq!(a.part_of("c1"), Some("prt_1"));
    assert_eq!(a.part_of("nope"), None);
    assert_eq!(
        a.ready_with_parts(),
        vec![(call("c2", "glob", "{}"), "prt_2".to_string())],
        "only ready calls, with their parts"
    );
}

#[test]
fn a_signed_block_without_text_ends_the_text_before_it() {
    let mut a = StepAccumulator::new();
    a.push(StreamEvent::TextDelta("Thinking done.".into()));
    let changes = a.push(StreamEvent::ReasoningEnd {
        signature: Some("sig".into()),
        item: None,
    });
    assert_eq!(
        changes,
        vec![
            Change::TextClosed("Thinking done.".into()),
            Change::ReasoningOpened,
            Change::ReasoningClosed {
                text: String::new(),
                signature: Some("sig".into()),
                redacted: None,
                item: None,
            },
        ]
    );
    // Text after it is a new part.
    assert_eq!(
        a.push(StreamEvent::TextDelta("More.".into()))[0],
        Change::TextOpened
    );
}
