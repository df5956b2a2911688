//! What a model was sent, read back from a recorded request body of any protocol (OpenAI
//! chat completions, Anthropic Messages or OpenAI Responses) into one neutral shape, [`SentRequest`], with a
//! readable rendering for insta snapshots: the model, the tool names, then one line per
//! message item — text, tool calls with their arguments, tool results, attached files.
//!
//! ```text
//! model: scripted-model
//! tools: read, edit, glob
//! system: You are Strata, a coding agent working in the user's project through the …
//! user: change old to new in notes.txt
//! assistant: Reading first.
//! assistant → read c1 {"filePath":"notes.txt"}
//! tool c1 ←
//!     <file contents…>
//! ```
//!
//! The system prompt shows only its start (it names the directory, the platform and the date).

use std::fmt::{self, Write as _};

use serde_json::Value;

/// Characters of the system prompt shown in a rendering.
const SYSTEM_CHARS: usize = 80;
/// Longer data URLs are shortened in a rendering.
const URL_CHARS: usize = 120;

/// One request as the model saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct SentRequest {
    pub model: String,
    /// The offered tools' names, in order.
    pub tools: Vec<String>,
    /// The system prompt (empty when none was sent).
    pub system: String,
    pub messages: Vec<SentMessage>,
}

/// One message: its role (`system`, `user`, `assistant`, `tool`) and what it carried.
#[derive(Debug, Clone, PartialEq)]
pub struct SentMessage {
    pub role: String,
    pub items: Vec<SentItem>,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum SentItem {
    Text(String),
    /// A tool call the assistant made; `arguments` as a JSON text.
    Call {
        id: String,
        name: String,
        arguments: String,
    },
    /// A tool's result; `is_error` only where the protocol says so (Anthropic).
    Result {
        call_id: String,
        output: String,
        is_error: bool,
    },
    /// An attached file: `kind` is `image` or `file`/`document`, `source` its URL or type.
    Media {
        kind: String,
        source: String,
    },
}

impl SentRequest {
    /// Reads a recorded request body of any of the protocols.
    pub fn from_body(body: &Value) -> SentRequest {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
        let tools = body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| text(t.pointer("/function/name").or_else(|| t.get("name"))))
                    .collect()
            })
            .unwrap_or_default();
        let mut system = joined_text(body.get("system"));
        let mut messages = Vec::new();
        for m in body["messages"].as_array().into_iter().flatten() {
            let role = text(m.get("role"));
            if role == "system" {
                system = joined_text(m.get("content"));
                continue;
            }
            let mut items = content_items(m.get("content"));
            for call in m["tool_calls"].as_array().into_iter().flatten() {
                items.push(SentItem::Call {
                    id: text(call.get("id")),
                    name: text(call.pointer("/function/name")),
                    arguments: text(call.pointer("/function/arguments")),
                });
            }
            if role == "tool" {
                items = vec![SentItem::Result {
                    call_id: text(m.get("tool_call_id")),
                    output: joined_text(m.get("content")),
                    is_error: false,
                }];
            }
            messages.push(SentMessage { role, items });
        }
        if let Some(input) = body["input"].as_array() {
            system = text(body.get("instructions"));
            messages = input_messages(input);
        }
        SentRequest {
            model: text(body.get("model")),
            tools,
            system,
            messages,
        }
    }

    /// Every tool result sent, in order: `(call id, output)`.
    pub fn results(&self) -> Vec<(String, String)> {
        self.items()
            .filter_map(|i| match i {
                SentItem::Result {
                    call_id, output, ..
                } => Some((call_id.clone(), output.clone())),
                _ => None,
            })
            .collect()
    }

    /// Every tool call sent back as part of the history, in order: `(id, name, arguments)`.
    pub fn calls(&self) -> Vec<(String, String, String)> {
        self.items()
            .filter_map(|i| match i {
                SentItem::Call {
                    id,
                    name,
                    arguments,
                } => Some((id.clone(), name.clone(), arguments.clone())),
                _ => None,
            })
            .collect()
    }

    /// The roles of the messages, in order, with `system` first when a system prompt was sent.
    pub fn roles(&self) -> Vec<String> {
        let system = (!self.system.is_empty()).then(|| "system".to_string());
        system
            .into_iter()
            .chain(self.messages.iter().map(|m| m.role.clone()))
            .collect()
    }

    fn items(&self) -> impl Iterator<Item = &SentItem> {
        self.messages.iter().flat_map(|m| m.items.iter())
    }
}

/// The text of a field sent either as a string or as a list of text blocks (how a system
/// prompt or a message carries cache breakpoints), the blocks' texts joined by newlines.
fn joined_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The items of a Responses `input`, as messages: each message item by its role, calls and
/// reasoning joined to the assistant message before them, each call output a `tool` message.
fn input_messages(input: &[Value]) -> Vec<SentMessage> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    let mut messages: Vec<SentMessage> = Vec::new();
    for item in input {
        let (role, items) = match item["type"].as_str().unwrap_or("message") {
            "message" => (text(item.get("role")), content_items(item.get("content"))),
            "function_call" => (
                "assistant".to_string(),
                vec![SentItem::Call {
                    id: text(item.get("call_id")),
                    name: text(item.get("name")),
                    arguments: text(item.get("arguments")),
                }],
            ),
            "function_call_output" => (
                "tool".to_string(),
                vec![SentItem::Result {
                    call_id: text(item.get("call_id")),
                    output: text(item.get("output")),
                    is_error: false,
                }],
            ),
            // Reasoning sent back, shown as a marked text with its summary.
            "reasoning" => {
                let summary: Vec<String> = item["summary"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|s| text(s.get("text")))
                    .collect();
                let label = format!(
                    "[reasoning {}, encrypted {}]",
                    text(item.get("id")),
                    text(item.get("encrypted_content"))
                );
                let shown = [label, summary.join("\n\n")].join(" ");
                ("assistant".to_string(), vec![SentItem::Text(shown)])
            }
            other => (
                "assistant".to_string(),
                vec![SentItem::Text(format!("[{other} item] {item}"))],
            ),
        };
        match messages.last_mut() {
            Some(last) if role == "assistant" && last.role == role => last.items.extend(items),
            _ => messages.push(SentMessage { role, items }),
        }
    }
    messages
}

/// The items of a `content` field: a string, or a list of blocks of any protocol.
fn content_items(content: Option<&Value>) -> Vec<SentItem> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    match content {
        Some(Value::String(s)) if !s.is_empty() => vec![SentItem::Text(s.clone())],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .flat_map(|b| match b["type"].as_str().unwrap_or_default() {
                "text" | "input_text" | "output_text" => vec![SentItem::Text(text(b.get("text")))],
                "input_image" => vec![SentItem::Media {
                    kind: "image".into(),
                    source: text(b.get("image_url")),
                }],
                "input_file" => vec![SentItem::Media {
                    kind: "file".into(),
                    source: text(b.get("filename")),
                }],
                "image_url" => vec![SentItem::Media {
                    kind: "image".into(),
                    source: text(b.pointer("/image_url/url")),
                }],
                "file" => vec![SentItem::Media {
                    kind: "file".into(),
                    source: text(b.pointer("/file/filename")),
                }],
                // Base64 sources read back as the data URL a tool attached.
                kind @ ("image" | "document") => vec![SentItem::Media {
                    kind: kind.into(),
                    source: format!(
                        "data:{};base64,{}",
                        text(b.pointer("/source/media_type")),
                        text(b.pointer("/source/data"))
                    ),
                }],
                "tool_use" => vec![SentItem::Call {
                    id: text(b.get("id")),
                    name: text(b.get("name")),
                    arguments: b.get("input").map(Value::to_string).unwrap_or_default(),
                }],
                // The result's text, then the files it carried as items of their own.
                "tool_result" => {
                    let inner = content_items(b.get("content"));
                    let (texts, media): (Vec<_>, Vec<_>) = inner
                        .into_iter()
                        .partition(|i| matches!(i, SentItem::Text(_)));
                    let output = texts
                        .iter()
                        .filter_map(|i| match i {
                            SentItem::Text(t) => Some(t.as_str()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                    let result = SentItem::Result {
                        call_id: text(b.get("tool_use_id")),
                        output,
                        is_error: b["is_error"].as_bool().unwrap_or(false),
                    };
                    std::iter::once(result).chain(media).collect()
                }
                // Reasoning sent back (Anthropic thinking), shown as a marked text.
                "thinking" => vec![SentItem::Text(format!(
                    "[thinking, signature {}] {}",
                    text(b.get("signature")),
                    text(b.get("thinking"))
                ))],
                "redacted_thinking" => vec![SentItem::Text(format!(
                    "[redacted thinking] {}",
                    text(b.get("data"))
                ))],
                other => vec![SentItem::Text(format!("[{other} block] {b}"))],
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl fmt::Display for SentRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "model: {}", self.model)?;
        writeln!(f, "tools: {}", self.tools.join(", "))?;
        if !self.system.is_empty() {
            let mut start: String = self.system.chars().take(SYSTEM_CHARS).collect();
            if self.system.chars().count() > SYSTEM_CHARS {
                start.push('…');
            }
            writeln!(f, "system: {}", start.lines().next().unwrap_or_default())?;
        }
        for m in &self.messages {
            for item in &m.items {
                write_item(f, &m.role, item)?;
            }
        }
        Ok(())
    }
}

fn write_item(f: &mut fmt::Formatter<'_>, role: &str, item: &SentItem) -> fmt::Result {
    match item {
        SentItem::Text(text) => block(f, &format!("{role}:"), text),
        SentItem::Call {
            id,
            name,
            arguments,
        } => writeln!(f, "{role} → {name} {id} {arguments}"),
        SentItem::Result {
            call_id,
            output,
            is_error,
        } => {
            let error = if *is_error { " (error)" } else { "" };
            block(f, &format!("{role} ← {call_id}{error}"), output)
        }
        SentItem::Media { kind, source } => {
            let mut source = source.clone();
            if source.chars().count() > URL_CHARS {
                let len = source.len();
                source = source.chars().take(URL_CHARS).collect();
                write!(source, "… ({len} chars)")?;
            }
            writeln!(f, "{role} [{kind}] {source}")
        }
    }
}

/// `label text` on one line, or the label and the text's lines indented below it.
fn block(f: &mut fmt::Formatter<'_>, label: &str, text: &str) -> fmt::Result {
    if !text.contains('\n') {
        return writeln!(f, "{label} {text}");
    }
    writeln!(f, "{label}")?;
    for line in text.lines() {
        if line.is_empty() {
            writeln!(f)?;
        } else {
            writeln!(f, "    {line}")?;
        }
    }
    Ok(())
}

/// Renders several requests in order, each under a `## request N` heading; a tool list equal
/// to the one before is shown as `(same)`.
pub fn render_requests(bodies: &[Value]) -> String {
    render_requests_against(bodies, &|_| None)
}

/// Like [`render_requests`], with each tool list written relative to the default surface of
/// the request's model (`default_for(model)`): `(default)` when equal, `(default) -a +b` when
/// tools were left out or added, so adding a tool to the house changes no such rendering.
pub fn render_requests_against(
    bodies: &[Value],
    default_for: &dyn Fn(&str) -> Option<Vec<String>>,
) -> String {
    let mut out = String::new();
    let mut previous_tools: Option<Vec<String>> = None;
    for (n, body) in bodies.iter().enumerate() {
        let mut sent = SentRequest::from_body(body);
        let same = previous_tools.as_ref() == Some(&sent.tools);
        previous_tools = Some(sent.tools.clone());
        if let Some(relative) = default_for(&sent.model).and_then(|d| relative(&sent.tools, &d)) {
            sent.tools = vec![relative];
        } else if same {
            sent.tools = vec!["(same)".into()];
        }
        let _ = write!(out, "## request {}\n{sent}", n + 1);
    }
    out
}

/// `tools` written against `default`: `(default)`, then `-id` for each default tool left out
/// and `+id` for each one added. `None` when the common tools are in another order, which
/// only the full list shows.
pub fn relative(tools: &[String], default: &[String]) -> Option<String> {
    let kept: Vec<&String> = default.iter().filter(|d| tools.contains(d)).collect();
    let common: Vec<&String> = tools.iter().filter(|t| default.contains(t)).collect();
    if kept != common {
        return None;
    }
    let mut text = String::from("(default)");
    for d in default.iter().filter(|d| !tools.contains(d)) {
        text.push_str(&format!(" -{d}"));
    }
    for t in tools.iter().filter(|t| !default.contains(t)) {
        text.push_str(&format!(" +{t}"));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_protocols_read_into_one_shape() {
        let openai = json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\":\"a\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "c1", "content": "one\ntwo"},
            ],
            "tools": [{"type": "function", "function": {"name": "read"}}],
        });
        let anthropic = json!({
            "model": "m",
            "system": "be brief",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "c1", "name": "read", "input": {"filePath": "a"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "one\ntwo", "is_error": true}
                ]},
            ],
            "tools": [{"name": "read", "input_schema": {}}],
        });
        let responses = json!({
            "model": "m",
            "instructions": "be brief",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
                {"type": "reasoning", "id": "rs_1", "encrypted_content": "enc", "summary": [{"type": "summary_text", "text": "Plan."}]},
                {"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{\"filePath\":\"a\"}"},
                {"type": "function_call_output", "call_id": "c1", "output": "one\ntwo"},
                {"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64,QQ"}]},
            ],
            "tools": [{"type": "function", "name": "read", "parameters": {}}],
        });
        let a = SentRequest::from_body(&openai);
        let b = SentRequest::from_body(&anthropic);
        let c = SentRequest::from_body(&responses);
        assert_eq!(a.results(), b.results());
        assert_eq!(a.calls(), b.calls());
        assert_eq!((c.results(), c.calls()), (a.results(), a.calls()));
        assert_eq!(c.roles(), ["system", "user", "assistant", "tool", "user"]);
        assert_eq!(c.tools, ["read"]);
        assert_eq!(
            c.to_string(),
            "model: m\ntools: read\nsystem: be brief\nuser: go\nassistant: [reasoning rs_1, encrypted enc] Plan.\nassistant → read c1 {\"filePath\":\"a\"}\ntool ← c1\n    one\n    two\nuser [image] data:image/png;base64,QQ\n"
        );
        assert_eq!(a.tools, ["read"]);
        assert_eq!(a.roles(), ["system", "user", "assistant", "tool"]);
        assert_eq!(
            a.to_string(),
            "model: m\ntools: read\nsystem: be brief\nuser: go\nassistant → read c1 {\"filePath\":\"a\"}\ntool ← c1\n    one\n    two\n"
        );
        assert!(b.to_string().contains("user ← c1 (error)\n"), "{b}");
        // Content sent as text blocks (cache breakpoints) reads the same as plain strings.
        let marked = json!({
            "model": "m",
            "system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "go", "cache_control": {"type": "ephemeral"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "out"}]},
            ],
        });
        let marked = SentRequest::from_body(&marked);
        assert_eq!(marked.system, "be brief");
        assert_eq!(marked.messages[0].items, [SentItem::Text("go".into())]);
        assert_eq!(marked.results(), [("c1".to_string(), "out".to_string())]);
        let both = render_requests(&[openai.clone(), openai]);
        assert!(
            both.contains("## request 2\nmodel: m\ntools: (same)\n"),
            "{both}"
        );
    }

    #[test]
    fn tool_lists_are_written_against_the_default_surface() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let default = names(&["read", "edit", "bash"]);
        assert_eq!(relative(&default, &default).as_deref(), Some("(default)"));
        assert_eq!(
            relative(&names(&["read", "bash", "wc"]), &default).as_deref(),
            Some("(default) -edit +wc")
        );
        assert_eq!(relative(&names(&["bash", "read"]), &default), None);
        let body = json!({"model": "m", "tools": [{"function": {"name": "read"}}]});
        let text = render_requests_against(&[body.clone(), body], &|model: &str| {
            (model == "m").then(|| names(&["read", "bash"]))
        });
        assert_eq!(
            text.matches("tools: (default) -bash\n").count(),
            2,
            "{text}"
        );
    }
}
