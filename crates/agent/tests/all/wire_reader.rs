//! A small reader of recorded vendor streams, for the corpus replay: what a recording says the
//! model produced (its text, its reasoning, the client tool calls, the usage, or the vendor's
//! error when the response failed), read straight
//! from the chunks and written apart from the providers' decoders, so that the replay checks
//! the decoders against the vendors rather than against themselves.

use serde_json::Value;

mod responses;

/// Which wire a recording was made on, from its file name's `<family>__` prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Chat,
    Anthropic,
    /// OpenAI's Responses API.
    Responses,
}

/// The family of `file_name`, from its `<family>__` prefix; an error naming the file for a
/// family nobody knows.
pub(crate) fn family(file_name: &str) -> Result<Family, String> {
    let prefix = file_name.split("__").next().unwrap_or_default();
    match prefix {
        "openai" | "deepseek" | "groq" | "mistral" | "xai" | "moonshot" | "openrouter" => {
            Ok(Family::Chat)
        }
        "anthropic" => Ok(Family::Anthropic),
        "responses" => Ok(Family::Responses),
        _ => Err(format!(
            "{file_name}: unknown family `{prefix}`; name the file `<family>__<name>.chunks.txt` \
             with a family listed in wire_reader::family"
        )),
    }
}

/// What a recording says the model produced.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Said {
    pub text: String,
    pub reasoning: String,
    /// The signatures of Anthropic thinking blocks, in order.
    pub signatures: Vec<String>,
    pub calls: Vec<Call>,
    pub tokens: Tokens,
    /// Responses reasoning items to send back: `(id, encrypted_content)`, in order.
    pub reasoning_items: Vec<(String, String)>,
    /// The vendor's message, when the recorded response failed instead of completing.
    pub failure: Option<String>,
}

/// A client tool call: its arguments as JSON (`{}` when the model sent none).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// Token counts in the shape a `step-finish` part stores them: `output` without reasoning,
/// `input` without the cached part.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tokens {
    pub input: u64,
    pub output: u64,
    pub reasoning: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl Tokens {
    /// The counts of a stored `step-finish` part's data.
    pub(crate) fn stored(finish: &Value) -> Tokens {
        let n = |p: &str| finish.pointer(p).and_then(Value::as_u64).unwrap_or(0);
        Tokens {
            input: n("/tokens/input"),
            output: n("/tokens/output"),
            reasoning: n("/tokens/reasoning"),
            cache_read: n("/tokens/cache/read"),
            cache_write: n("/tokens/cache/write"),
        }
    }
}

/// Reads the chunks of a recording of `family`.
pub(crate) fn read(family: Family, chunks: &[Value]) -> Said {
    match family {
        Family::Chat => read_chat(chunks),
        Family::Anthropic => read_anthropic(chunks),
        Family::Responses => responses::read_responses(chunks),
    }
}

/// A call being gathered: its key in the stream, id, name and raw arguments.
struct Gathering {
    key: String,
    id: String,
    name: String,
    args: String,
}

fn finish_calls(calls: Vec<Gathering>) -> Vec<Call> {
    calls
        .into_iter()
        .map(|c| Call {
            id: c.id,
            name: c.name,
            arguments: if c.args.trim().is_empty() {
                Value::Object(Default::default())
            } else {
                serde_json::from_str(&c.args).unwrap_or(Value::String(c.args))
            },
        })
        .collect()
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn read_chat(chunks: &[Value]) -> Said {
    let mut said = Said::default();
    let mut calls: Vec<Gathering> = Vec::new();
    let mut usage = Value::Null;
    for chunk in chunks {
        let reports = ["/usage", "/choices/0/usage", "/x_groq/usage"];
        if let Some(u) = reports
            .iter()
            .find_map(|p| chunk.pointer(p).filter(|u| u.is_object()))
        {
            usage = u.clone();
        }
        let Some(delta) = chunk.pointer("/choices/0/delta") else {
            continue;
        };
        if let Some(r) = ["reasoning_content", "reasoning"]
            .iter()
            .find_map(|k| delta.get(*k).and_then(Value::as_str))
        {
            said.reasoning.push_str(r);
        }
        match delta.get("content") {
            Some(Value::String(s)) => said.text.push_str(s),
            Some(Value::Array(items)) => {
                for item in items {
                    match str_at(item, "/type") {
                        "text" => said.text.push_str(str_at(item, "/text")),
                        "thinking" => match item.get("thinking") {
                            Some(Value::String(s)) => said.reasoning.push_str(s),
                            Some(Value::Array(parts)) => {
                                parts
                                    .iter()
                                    .for_each(|p| said.reasoning.push_str(str_at(p, "/text")));
                            }
                            _ => {}
                        },
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        let fragments = delta.get("tool_calls").and_then(Value::as_array);
        for fragment in fragments.into_iter().flatten() {
            chat_fragment(&mut calls, fragment);
        }
    }
    said.calls = finish_calls(calls);
    said.tokens = chat_tokens(&usage);
    said
}

/// Adds one `tool_calls` fragment: keyed by its `index`, else by its `id`, else it continues
/// the last call.
fn chat_fragment(calls: &mut Vec<Gathering>, fragment: &Value) {
    let id = str_at(fragment, "/id");
    let key = match fragment.get("index").and_then(Value::as_u64) {
        Some(i) => format!("index {i}"),
        None if !id.is_empty() => format!("id {id}"),
        None => calls.last().map(|c| c.key.clone()).unwrap_or_default(),
    };
    if !calls.iter().any(|c| c.key == key) {
        calls.push(Gathering {
            key: key.clone(),
            id: id.to_string(),
            name: String::new(),
            args: String::new(),
        });
    }
    let Some(call) = calls.iter_mut().find(|c| c.key == key) else {
        return;
    };
    let name = str_at(fragment, "/function/name");
    if call.name.is_empty() {
        call.name = name.to_string();
    }
    call.args.push_str(str_at(fragment, "/function/arguments"));
}

/// Chat usage: cached input inside `prompt_tokens`, reasoning inside `completion_tokens`
/// unless the total shows it was counted beside it (xAI).
fn chat_tokens(usage: &Value) -> Tokens {
    let n = |p: &str| usage.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    let prompt = n("/prompt_tokens");
    let cached = match n("/prompt_tokens_details/cached_tokens") {
        0 => n("/prompt_cache_hit_tokens"),
        c => c,
    };
    let completion = n("/completion_tokens");
    let reasoning = n("/completion_tokens_details/reasoning_tokens");
    let visible = if reasoning > 0 && n("/total_tokens") == prompt + completion + reasoning {
        completion
    } else {
        completion.saturating_sub(reasoning)
    };
    Tokens {
        input: prompt - cached,
        output: visible,
        reasoning,
        cache_read: cached,
        cache_write: 0,
    }
}

fn read_anthropic(chunks: &[Value]) -> Said {
    let mut said = Said::default();
    let mut calls: Vec<Gathering> = Vec::new();
    let mut signatures: Vec<(u64, String)> = Vec::new();
    let mut usage = serde_json::Map::new();
    let mut started = false;
    for chunk in chunks {
        let index = chunk.get("index").and_then(Value::as_u64).unwrap_or(0);
        match str_at(chunk, "/type") {
            "message_start" if !started => {
                started = true;
                if let Some(u) = chunk.pointer("/message/usage").and_then(Value::as_object) {
                    usage.extend(u.clone());
                }
            }
            "content_block_start" => {
                let block = &chunk["content_block"];
                match str_at(block, "/type") {
                    "text" => said.text.push_str(str_at(block, "/text")),
                    "thinking" => {
                        said.reasoning.push_str(str_at(block, "/thinking"));
                        signatures.push((index, str_at(block, "/signature").to_string()));
                    }
                    "tool_use" => calls.push(Gathering {
                        key: index.to_string(),
                        id: str_at(block, "/id").to_string(),
                        name: str_at(block, "/name").to_string(),
                        args: block
                            .get("input")
                            .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                            .map(Value::to_string)
                            .unwrap_or_default(),
                    }),
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = &chunk["delta"];
                match str_at(delta, "/type") {
                    "text_delta" => said.text.push_str(str_at(delta, "/text")),
                    "thinking_delta" => said.reasoning.push_str(str_at(delta, "/thinking")),
                    "signature_delta" => {
                        if let Some((_, s)) = signatures.iter_mut().find(|(i, _)| *i == index) {
                            s.push_str(str_at(delta, "/signature"));
                        }
                    }
                    "input_json_delta" => {
                        let key = index.to_string();
                        if let Some(call) = calls.iter_mut().find(|c| c.key == key) {
                            call.args.push_str(str_at(delta, "/partial_json"));
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(u) = chunk.get("usage").and_then(Value::as_object) {
                    usage.extend(u.clone());
                }
            }
            "message_stop" => break,
            _ => {}
        }
    }
    said.signatures = signatures
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| !s.is_empty())
        .collect();
    said.calls = finish_calls(calls);
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    said.tokens = Tokens {
        input: n("input_tokens"),
        output: n("output_tokens"),
        reasoning: 0,
        cache_read: n("cache_read_input_tokens"),
        cache_write: n("cache_creation_input_tokens"),
    };
    said
}

#[test]
fn the_reader_knows_each_dialect_it_checks() {
    reads_chat();
    reads_responses();
    assert_eq!(family("responses__x.chunks.txt"), Ok(Family::Responses));
    assert!(
        family("other__x.chunks.txt")
            .unwrap_err()
            .contains("other__x")
    );
}

fn reads_chat() {
    let chunks: Vec<Value> = [
        r#"{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hm"}]},{"type":"text","text":"4"}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"read","arguments":"{\"x\":"}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":303,"prompt_tokens_details":{"cached_tokens":11},"completion_tokens_details":{"reasoning_tokens":290}}}"#,
    ]
    .iter()
    .map(|c| serde_json::from_str(c).unwrap())
    .collect();
    let said = read(Family::Chat, &chunks);
    assert_eq!((said.text.as_str(), said.reasoning.as_str()), ("4", "hm"));
    assert_eq!(said.calls[0].arguments, serde_json::json!({"x": 1}));
    let tokens = Tokens {
        input: 1,
        output: 1,
        reasoning: 290,
        cache_read: 11,
        cache_write: 0,
    };
    assert_eq!(said.tokens, tokens);
}

/// Message texts are joined by a blank line unless a call or reasoning text came between;
/// summary parts too; vendor-side items are no calls; nothing after the first
/// `response.completed` counts.
fn reads_responses() {
    let chunks: Vec<Value> = [
        r#"{"type":"response.output_item.added","item":{"id":"m1","type":"message"}}"#,
        r#"{"type":"response.output_text.delta","item_id":"m1","delta":"Looking"}"#,
        r#"{"type":"response.output_item.added","item":{"id":"m2","type":"message"}}"#,
        r#"{"type":"response.output_text.delta","item_id":"m2","delta":"Found"}"#,
        r#"{"type":"response.output_item.added","item":{"id":"rs","type":"reasoning"}}"#,
        r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs","summary_index":0,"delta":"a"}"#,
        r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs","summary_index":1,"delta":"b"}"#,
        r#"{"type":"response.output_item.done","item":{"id":"rs","type":"reasoning","encrypted_content":"enc"}}"#,
        r#"{"type":"response.output_item.added","item":{"id":"ws","type":"web_search_call"}}"#,
        r#"{"type":"response.output_item.done","item":{"id":"ws","type":"web_search_call","status":"completed"}}"#,
        r#"{"type":"response.output_item.added","item":{"id":"fc","type":"function_call","call_id":"c1","name":"read","arguments":""}}"#,
        r#"{"type":"response.function_call_arguments.delta","item_id":"fc","delta":"{\"filePath\""}"#,
        r#"{"type":"response.output_item.done","item":{"id":"fc","type":"function_call","call_id":"c1","name":"read","arguments":"{\"filePath\":\"x\"}"}}"#,
        r#"{"type":"response.output_item.added","item":{"id":"m3","type":"message"}}"#,
        r#"{"type":"response.output_text.delta","item_id":"m3","delta":"Done"}"#,
        r#"{"type":"response.output_item.added","item":{"id":"ws2","type":"web_search_call"}}"#,
        r#"{"type":"response.output_item.added","item":{"id":"rs2","type":"reasoning"}}"#,
        r#"{"type":"response.output_item.added","item":{"id":"m4","type":"message"}}"#,
        r#"{"type":"response.output_text.delta","item_id":"m4","delta":"More"}"#,
        r#"{"type":"response.completed","response":{"usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":40},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":10}}}}"#,
        r#"{"type":"response.output_item.done","item":{"id":"fc2","type":"function_call","call_id":"c2","name":"read","arguments":"{}"}}"#,
    ]
    .iter()
    .map(|c| serde_json::from_str(c).unwrap())
    .collect();
    let said = read(Family::Responses, &chunks);
    assert_eq!(said.text, "Looking\n\nFoundDone\n\nMore");
    assert_eq!(said.reasoning, "a\n\nb");
    assert_eq!(said.reasoning_items, vec![("rs".into(), "enc".into())]);
    let call = Call {
        id: "c1".into(),
        name: "read".into(),
        arguments: serde_json::json!({"filePath": "x"}),
    };
    assert_eq!(
        said.calls,
        vec![call],
        "one client call, none after the first response"
    );
    let tokens = Tokens {
        input: 60,
        output: 20,
        reasoning: 10,
        cache_read: 40,
        cache_write: 0,
    };
    assert_eq!(said.tokens, tokens);
    assert_eq!(said.failure, None);

    let failed: Vec<Value> = [
        r#"{"type":"error","error":{"code":"insufficient_quota","message":"Out of quota."}}"#,
        r#"{"type":"response.failed","response":{"error":{"message":"later"}}}"#,
    ]
    .iter()
    .map(|c| serde_json::from_str(c).unwrap())
    .collect();
    let said = read(Family::Responses, &failed);
    assert_eq!(said.failure.as_deref(), Some("Out of quota."));
}
