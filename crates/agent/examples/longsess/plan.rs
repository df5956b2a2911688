//! The shape of the session before any text is made: which messages, which parts, and how big
//! each piece is. Sizes are drawn at a natural scale, then scaled as a whole so the session
//! holds the asked-for number of tokens; compactions go where the context since the last one
//! passes the threshold, as the loop would have made them.

use crate::text::Rng;

/// Bytes per token, as Strata's own estimates count.
pub(crate) const BYTES_PER_TOKEN: usize = 4;
/// What the system prompt and the tool definitions add to every request, in tokens.
const SYSTEM_TOKENS: u64 = 8_000;
/// Nothing shrinks below this, so a scaled piece is still a word or two.
const MIN_BYTES: usize = 24;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    Read,
    Bash,
    Grep,
    Edit,
}

#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) tool: Tool,
    /// The output (for `edit`, the diff kept in its metadata).
    pub(crate) size: usize,
}

#[derive(Debug, Clone)]
pub(crate) enum Msg {
    User {
        text: usize,
    },
    /// One assistant step: optional reasoning and text, then its calls (none: the answer).
    Step {
        reasoning: usize,
        text: usize,
        calls: Vec<Call>,
        /// The request's context when the step ran, in tokens.
        context: u64,
    },
    /// A compaction's summary message.
    Summary {
        text: usize,
    },
}

impl Msg {
    /// The bytes of text this message adds to the session.
    pub(crate) fn bytes(&self) -> usize {
        match self {
            Msg::User { text } | Msg::Summary { text } => *text,
            Msg::Step {
                reasoning,
                text,
                calls,
                ..
            } => reasoning + text + calls.iter().map(|c| c.size + 80).sum::<usize>(),
        }
    }
}

fn call(rng: &mut Rng) -> Call {
    let (tool, size) = match rng.next() % 20 {
        0..=6 => (Tool::Read, rng.range(400, 6_000)),
        7..=11 => (Tool::Bash, rng.range(100, 3_000)),
        12..=15 => (Tool::Grep, rng.range(150, 1_500)),
        _ => (Tool::Edit, rng.range(200, 1_500)),
    };
    Call { tool, size }
}

fn tool_step(rng: &mut Rng) -> Msg {
    let calls = match rng.next() % 10 {
        0..=5 => 1,
        6..=8 => 2,
        _ => 3,
    };
    Msg::Step {
        reasoning: if rng.chance(60) {
            rng.range(80, 600)
        } else {
            0
        },
        text: if rng.chance(30) {
            rng.range(40, 200)
        } else {
            0
        },
        calls: (0..calls).map(|_| call(rng)).collect(),
        context: 0,
    }
}

fn answer_step(rng: &mut Rng) -> Msg {
    Msg::Step {
        reasoning: if rng.chance(50) {
            rng.range(80, 500)
        } else {
            0
        },
        text: rng.range(150, 2_500),
        calls: Vec::new(),
        context: 0,
    }
}

/// `count` messages of turns (a prompt, up to 6 tool steps, an answer), at natural sizes. The
/// last turn is cut to fit; a lone last slot becomes one more tool step of the turn before.
fn turns(rng: &mut Rng, count: usize) -> Vec<Msg> {
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let left = count - out.len();
        if left == 1 {
            let at = out.len() - 1;
            out.insert(at, tool_step(rng));
            break;
        }
        let steps = rng.range(0, 6).min(left - 2);
        out.push(Msg::User {
            text: rng.range(40, 600),
        });
        out.extend((0..steps).map(|_| tool_step(rng)));
        out.push(answer_step(rng));
    }
    out
}

fn scale(msgs: &mut [Msg], factor: f64) {
    let s = |n: &mut usize| {
        if *n > 0 {
            *n = ((*n as f64 * factor) as usize).max(MIN_BYTES);
        }
    };
    for m in msgs {
        match m {
            Msg::User { text } | Msg::Summary { text } => s(text),
            Msg::Step {
                reasoning,
                text,
                calls,
                ..
            } => {
                s(reasoning);
                s(text);
                calls.iter_mut().for_each(|c| s(&mut c.size));
            }
        }
    }
}

/// Scales `msgs` to about `bytes` in all. The fixed cost of a call and the floor do not
/// scale, so the factor is found in a few rounds.
fn fit(msgs: &mut [Msg], bytes: usize) {
    let natural = msgs.to_vec();
    let total = |m: &[Msg]| m.iter().map(Msg::bytes).sum::<usize>().max(1) as f64;
    let mut factor = bytes as f64 / total(msgs);
    for _ in 0..4 {
        msgs.clone_from_slice(&natural);
        scale(msgs, factor);
        factor *= bytes as f64 / total(msgs);
    }
    msgs.clone_from_slice(&natural);
    scale(msgs, factor);
}

/// Sets each step's context, and puts a summary after the prompt of each turn that starts
/// with at least `every` tokens of context (0: never). Returns how many were put in.
fn compactions(rng: &mut Rng, msgs: &mut Vec<Msg>, every: u64) -> usize {
    let mut out = Vec::with_capacity(msgs.len() + 16);
    let mut context = SYSTEM_TOKENS;
    let mut added = 0;
    for mut m in msgs.drain(..) {
        let starts_turn = matches!(m, Msg::User { .. });
        let tokens = (m.bytes() / BYTES_PER_TOKEN) as u64;
        if let Msg::Step { context: c, .. } = &mut m {
            *c = context;
        }
        out.push(m);
        context += tokens;
        if starts_turn && every > 0 && context >= every {
            let summary = rng.range(1_500, 4_000);
            out.push(Msg::Summary { text: summary });
            context = SYSTEM_TOKENS + (summary / BYTES_PER_TOKEN) as u64 + tokens;
            added += 1;
        }
    }
    *msgs = out;
    added
}

/// The session's messages: exactly `count` of them (summaries included), holding about
/// `tokens` tokens of text, compacted every `every` tokens of context.
pub(crate) fn plan(seed: u64, count: usize, tokens: u64, every: u64) -> Vec<Msg> {
    let mut summaries = 0;
    let mut tries = 0;
    loop {
        let mut rng = Rng::new(seed);
        let mut msgs = turns(&mut rng, count.saturating_sub(summaries).max(2));
        fit(&mut msgs, tokens as usize * BYTES_PER_TOKEN);
        let added = compactions(&mut rng, &mut msgs, every);
        tries += 1;
        // The summaries take slots of the count: plan again with room for them (a few tries;
        // the count may then be off by a summary or two).
        if msgs.len() == count || tries == 5 {
            return msgs;
        }
        summaries = added;
    }
}
