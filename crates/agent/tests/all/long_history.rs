//! A long session on a real SQLite store: what the next request reads of it
//! ([`tail::conversation`], [`loaded_in`]) gives the model exactly what the whole
//! conversation gives: the same history, the same compaction decision and the same loaded
//! tools, with hidden messages, a retried summary and a standing revert in the way, while
//! reading only from the last compaction on.

use std::path::Path;

use serde_json::json;
use strata_agent::session::compact::{self, tail};
use strata_agent::session::deferred::{loaded, loaded_in};
use strata_agent::session::history::chat_history;
use strata_agent::store::{Revert, Role, Store};
use strata_agent::undo::conversation;
use strata_protocol::message::{AssistantMessage, Tokens, UserMessage};
use strata_protocol::part::{CompactionPart, PartData, StepFinish, TextPart, TextTime};
use strata_protocol::tool::{Completed, Span, ToolPart, ToolState};

struct Session {
    _dir: tempfile::TempDir,
    store: Store,
    id: String,
}

impl Session {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(&dir.path().join("data")).unwrap();
        let id = store.create_session(Path::new("/p"), None).unwrap().id;
        Self {
            _dir: dir,
            store,
            id,
        }
    }

    fn part(&self, message: &str, data: PartData) {
        self.store
            .upsert_part(&self.id, message, None, data.kind(), data.to_value())
            .unwrap();
    }

    fn user(&self, text: &str) -> String {
        let data = serde_json::to_value(UserMessage::new(1, "build")).unwrap();
        let m = self
            .store
            .append_message(&self.id, Role::User, data)
            .unwrap();
        if !text.is_empty() {
            self.part(&m.id, TextPart::user(text).into());
        }
        m.id
    }

    /// An assistant step: text, a `read` call (whose metadata may name loaded tools), and
    /// its finish with `input` tokens of context.
    fn step(&self, text: &str, loaded: &[&str], input: u64) -> String {
        let mut data = AssistantMessage::new(1, "build", "openai", "m");
        data.finish = Some("stop".into());
        data.tokens = Tokens::new(input, 10);
        let value = serde_json::to_value(&data).unwrap();
        let m = self
            .store
            .append_message(&self.id, Role::Assistant, value)
            .unwrap();
        self.part(&m.id, PartData::StepStart);
        self.part(&m.id, TextPart::assistant(text, 1, Some(2)).into());
        let mut metadata = serde_json::Map::new();
        if !loaded.is_empty() {
            metadata.insert("loadedTools".into(), json!(loaded));
        }
        let done = Completed {
            input: json!({"filePath": "a.rs"}),
            output: format!("output of {text}"),
            title: "a.rs".into(),
            metadata,
            time: Span::new(1, 2),
            attachments: vec![],
        };
        let call = ToolPart::with(
            &format!("call-{}", m.id),
            "read",
            ToolState::Completed(done),
        );
        self.part(&m.id, call.into());
        let finish = StepFinish {
            reason: "stop".into(),
            cost: 0.0,
            tokens: data.tokens,
        };
        self.part(&m.id, finish.into());
        m.id
    }

    /// A compaction summary message; a retried one does not count.
    fn summary(&self, text: &str, retried: bool) -> String {
        let mut data = AssistantMessage::new(1, "build", "openai", "m");
        data.summary = true;
        data.retried = retried;
        data.finish = Some("stop".into());
        let value = serde_json::to_value(&data).unwrap();
        let m = self
            .store
            .append_message(&self.id, Role::Assistant, value)
            .unwrap();
        let part = CompactionPart {
            auto: true,
            overflow: false,
            summary: text.into(),
            time: TextTime {
                start: 1,
                end: Some(2),
            },
        };
        self.part(&m.id, part.into());
        m.id
    }

    /// Asserts that the slice the next request reads tells the model what the whole does.
    fn assert_same_as_whole(&self) -> usize {
        let whole = conversation(&self.store, &self.id).unwrap();
        let tail = tail::conversation(&self.store, &self.id).unwrap();
        assert_eq!(chat_history(&tail), chat_history(&whole));
        assert_eq!(
            compact::due(&tail, None),
            compact::due(&whole, None),
            "the compaction decision"
        );
        assert_eq!(loaded_in(&self.store, &self.id).unwrap(), loaded(&whole));
        tail.len()
    }
}

#[test]
fn the_next_request_reads_from_the_last_compaction_and_sends_what_the_whole_sends() {
    let s = Session::new();
    // No compaction yet: the slice is the whole conversation.
    s.user("first question");
    s.step("looking", &["webfetch"], 1_000);
    assert_eq!(s.assert_same_as_whole(), 2);

    for turn in 0..60 {
        s.user(&format!("question {turn}"));
        s.step(&format!("answer {turn}"), &[], 2_000 + turn);
    }
    s.user("the request before the summary");
    // A user message without text in between: the history repeats the one before it.
    s.user("");
    s.summary("first summary", false);
    for turn in 0..40 {
        s.user(&format!("later question {turn}"));
        s.step(&format!("later answer {turn}"), &["websearch"], 3_000);
    }
    s.user("the last request");
    s.summary("a summary that was retried", true);
    let last = s.summary("the last summary", false);
    let after = s.user("after the summary");
    let hidden = s.step("hidden step", &["skill"], 60_000);
    s.step("the step the context is measured by", &[], 70_000);
    s.store.hide_message(&s.id, &hidden).unwrap();

    // The request, the summary and the two shown messages after it (a third is hidden): not
    // the 60 and 40 exchanges before.
    let whole = conversation(&s.store, &s.id).unwrap().len();
    assert_eq!(s.assert_same_as_whole(), 1 + 1 + 2);
    assert!(whole > 200, "{whole}");

    // A revert back to the message after the last summary: the slice still starts there.
    let revert = |message: &str| Revert {
        message_id: message.into(),
        snapshot: String::new(),
    };
    s.store.set_revert(&s.id, &revert(&after)).unwrap();
    assert_eq!(s.assert_same_as_whole(), 2);
    // Back before the last summary: the one before it is where the history starts.
    s.store.set_revert(&s.id, &revert(&last)).unwrap();
    let n = s.assert_same_as_whole();
    assert!(n > 80 && n < whole / 2, "{n} of {whole}");
}
