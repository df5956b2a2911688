//! The reply lines `strata run --format json --answers stdin` reads: one JSON object per line,
//! either `{"permission": ID, "reply": "once" | "always" | "reject", "message": …}` or
//! `{"question": ID, "answers": [[label, …], …]}` (`"reject": true` instead of `answers`
//! dismisses the question). Parsing only; the front-end applies them.

use serde_json::{Map, Value};
use strata_services::permission::Reply;
use strata_services::question::Answer;

/// One parsed reply line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Incoming {
    Permission {
        id: String,
        reply: Reply,
    },
    /// `answers` is `None` when the question is dismissed.
    Question {
        id: String,
        answers: Option<Vec<Answer>>,
    },
}

/// Reads one line; the error says what is wrong and what a valid line looks like.
pub(crate) fn parse(line: &str) -> Result<Incoming, String> {
    let value: Value = serde_json::from_str(line.trim())
        .map_err(|e| format!("the reply line is not JSON ({e}); {SHAPES}"))?;
    let Value::Object(fields) = value else {
        return Err(format!("the reply line must be a JSON object; {SHAPES}"));
    };
    match (fields.get("permission"), fields.get("question")) {
        (Some(id), None) => permission(id_of(id, "permission")?, &fields),
        (None, Some(id)) => question(id_of(id, "question")?, &fields),
        (Some(_), Some(_)) => Err(format!(
            "the reply line names both a permission and a question; send one per line; {SHAPES}"
        )),
        (None, None) => Err(format!(
            "the reply line names neither `permission` nor `question`; {SHAPES}"
        )),
    }
}

const SHAPES: &str = r#"expected {"permission": ID, "reply": "once"|"always"|"reject", "message": "…"} or {"question": ID, "answers": [["label"]]}"#;

fn id_of(value: &Value, field: &str) -> Result<String, String> {
    match value.as_str().map(str::trim) {
        Some(id) if !id.is_empty() => Ok(id.to_string()),
        _ => Err(format!(
            "`{field}` must be the request id from the `{field}.asked` line, as a string"
        )),
    }
}

fn permission(id: String, fields: &Map<String, Value>) -> Result<Incoming, String> {
    let message = match fields.get("message") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Some(_) => return Err("`message` must be a string".into()),
    };
    let reply = match fields.get("reply").and_then(Value::as_str) {
        Some("once") => Reply::Once,
        Some("always") => Reply::Always,
        Some("reject") => Reply::Reject { feedback: message },
        Some(other) => {
            return Err(format!(
                "`reply` is {other:?}; it must be \"once\", \"always\" or \"reject\""
            ));
        }
        None => {
            return Err(
                "a permission reply needs `reply`: \"once\", \"always\" or \"reject\"".into(),
            );
        }
    };
    Ok(Incoming::Permission { id, reply })
}

fn question(id: String, fields: &Map<String, Value>) -> Result<Incoming, String> {
    if fields.get("reject").and_then(Value::as_bool) == Some(true) {
        return Ok(Incoming::Question { id, answers: None });
    }
    let Some(Value::Array(items)) = fields.get("answers") else {
        return Err(
            "a question reply needs `answers`: one list of labels per question, e.g. [[\"Yes\"]] (or \"reject\": true)".into(),
        );
    };
    let answers = items
        .iter()
        .enumerate()
        .map(|(i, item)| answer(i, item))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Incoming::Question {
        id,
        answers: Some(answers),
    })
}

/// One question's answer: a list of labels, or a single string as shorthand.
fn answer(index: usize, item: &Value) -> Result<Answer, String> {
    let bad = || {
        format!(
            "answer {} must be a list of strings (labels or typed text)",
            index + 1
        )
    };
    match item {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(labels) => labels
            .iter()
            .map(|l| l.as_str().map(str::to_string).ok_or_else(bad))
            .collect(),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perm(id: &str, reply: Reply) -> Incoming {
        Incoming::Permission {
            id: id.into(),
            reply,
        }
    }

    #[test]
    fn permission_replies() {
        assert_eq!(
            parse(r#"{"permission": "per_1", "reply": "once"}"#),
            Ok(perm("per_1", Reply::Once))
        );
        assert_eq!(
            parse(r#" {"permission":"per_2","reply":"always"} "#),
            Ok(perm("per_2", Reply::Always))
        );
        assert_eq!(
            parse(r#"{"permission": "per_3", "reply": "reject", "message": " use git diff "}"#),
            Ok(perm(
                "per_3",
                Reply::Reject {
                    feedback: Some("use git diff".into())
                }
            ))
        );
        assert_eq!(
            parse(r#"{"permission": "per_3", "reply": "reject", "message": ""}"#),
            Ok(perm("per_3", Reply::Reject { feedback: None }))
        );
    }

    #[test]
    fn question_replies() {
        assert_eq!(
            parse(r#"{"question": "que_1", "answers": [["Rust", "Go"], "tabs"]}"#),
            Ok(Incoming::Question {
                id: "que_1".into(),
                answers: Some(vec![vec!["Rust".into(), "Go".into()], vec!["tabs".into()]]),
            })
        );
        assert_eq!(
            parse(r#"{"question": "que_1", "reject": true}"#),
            Ok(Incoming::Question {
                id: "que_1".into(),
                answers: None
            })
        );
    }

    #[test]
    fn malformed_lines_say_what_is_wrong() {
        let cases = [
            ("yes", "not JSON"),
            ("[1]", "must be a JSON object"),
            ("{}", "neither"),
            (r#"{"permission": "p", "question": "q"}"#, "both"),
            (r#"{"permission": 7, "reply": "once"}"#, "request id"),
            (r#"{"permission": "", "reply": "once"}"#, "request id"),
            (r#"{"permission": "p"}"#, "needs `reply`"),
            (r#"{"permission": "p", "reply": "sure"}"#, "\"sure\""),
            (
                r#"{"permission": "p", "reply": "reject", "message": 3}"#,
                "`message`",
            ),
            (r#"{"question": "q"}"#, "needs `answers`"),
            (r#"{"question": "q", "answers": [[1]]}"#, "answer 1"),
            (r#"{"question": "q", "answers": [["a"], {}]}"#, "answer 2"),
        ];
        for (line, expected) in cases {
            let err = parse(line).expect_err(line);
            assert!(err.contains(expected), "{line}: {err}");
        }
    }
}
