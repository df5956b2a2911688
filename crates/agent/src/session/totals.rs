//! What a session used: its tokens and cost summed over the assistant messages (step attempts
//! and compaction summaries alike, since each was billed).

use strata_protocol::message::{AssistantMessage, Tokens};

use crate::store::{Message, Part, Role};

/// A session's summed token counts and cost in US dollars.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub tokens: Tokens,
    pub cost: f64,
    /// Assistant messages counted.
    pub steps: usize,
}

/// Sums the usage of every assistant message of `messages`.
pub fn totals(messages: &[(Message, Vec<Part>)]) -> Totals {
    let mut sum = Totals::default();
    for (message, _) in messages {
        if message.role != Role::Assistant {
            continue;
        }
        let Ok(data) = AssistantMessage::from_value(&message.data) else {
            continue;
        };
        let (t, u) = (&mut sum.tokens, data.tokens);
        t.input += u.input;
        t.output += u.output;
        t.reasoning += u.reasoning;
        t.cache.read += u.cache.read;
        t.cache.write += u.cache.write;
        sum.cost += data.cost;
        sum.steps += 1;
    }
    sum
}

impl Totals {
    /// One line for people: `Tokens: 1,200 in · 300 out · … · Cost: $0.0123`.
    pub fn line(&self) -> String {
        let t = &self.tokens;
        let mut parts = vec![
            format!("{} in", group(t.input)),
            format!("{} out", group(t.output)),
        ];
        if t.reasoning > 0 {
            parts.push(format!("{} reasoning", group(t.reasoning)));
        }
        if t.cache.read > 0 || t.cache.write > 0 {
            parts.push(format!(
                "{} cache read, {} cache write",
                group(t.cache.read),
                group(t.cache.write)
            ));
        }
        format!("Tokens: {} · Cost: ${:.4}", parts.join(" · "), self.cost)
    }
}

/// `1234567` → `1,234,567`.
fn group(n: u64) -> String {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn message(role: Role, data: serde_json::Value) -> (Message, Vec<Part>) {
        let m = Message {
            id: "m".into(),
            session_id: "s".into(),
            role,
            created_ms: 0,
            data,
        };
        (m, Vec::new())
    }

    #[test]
    fn sums_assistant_messages_and_prints_one_line() {
        let msgs = vec![
            message(Role::User, json!({"cost": 5})),
            message(
                Role::Assistant,
                json!({"cost": 0.01, "tokens": {"input": 1500, "output": 20, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
            ),
            message(
                Role::Assistant,
                json!({"cost": 0.0025, "tokens": {"input": 1000, "output": 10, "reasoning": 7, "cache": {"read": 1000000, "write": 0}}}),
            ),
        ];
        let t = totals(&msgs);
        assert_eq!(t.steps, 2);
        assert_eq!(t.tokens.input, 2500);
        assert!((t.cost - 0.0125).abs() < 1e-12);
        assert_eq!(
            t.line(),
            "Tokens: 2,500 in · 30 out · 7 reasoning · 1,000,000 cache read, 0 cache write · Cost: $0.0125"
        );
        assert_eq!(totals(&[]).line(), "Tokens: 0 in · 0 out · Cost: $0.0000");
    }
}
