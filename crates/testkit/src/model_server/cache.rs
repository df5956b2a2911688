//! A prompt cache for the scripted model server, off unless a test turns it on with
//! [`ModelServer::simulate_cache`]. It follows the rules Anthropic documents for its Messages
//! API, so tests can measure what cache breakpoints save:
//!
//! - The prompt is a list of blocks in a fixed order: each tool, then the system prompt (one
//!   block, or each of its text blocks), then each content block of each message (a string
//!   content is one block). A block is serialized canonically (object keys sorted, its
//!   `cache_control` left out, a message block tagged with its role), and counts
//!   `bytes / bytes_per_token` tokens (4 by default).
//! - A block marked with `cache_control` is a breakpoint; more than four is refused with a
//!   400, as the API does. A cache entry is the exact prefix up to and including a
//!   breakpoint's block.
//! - A prefix shorter than `min_tokens` (1024, as for Sonnet-class models) is not cached.
//! - For each breakpoint, the cache looks at the prefix ending there and at most `lookback`
//!   (20) earlier block boundaries, and takes the longest prefix already cached. The longest
//!   found over all breakpoints is the read.
//! - Every breakpoint's prefix is then written (or refreshed). An entry lives `ttl` (5
//!   minutes) from its last use. Time is the cache's own clock: it moves `per_request` on
//!   each request and when a test calls [`ModelServer::elapse_cache_clock`]; nothing sleeps.
//! - The usage reports the read as `cache_read_input_tokens`, the part newly written (from
//!   the end of the read, or from the start, to the last breakpoint) as
//!   `cache_creation_input_tokens`, and the rest as `input_tokens`, in `message_start` and in
//!   the final `message_delta`.
//! - Every request is accounted when it arrives, whatever turn then answers it (a scripted
//!   error included): the simulation is about what the client sent.
//!
//! Chat-completions requests that carry a `prompt_cache_key` get OpenAI's automatic prefix
//! caching, kept simple: the blocks are the tools (one block) then each message; every prefix
//! at a message boundary of at least `min_tokens` is stored under the key; the longest stored
//! one is the hit, reported as `prompt_tokens_details.cached_tokens` rounded down to
//! `min_tokens` plus a multiple of 128, with `prompt_tokens` the whole prompt.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{ModelServer, lock};

#[cfg(test)]
mod tests;

/// The most breakpoints one request may carry.
pub const MAX_BREAKPOINTS: usize = 4;
/// OpenAI's cache hits grow in steps of this many tokens past the minimum.
const OPENAI_STEP: u64 = 128;

/// The rules the simulated cache follows; [`Default`] is Anthropic's for Sonnet-class models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheRules {
    /// Prefixes shorter than this are not cached.
    pub min_tokens: u64,
    /// Block boundaries looked at before each breakpoint.
    pub lookback: usize,
    /// How long an entry lives after its last use.
    pub ttl: Duration,
    /// How far the cache's clock moves on each request.
    pub per_request: Duration,
    /// Bytes of canonical JSON per token.
    pub bytes_per_token: usize,
}

impl Default for CacheRules {
    fn default() -> Self {
        Self {
            min_tokens: 1024,
            lookback: 20,
            ttl: Duration::from_secs(5 * 60),
            per_request: Duration::ZERO,
            bytes_per_token: 4,
        }
    }
}

/// What the cache made of one request: input tokens not cached, read from and written to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheUsage {
    pub input: u64,
    pub read: u64,
    pub write: u64,
}

impl CacheUsage {
    /// Every input token of the request.
    pub fn total(&self) -> u64 {
        self.input + self.read + self.write
    }
}

/// The prompt's blocks, reduced to what the cache needs: where each prefix ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Prefix {
    /// Hash of the canonical text of every block up to here.
    hash: u64,
    tokens: u64,
}

/// The cache state behind one server.
#[derive(Debug)]
pub(crate) struct PromptCache {
    rules: CacheRules,
    now: Duration,
    /// Live entries and when each was last used.
    entries: HashMap<Prefix, Duration>,
    /// Per OpenAI cache key, the stored prefixes.
    keyed: HashMap<String, HashMap<Prefix, Duration>>,
    /// What each accounted request got, in order.
    log: Vec<CacheUsage>,
}

/// One request's cache usage and the wire to report it on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Accounted {
    usage: CacheUsage,
    anthropic: bool,
}

impl ModelServer {
    /// Turns on the simulated prompt cache, empty, following `rules` (the module docs of
    /// `model_server::cache` list what it models).
    pub fn simulate_cache(&self, rules: CacheRules) {
        *lock(&self.shared.cache) = Some(PromptCache {
            rules,
            now: Duration::ZERO,
            entries: HashMap::new(),
            keyed: HashMap::new(),
            log: Vec::new(),
        });
    }

    /// Moves the simulated cache's clock forward (entries older than the TTL expire).
    pub fn elapse_cache_clock(&self, by: Duration) {
        if let Some(cache) = lock(&self.shared.cache).as_mut() {
            cache.now += by;
        }
    }

    /// The cache usage of every request the simulated cache accounted, in order.
    pub fn cache_usage(&self) -> Vec<CacheUsage> {
        lock(&self.shared.cache)
            .as_ref()
            .map_or_else(Vec::new, |c| c.log.clone())
    }
}

/// The server's hook: accounts `body` when the cache is on (`None` when it is off, or for a
/// chat-completions request without a cache key); `Err` is a 400's message.
pub(crate) fn account(
    cache: &Mutex<Option<PromptCache>>,
    anthropic: bool,
    body: &Value,
) -> Result<Option<Accounted>, String> {
    let mut guard = lock(cache);
    let Some(cache) = guard.as_mut() else {
        return Ok(None);
    };
    cache.now += cache.rules.per_request;
    let usage = if anthropic {
        cache.messages_request(body)?
    } else {
        match body.get("prompt_cache_key").and_then(Value::as_str) {
            Some(key) => cache.keyed_request(key, body),
            None => return Ok(None),
        }
    };
    cache.log.push(usage);
    Ok(Some(Accounted { usage, anthropic }))
}

/// The server's hook: `frames` with their usage replaced by the accounted request's, if any.
pub(crate) fn reported(cached: Option<Accounted>, frames: Vec<String>) -> Vec<String> {
    let Some(c) = cached else {
        return frames;
    };
    frames
        .into_iter()
        .map(|f| rewrite_frame(&f, c.usage, c.anthropic).unwrap_or(f))
        .collect()
}

impl PromptCache {
    fn live(&self, entries: &HashMap<Prefix, Duration>, p: &Prefix) -> bool {
        entries
            .get(p)
            .is_some_and(|used| self.now.saturating_sub(*used) <= self.rules.ttl)
    }

    /// Anthropic's rules over a Messages body.
    fn messages_request(&mut self, body: &Value) -> Result<CacheUsage, String> {
        let blocks = messages_blocks(body);
        let prefixes = prefixes(&blocks, self.rules.bytes_per_token);
        let marks: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i].1).collect();
        if marks.len() > MAX_BREAKPOINTS {
            return Err(format!(
                "A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {}.",
                marks.len()
            ));
        }
        let total = prefixes.last().map_or(0, |p| p.tokens);
        let mut hit: Option<usize> = None;
        for &m in &marks {
            let found = (m.saturating_sub(self.rules.lookback)..=m)
                .rev()
                .find(|&i| self.live(&self.entries, &prefixes[i]));
            hit = hit.max(found);
        }
        let read = hit.map_or(0, |i| prefixes[i].tokens);
        if let Some(i) = hit {
            self.entries.insert(prefixes[i], self.now);
        }
        for &m in &marks {
            if prefixes[m].tokens >= self.rules.min_tokens {
                self.entries.insert(prefixes[m], self.now);
            }
        }
        let written_to = marks
            .last()
            .map(|&m| prefixes[m].tokens)
            .filter(|t| *t >= self.rules.min_tokens)
            .unwrap_or(0);
        let write = written_to.saturating_sub(read);
        Ok(CacheUsage {
            input: total - read - write,
            read,
            write,
        })
    }

    /// OpenAI's automatic prefix caching under `key`.
    fn keyed_request(&mut self, key: &str, body: &Value) -> CacheUsage {
        let blocks = chat_blocks(body);
        let prefixes = prefixes(&blocks, self.rules.bytes_per_token);
        let total = prefixes.last().map_or(0, |p| p.tokens);
        let min = self.rules.min_tokens;
        let mut stored = self.keyed.remove(key).unwrap_or_default();
        let hit = prefixes
            .iter()
            .rev()
            .find(|p| self.live(&stored, p))
            .map_or(0, |p| p.tokens);
        for p in prefixes.iter().filter(|p| p.tokens >= min) {
            stored.insert(*p, self.now);
        }
        self.keyed.insert(key.to_string(), stored);
        let read = if hit >= min {
            min + (hit - min) / OPENAI_STEP * OPENAI_STEP
        } else {
            0
        };
        CacheUsage {
            input: total - read,
            read,
            write: 0,
        }
    }
}

/// The blocks of a Messages body in cache order, each as `(canonical text, is a breakpoint)`.
fn messages_blocks(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        out.push(block("tool", tool));
    }
    match body.get("system") {
        Some(Value::Array(blocks)) => out.extend(blocks.iter().map(|b| block("system", b))),
        Some(text @ Value::String(_)) => out.push(block("system", text)),
        _ => {}
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or_default();
        match message.get("content") {
            Some(Value::Array(blocks)) => out.extend(blocks.iter().map(|b| block(role, b))),
            Some(content) => out.push(block(role, content)),
            None => {}
        }
    }
    out
}

/// The blocks of a chat-completions body for automatic caching: the tools, then each message.
fn chat_blocks(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    if let Some(tools) = body.get("tools") {
        out.push(block("tools", tools));
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        out.push(block("message", message));
    }
    out
}

/// One block: `{"<kind>": value}` canonically, and whether it carries `cache_control`.
fn block(kind: &str, value: &Value) -> (String, bool) {
    let marked = value.get("cache_control").is_some();
    (canonical(&json!({ kind: value })), marked)
}

/// `v` as JSON text with object keys sorted and every `cache_control` left out, so the same
/// content is the same prefix whatever order it was built in and wherever the marks are.
pub(crate) fn canonical(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().filter(|k| *k != "cache_control").collect();
                keys.sort();
                let mut out = Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&map[k]));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

/// The prefix ending after each block: its cumulative hash and token count.
fn prefixes(blocks: &[(String, bool)], bytes_per_token: usize) -> Vec<Prefix> {
    let per = bytes_per_token.max(1);
    let mut hasher = DefaultHasher::new();
    let mut bytes = 0;
    blocks
        .iter()
        .map(|(text, _)| {
            hasher.write(text.as_bytes());
            // A separator, so that block boundaries are part of the identity.
            hasher.write_u8(0xff);
            bytes += text.len();
            Prefix {
                hash: hasher.finish(),
                tokens: (bytes / per) as u64,
            }
        })
        .collect()
}

/// One SSE frame with its usage replaced; `None` when it carries no usage to replace.
fn rewrite_frame(frame: &str, u: CacheUsage, anthropic: bool) -> Option<String> {
    let (head, data) = match frame.split_once("data: ") {
        Some((head, data)) => (head, data.trim_end()),
        None => return None,
    };
    let mut v: Value = serde_json::from_str(data).ok()?;
    let usage = if anthropic {
        match v["type"].as_str()? {
            "message_start" => v.pointer_mut("/message/usage")?,
            "message_delta" => v.get_mut("usage")?,
            _ => return None,
        }
    } else {
        v.get_mut("usage")?
    };
    if anthropic {
        usage["input_tokens"] = json!(u.input);
        usage["cache_read_input_tokens"] = json!(u.read);
        usage["cache_creation_input_tokens"] = json!(u.write);
    } else {
        let output = usage["completion_tokens"].as_u64().unwrap_or(0);
        usage["prompt_tokens"] = json!(u.total());
        usage["total_tokens"] = json!(u.total() + output);
        usage["prompt_tokens_details"] = json!({"cached_tokens": u.read});
    }
    Some(format!("{head}data: {v}\n\n"))
}
