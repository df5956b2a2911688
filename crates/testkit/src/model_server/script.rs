//! The script a [`ModelServer`](super::ModelServer) replays: one [`Turn`] per request, and the
//! protocol-neutral pieces each turn streams as.

/// A scripted tool call: `(id, name, arguments as a JSON text)`.
pub type ScriptedCall = (String, String, String);

/// How the server answers one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// Streams the text in several small deltas, then finishes with "stop".
    Text(String),
    /// Streams the calls (arguments in several small deltas), then finishes with "tool calls".
    ToolCalls(Vec<ScriptedCall>),
    /// Text first, then the calls, then "tool calls".
    TextAndToolCalls(String, Vec<ScriptedCall>),
    /// Streams `text`, then (if given) the start of a call and about half of its arguments, then
    /// closes the connection without any finish marker.
    Broken {
        text: String,
        partial_tool_call: Option<ScriptedCall>,
    },
    /// Answers with this status and body (JSON content type when the body parses as JSON).
    Status(u16, String),
    /// Sends the response headers and then nothing until the client goes away.
    Hang,
    /// Answers 429 with a `Retry-After` header of this many seconds.
    RateLimited { retry_after_secs: u64 },
    /// Streams reasoning first (`reasoning_content` deltas in OpenAI chunks; a `thinking`
    /// block in Anthropic events, closed with `signature` when given), then `then`.
    Reasoning {
        text: String,
        signature: Option<String>,
        then: Box<Turn>,
    },
    /// A `redacted_thinking` block with this data (Anthropic only; OpenAI streams nothing for
    /// it), then `then`.
    Redacted { data: String, then: Box<Turn> },
}

impl Turn {
    pub fn text(text: impl Into<String>) -> Turn {
        Turn::Text(text.into())
    }

    /// A turn with one tool call.
    pub fn tool_call(id: &str, name: &str, arguments: &str) -> Turn {
        Turn::ToolCalls(vec![call(id, name, arguments)])
    }

    /// `then`, preceded by signed reasoning.
    pub fn reasoning(text: &str, signature: Option<&str>, then: Turn) -> Turn {
        Turn::Reasoning {
            text: text.to_string(),
            signature: signature.map(str::to_string),
            then: Box::new(then),
        }
    }

    /// A turn cut in the middle of the given call's arguments.
    pub fn broken_call(text: &str, id: &str, name: &str, arguments: &str) -> Turn {
        Turn::Broken {
            text: text.to_string(),
            partial_tool_call: Some(call(id, name, arguments)),
        }
    }
}

/// Builds a [`ScriptedCall`] from string slices.
pub fn call(id: &str, name: &str, arguments: &str) -> ScriptedCall {
    (id.to_string(), name.to_string(), arguments.to_string())
}

/// One step of a streamed answer, before it is put into a protocol's wire format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    CallStart {
        index: usize,
        id: String,
        name: String,
    },
    CallArgs {
        index: usize,
        delta: String,
    },
    Reasoning(String),
    /// The reasoning block ends, with its signature when it has one.
    ReasoningEnd(Option<String>),
    Redacted(String),
    /// The response is complete; `tools` says whether it ended with tool calls.
    Finish {
        tools: bool,
    },
}

/// Delta size used to split text and arguments, small so that clients must accumulate.
const DELTA_CHARS: usize = 4;

pub(crate) fn split(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(DELTA_CHARS)
        .map(|c| c.iter().collect())
        .collect()
}

/// The pieces a streaming turn sends, and whether the stream is cut after them.
pub(crate) fn pieces(turn: &Turn) -> (Vec<Piece>, bool) {
    let mut out = Vec::new();
    let text_pieces = |out: &mut Vec<Piece>, text: &str| {
        out.extend(split(text).into_iter().map(Piece::Text));
    };
    let call_pieces =
        |out: &mut Vec<Piece>, index: usize, (id, name, args): &ScriptedCall, upto: usize| {
            out.push(Piece::CallStart {
                index,
                id: id.clone(),
                name: name.clone(),
            });
            let args: String = args.chars().take(upto).collect();
            out.extend(
                split(&args)
                    .into_iter()
                    .map(|delta| Piece::CallArgs { index, delta }),
            );
        };
    match turn {
        Turn::Text(text) => {
            text_pieces(&mut out, text);
            out.push(Piece::Finish { tools: false });
            (out, false)
        }
        Turn::ToolCalls(calls) | Turn::TextAndToolCalls(_, calls) => {
            if let Turn::TextAndToolCalls(text, _) = turn {
                text_pieces(&mut out, text);
            }
            for (index, c) in calls.iter().enumerate() {
                call_pieces(&mut out, index, c, usize::MAX);
            }
            out.push(Piece::Finish { tools: true });
            (out, false)
        }
        Turn::Broken {
            text,
            partial_tool_call,
        } => {
            text_pieces(&mut out, text);
            if let Some(c) = partial_tool_call {
                let half = c.2.chars().count().div_ceil(2);
                call_pieces(&mut out, 0, c, half);
            }
            (out, true)
        }
        Turn::Reasoning {
            text,
            signature,
            then,
        } => {
            out.extend(split(text).into_iter().map(Piece::Reasoning));
            out.push(Piece::ReasoningEnd(signature.clone()));
            let (rest, cut) = pieces(then);
            out.extend(rest);
            (out, cut)
        }
        Turn::Redacted { data, then } => {
            out.push(Piece::Redacted(data.clone()));
            let (rest, cut) = pieces(then);
            out.extend(rest);
            (out, cut)
        }
        Turn::Status(..) | Turn::Hang | Turn::RateLimited { .. } => (out, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_turn_sends_half_the_arguments_and_no_finish() {
        let (p, cut) = pieces(&Turn::broken_call(
            "hi",
            "c1",
            "bash",
            "{\"command\":\"ls\"}",
        ));
        assert!(cut);
        assert_eq!(p[0], Piece::Text("hi".into()));
        let sent: String = p
            .iter()
            .filter_map(|x| match x {
                Piece::CallArgs { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(sent, "{\"comman");
        assert!(!p.iter().any(|x| matches!(x, Piece::Finish { .. })));
    }

    #[test]
    fn tool_call_arguments_arrive_in_several_deltas() {
        let (p, cut) = pieces(&Turn::tool_call("c1", "read", "{\"filePath\":\"a.txt\"}"));
        assert!(!cut);
        let deltas = p
            .iter()
            .filter(|x| matches!(x, Piece::CallArgs { .. }))
            .count();
        assert!(deltas >= 4, "{p:?}");
        assert_eq!(p.last(), Some(&Piece::Finish { tools: true }));
    }
}
