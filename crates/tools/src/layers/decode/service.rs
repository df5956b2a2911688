use std::marker::PhantomData;
use std::task::{Context, Poll};

use futures::future::{BoxFuture, FutureExt};
use serde::de::DeserializeOwned;
use tower_service::Service;

use crate::contract::{Decoded, ToolCall, ToolError};

/// See [`DecodeLayer`](super::DecodeLayer).
#[derive(Debug)]
pub struct Decode<S, P> {
    inner: S,
    tool: &'static str,
    _params: PhantomData<fn() -> P>,
}

impl<S: Clone, P> Clone for Decode<S, P> {
    fn clone(&self) -> Self {
        Self::new(self.inner.clone(), self.tool)
    }
}

impl<S, P> Decode<S, P> {
    pub fn new(inner: S, tool: &'static str) -> Self {
        Self {
            inner,
            tool,
            _params: PhantomData,
        }
    }
}

/// Decodes `input` (JSON text) into `P`: unknown keys ignored, `null` on an optional field is
/// absent, types strict. The error names the field by its path.
pub fn decode_args<P: DeserializeOwned>(tool: &str, input: &str) -> Result<P, ToolError> {
    let text = if input.trim().is_empty() { "{}" } else { input };
    let mut de = serde_json::Deserializer::from_str(text);
    let invalid = |detail: String| ToolError::InvalidArguments {
        tool: tool.to_string(),
        detail,
    };
    let value: P = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = strip_position(&inner.to_string());
        if inner.is_syntax() || inner.is_eof() {
            return invalid(format!("the arguments are not valid JSON ({inner})"));
        }
        // serde puts a missing field's name in the message, not in the path; a nested one
        // is named by its whole path so the model knows which item lacks it.
        match (missing_field(&message), path.as_str()) {
            (Some(_), ".") => invalid(message),
            (Some(field), parent) => invalid(format!("field `{parent}.{field}`: {message}")),
            (None, ".") => invalid(message),
            (None, path) => invalid(format!("field `{path}`: {message}")),
        }
    })?;
    de.end()
        .map_err(|e| invalid(format!("unexpected text after the JSON arguments ({e})")))?;
    Ok(value)
}

/// The field name of serde's "missing field `name`" message.
fn missing_field(message: &str) -> Option<&str> {
    message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(name, _)| name)
}

/// serde_json appends " at line L column C", which means nothing to a model.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

impl<S, P> Service<ToolCall> for Decode<S, P>
where
    S: Service<Decoded<P>, Error = ToolError>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
    P: DeserializeOwned,
{
    type Response = S::Response;
    type Error = ToolError;
    type Future = BoxFuture<'static, Result<S::Response, ToolError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ToolError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: ToolCall) -> Self::Future {
        match decode_args::<P>(self.tool, &req.input) {
            Ok(params) => self.inner.call(Decoded { params, cx: req.cx }).boxed(),
            Err(e) => futures::future::ready(Err(e)).boxed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[allow(dead_code)]
    #[derive(Debug, Deserialize)]
    struct Ask {
        questions: Vec<Question>,
    }

    #[allow(dead_code)]
    #[derive(Debug, Deserialize)]
    struct Question {
        question: String,
        multiple: Option<bool>,
    }

    fn detail(input: &str) -> String {
        match decode_args::<Ask>("question", input) {
            Err(ToolError::InvalidArguments { tool, detail }) => {
                assert_eq!(tool, "question");
                detail
            }
            other => panic!("{input} must be refused: {other:?}"),
        }
    }

    #[test]
    fn nested_errors_name_the_whole_path() {
        let missing = detail(r#"{"questions": [{"multiple": true}]}"#);
        assert_eq!(
            missing,
            "field `questions[0].question`: missing field `question`"
        );
        let wrong = detail(r#"{"questions": [{"question": "a"}, {"question": 7}]}"#);
        assert!(
            wrong.starts_with("field `questions[1].question`: "),
            "{wrong}"
        );
        assert!(!wrong.contains("line"), "no JSON position: {wrong}");
        assert_eq!(detail("{}"), "missing field `questions`");
    }

    #[test]
    fn blank_input_is_an_empty_object_and_trailing_text_is_refused() {
        let ok = decode_args::<Ask>("question", r#"{"questions": []}"#).unwrap();
        assert!(ok.questions.is_empty());
        assert_eq!(detail("  "), "missing field `questions`");
        assert!(detail(r#"{"questions": []} x"#).contains("unexpected text"));
    }
}
