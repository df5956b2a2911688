//! An ACP prompt as the text of a Strata turn. Text blocks are the message; files the editor
//! sends come after it as context: an embedded resource with its text, a resource link as the
//! path for the model to read. A turn takes text only, so an image, audio or binary resource is
//! named in a note instead of sent (`initialize` says images are not supported).

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};

/// The turn's text for `blocks`; empty when they hold no text at all.
pub(crate) fn text(blocks: &[ContentBlock]) -> String {
    let mut message = Vec::new();
    let mut context = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => message.push(t.text.clone()),
            ContentBlock::ResourceLink(l) => context.push(format!(
                "The user referred to the file {} ({}); read it if it matters.",
                path_of(&l.uri),
                l.name
            )),
            ContentBlock::Resource(r) => context.push(match &r.resource {
                EmbeddedResourceResource::TextResourceContents(t) => format!(
                    "<file path=\"{}\">\n{}\n</file>",
                    path_of(&t.uri),
                    t.text.trim_end_matches('\n')
                ),
                EmbeddedResourceResource::BlobResourceContents(b) => format!(
                    "The user attached {}, which is not text and was not sent.",
                    path_of(&b.uri)
                ),
                _ => "The user attached a resource of a kind Strata cannot read.".into(),
            }),
            ContentBlock::Image(_) | ContentBlock::Audio(_) => context
                .push("The user attached an image or audio, which this agent cannot see.".into()),
            _ => {}
        }
    }
    let message = message.join("\n\n");
    if context.is_empty() || message.trim().is_empty() {
        return message;
    }
    format!("{message}\n\n{}", context.join("\n\n"))
}

/// A `file://` URI as a path; any other URI as it is.
fn path_of(uri: &str) -> &str {
    uri.strip_prefix("file://").unwrap_or(uri)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn blocks(v: serde_json::Value) -> Vec<ContentBlock> {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn text_blocks_are_the_message_and_files_follow_as_context() {
        let b = blocks(json!([
            {"type": "text", "text": "Fix the bug"},
            {"type": "resource_link", "uri": "file:///p/src/a.rs", "name": "a.rs"},
            {"type": "resource", "resource": {"uri": "file:///p/b.rs", "text": "fn b() {}\n"}},
        ]));
        assert_eq!(
            text(&b),
            "Fix the bug\n\nThe user referred to the file /p/src/a.rs (a.rs); read it if it \
             matters.\n\n<file path=\"/p/b.rs\">\nfn b() {}\n</file>"
        );
    }

    #[test]
    fn context_alone_is_no_prompt_and_images_are_named() {
        let b = blocks(json!([{"type": "resource_link", "uri": "file:///a", "name": "a"}]));
        assert_eq!(text(&b), "");
        let b = blocks(json!([
            {"type": "text", "text": "look"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"},
        ]));
        assert!(text(&b).ends_with("which this agent cannot see."));
    }
}
