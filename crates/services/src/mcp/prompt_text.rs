//! MCP prompts as the text of a turn, in plain functions over a prompt's declaration
//! ([`McpPrompt`]): the words after a command split like a shell would ([`split_words`]),
//! those words filling the prompt's declared arguments ([`fill`]: in order, or as
//! `name=value`), and the prompt's messages rendered as one user message ([`render`]).

use rmcp::model::{ContentBlock, PromptMessage, ResourceContents, Role};
use serde_json::{Map, Value};

/// One argument a prompt declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArg {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
}

/// One prompt a connected server offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPrompt {
    pub server: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub arguments: Vec<PromptArg>,
}

impl McpPrompt {
    /// The command front-ends show it as: `server:prompt`.
    pub fn command(&self) -> String {
        format!("{}:{}", self.server, self.name)
    }

    /// Each argument as a usage line shows it: `city`, or `[state]` when optional.
    pub fn hints(&self) -> Vec<String> {
        self.arguments
            .iter()
            .map(|a| {
                if a.required {
                    a.name.clone()
                } else {
                    format!("[{}]", a.name)
                }
            })
            .collect()
    }

    /// The arguments for a usage line: `city [state]`.
    pub fn usage(&self) -> String {
        self.hints().join(" ")
    }
}

/// Why the words after a command do not fit the prompt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptUsage {
    #[error(
        "`{command}` needs {}: give the values in order (`{command} {usage}`) or as \
         `name=value`",
        needs(.missing)
    )]
    Missing {
        command: String,
        usage: String,
        missing: Vec<String>,
    },
    #[error(
        "`{command}` takes at most {max} argument(s) (`{command} {usage}`), not {got}; quote a \
         value that has spaces"
    )]
    TooMany {
        command: String,
        usage: String,
        max: usize,
        got: usize,
    },
    #[error("the arguments have an unclosed {quote} quote; close it or escape it with `\\`")]
    Unclosed { quote: char },
}

fn needs(missing: &[String]) -> String {
    let names: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
    match names.len() {
        1 => format!("the argument {}", names[0]),
        _ => format!("the arguments {}", names.join(", ")),
    }
}

/// `text` cut into words at whitespace; `"…"` and `'…'` keep spaces, `\` escapes the next
/// character (outside single quotes).
pub fn split_words(text: &str) -> Result<Vec<String>, PromptUsage> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.get_or_insert_with(String::new).push(c),
            (_, '\\') => {
                let next = chars.next().unwrap_or('\\');
                word.get_or_insert_with(String::new).push(next);
            }
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (_, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(quote) = quote {
        return Err(PromptUsage::Unclosed { quote });
    }
    words.extend(word);
    Ok(words)
}

/// The prompt's arguments from `words`: a word `name=value` whose name the prompt declares
/// sets that argument; the other words fill the remaining arguments in declared order.
/// Missing required arguments and surplus words are usage errors naming them.
pub fn fill(prompt: &McpPrompt, words: &[String]) -> Result<Map<String, Value>, PromptUsage> {
    let declared = |name: &str| prompt.arguments.iter().any(|a| a.name == name);
    let mut args = Map::new();
    let mut positional = Vec::new();
    for word in words {
        match word.split_once('=') {
            Some((name, value)) if declared(name) => {
                args.insert(name.to_string(), Value::String(value.to_string()));
            }
            _ => positional.push(word.clone()),
        }
    }
    let free: Vec<&str> = prompt
        .arguments
        .iter()
        .map(|a| a.name.as_str())
        .filter(|n| !args.contains_key(*n))
        .collect();
    if positional.len() > free.len() {
        return Err(PromptUsage::TooMany {
            command: prompt.command(),
            usage: prompt.usage(),
            max: prompt.arguments.len(),
            got: words.len(),
        });
    }
    for (name, value) in free.iter().zip(positional) {
        args.insert(name.to_string(), Value::String(value));
    }
    let missing: Vec<String> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !args.contains_key(&a.name))
        .map(|a| a.name.clone())
        .collect();
    if !missing.is_empty() {
        return Err(PromptUsage::Missing {
            command: prompt.command(),
            usage: prompt.usage(),
            missing,
        });
    }
    Ok(args)
}

/// The prompt's messages as one user message: each message's content in order, separated by
/// a blank line; an assistant message is marked as such, embedded text resources come with
/// their URI, and what a turn cannot carry (images, audio, binary resources) is named.
pub fn render(messages: &[PromptMessage]) -> String {
    let parts: Vec<String> = messages
        .iter()
        .map(|m| {
            let body = content(&m.content);
            match m.role {
                Role::Assistant => format!("Assistant: {body}"),
                _ => body,
            }
        })
        .collect();
    parts.join("\n\n")
}

fn content(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => format!("(an image, {}, was left out)", i.mime_type),
        ContentBlock::Audio(a) => format!("(an audio clip, {}, was left out)", a.mime_type),
        ContentBlock::ResourceLink(l) => format!("Resource: {}", l.uri),
        ContentBlock::Resource(r) => match &r.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("<resource uri=\"{uri}\">\n{}\n</resource>", text.trim_end())
            }
            ResourceContents::BlobResourceContents { uri, mime_type, .. } => format!(
                "(the binary resource {uri}, {}, was left out; read it with read_mcp_resource)",
                mime_type.as_deref().unwrap_or("application/octet-stream")
            ),
            // A kind of contents newer than this client.
            _ => "(a resource of an unknown kind was left out)".into(),
        },
        // A kind of content newer than this client.
        _ => "(content of an unknown kind was left out)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(args: &[(&str, bool)]) -> McpPrompt {
        McpPrompt {
            server: "everything".into(),
            name: "args-prompt".into(),
            title: None,
            description: None,
            arguments: args
                .iter()
                .map(|(n, r)| PromptArg {
                    name: n.to_string(),
                    description: None,
                    required: *r,
                })
                .collect(),
        }
    }

    fn words(s: &str) -> Vec<String> {
        split_words(s).unwrap()
    }

    #[test]
    fn words_split_at_spaces_and_quotes_keep_them() {
        assert_eq!(
            words(r#"  Paris "New York" 'it''s' a\ b "say \"hi\"" "" "#),
            ["Paris", "New York", "its", "a b", "say \"hi\"", ""]
        );
        assert_eq!(words(""), Vec::<String>::new());
        assert_eq!(
            split_words("\"open"),
            Err(PromptUsage::Unclosed { quote: '"' })
        );
    }

    #[test]
    fn arguments_fill_in_order_or_by_name() {
        let p = prompt(&[("city", true), ("state", false)]);
        let got = fill(&p, &words("Paris")).unwrap();
        assert_eq!(Value::Object(got), serde_json::json!({"city": "Paris"}));
        let got = fill(&p, &words("state=TX Austin")).unwrap();
        assert_eq!(
            Value::Object(got),
            serde_json::json!({"city": "Austin", "state": "TX"})
        );
        // A word whose name is not declared is a value like any other.
        let got = fill(&p, &words("a=b c")).unwrap();
        assert_eq!(
            Value::Object(got),
            serde_json::json!({"city": "a=b", "state": "c"})
        );
    }

    #[test]
    fn missing_and_surplus_arguments_are_usage_errors_naming_them() {
        let p = prompt(&[("city", true), ("state", false)]);
        let e = fill(&p, &[]).unwrap_err().to_string();
        assert_eq!(
            e,
            "`everything:args-prompt` needs the argument `city`: give the values in order \
             (`everything:args-prompt city [state]`) or as `name=value`"
        );
        let e = fill(&p, &words("state=TX")).unwrap_err();
        assert!(matches!(e, PromptUsage::Missing { ref missing, .. } if missing == &["city"]));
        let e = fill(&p, &words("a b c")).unwrap_err().to_string();
        assert!(
            e.contains("at most 2 argument(s)") && e.contains("not 3"),
            "{e}"
        );
        let two = prompt(&[("a", true), ("b", true)]);
        let e = fill(&two, &[]).unwrap_err().to_string();
        assert!(e.contains("the arguments `a`, `b`"), "{e}");
    }

    #[test]
    fn messages_render_as_one_user_message() {
        let messages: Vec<PromptMessage> = serde_json::from_value(serde_json::json!([
            {"role": "user", "content": {"type": "text", "text": "Look at this:"}},
            {"role": "user", "content": {"type": "resource",
                "resource": {"uri": "demo://a", "text": "alpha\n"}}},
            {"role": "user", "content": {"type": "resource",
                "resource": {"uri": "demo://b", "blob": "AAAA", "mimeType": "image/png"}}},
            {"role": "assistant", "content": {"type": "text", "text": "Seen."}},
            {"role": "user", "content": {"type": "image", "data": "AA==", "mimeType": "image/png"}},
        ]))
        .unwrap();
        assert_eq!(
            render(&messages),
            "Look at this:\n\n<resource uri=\"demo://a\">\nalpha\n</resource>\n\n(the binary \
             resource demo://b, image/png, was left out; read it with read_mcp_resource)\n\n\
             Assistant: Seen.\n\n(an image, image/png, was left out)"
        );
    }
}
