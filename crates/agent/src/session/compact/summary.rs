//! What a compaction leaves for later histories to read: the summary's place in the session,
//! the message that opens a history after it, and the note that stands for a pruned output.
//! Kept apart from the compaction itself, which builds histories to summarise.

use strata_protocol::message::AssistantMessage;
use strata_protocol::part::PartData;

use crate::store::{Message, Part, Role};

/// What the model is sent in place of an output that compaction pruned.
pub const PRUNED_OUTPUT: &str =
    "[This output was cleared to save context. Run the tool again if you need it.]";

const RESUME: &str = include_str!("resume.md");

/// The user message that opens a history after a compaction.
pub fn resume_text(summary: &str) -> String {
    RESUME.trim_end().replace("{summary}", summary.trim())
}

/// Whether a retry replaced this attempt (its parts are left out of histories).
pub fn is_retried(message: &Message) -> bool {
    AssistantMessage::from_value(&message.data).is_ok_and(|m| m.retried)
}

/// The index of the last message holding a compaction summary, with the summary.
pub fn last_summary(messages: &[(Message, Vec<Part>)]) -> Option<(usize, String)> {
    messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, (m, parts))| {
            if m.role != Role::Assistant || is_retried(m) {
                return None;
            }
            parts.iter().find_map(|p| match PartData::of(p) {
                Some(PartData::Compaction(c)) if !c.summary.trim().is_empty() => {
                    Some((i, c.summary))
                }
                _ => None,
            })
        })
}
