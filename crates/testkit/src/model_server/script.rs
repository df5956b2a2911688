//! The script a [`ModelServer`](super::ModelServer) replays: one [`Turn`] per request, and the
//! protocol-neutral pieces each turn streams as.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::recorded::Recording;

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
    /// Streams the calls like [`Turn::ToolCalls`], pausing after the start of each call but the
    /// first, before its arguments: the earlier calls are complete (in both protocols) while
    /// the response is still open, as when a real model takes time to write the next call.
    Paced {
        calls: Vec<ScriptedCall>,
        pause: Pause,
    },
    /// Streams a real vendor's recorded chunks verbatim, framed for the request's protocol
    /// (see [`Recording`]).
    Recorded(Recording),
}

/// How long a [`Turn::Paced`] response pauses between calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pause {
    /// A fixed wait.
    For(Duration),
    /// Until the test opens the gate (every pause of the turn waits for the same gate).
    Until(Gate),
    /// Pause `n` (from 0) waits for gate `n`; pauses beyond the list do not wait.
    Each(Vec<Gate>),
}

impl Pause {
    /// Waits out pause number `n` of the turn.
    pub(crate) async fn wait(&self, n: usize) {
        match self {
            Pause::For(d) => tokio::time::sleep(*d).await,
            Pause::Until(gate) => gate.passed().await,
            Pause::Each(gates) => {
                if let Some(gate) = gates.get(n) {
                    gate.passed().await;
                }
            }
        }
    }
}

/// A gate a scripted response waits at until the test opens it. Cheap to clone; clones share
/// the gate.
#[derive(Debug, Clone, Default)]
pub struct Gate(Arc<CancellationToken>);

impl PartialEq for Gate {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Gate {}

impl Gate {
    pub fn new() -> Gate {
        Gate::default()
    }

    /// Lets every waiting and future pause through.
    pub fn open(&self) {
        self.0.cancel();
    }

    pub fn is_open(&self) -> bool {
        self.0.is_cancelled()
    }

    pub(crate) async fn passed(&self) {
        self.0.cancelled().await;
    }
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
    /// The stream waits here (a [`Turn::Paced`] pause).
    Pause,
}

/// Delta size used to split text and arguments, small so that clients must accumulate.
const DELTA_CHARS: usize = 4;

/// The deltas a text answer ([`Turn::text`]) is streamed in, in order: what a client that
/// streams it should see before the text is complete.
pub fn text_deltas(text: &str) -> Vec<String> {
    split(text)
}

pub(crate) fn split(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(DELTA_CHARS)
        .map(|c| c.iter().collect())
        .collect()
}

fn text_pieces(out: &mut Vec<Piece>, text: &str) {
    out.extend(split(text).into_iter().map(Piece::Text));
}

/// A call's start and the first `upto` characters of its arguments.
fn call_pieces(out: &mut Vec<Piece>, index: usize, (id, name, args): &ScriptedCall, upto: usize) {
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
}

/// Calls whose later arguments each wait for a pause after their start.
fn paced_pieces(out: &mut Vec<Piece>, calls: &[ScriptedCall]) {
    for (index, c) in calls.iter().enumerate() {
        out.push(Piece::CallStart {
            index,
            id: c.0.clone(),
            name: c.1.clone(),
        });
        if index > 0 {
            out.push(Piece::Pause);
        }
        out.extend(
            split(&c.2)
                .into_iter()
                .map(|delta| Piece::CallArgs { index, delta }),
        );
    }
    out.push(Piece::Finish { tools: true });
}

/// The pieces a streaming turn sends, and whether the stream is cut after them.
pub(crate) fn pieces(turn: &Turn) -> (Vec<Piece>, bool) {
    let mut out = Vec::new();
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
        Turn::Paced { calls, .. } => {
            paced_pieces(&mut out, calls);
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
        Turn::Status(..) | Turn::Hang | Turn::RateLimited { .. } | Turn::Recorded(_) => {
            (out, false)
        }
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
    fn a_paced_turn_pauses_after_each_later_call_starts() {
        let calls = vec![call("c1", "read", "{}"), call("c2", "read", "{}")];
        let (p, cut) = pieces(&Turn::Paced {
            calls,
            pause: Pause::For(Duration::from_millis(1)),
        });
        assert!(!cut);
        let pause = p.iter().position(|x| *x == Piece::Pause).unwrap();
        assert!(matches!(&p[pause - 1], Piece::CallStart { id, .. } if id == "c2"));
        assert_eq!(p.iter().filter(|x| **x == Piece::Pause).count(), 1);
        let gate = Gate::new();
        assert_eq!(gate.clone(), gate);
        assert_ne!(Gate::new(), gate);
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
