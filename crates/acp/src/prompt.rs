//! An ACP prompt as a Strata turn. Text blocks are the message; files the editor sends come
//! after it as context: an embedded resource with its text, a resource link as the path for
//! the model to read. Images (and embedded images and PDFs) are attached to the prompt as
//! opencode's `file` parts with `data:` URLs, so the model gets them as attachments; audio and
//! other binary resources are named in a note instead.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};
use serde_json::json;
use strata_protocol::wire::PromptPart;

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
                EmbeddedResourceResource::BlobResourceContents(b) if attachable(&b.mime_type) => {
                    continue;
                }
                EmbeddedResourceResource::BlobResourceContents(b) => format!(
                    "The user attached {}, which is not text and was not sent.",
                    path_of(&b.uri)
                ),
                _ => "The user attached a resource of a kind Strata cannot read.".into(),
            }),
            ContentBlock::Audio(_) => {
                context.push("The user attached audio, which this agent cannot hear.".into());
            }
            _ => {}
        }
    }
    let message = message.join("\n\n");
    if context.is_empty() || message.trim().is_empty() {
        return message;
    }
    format!("{message}\n\n{}", context.join("\n\n"))
}

/// Whether a blob of this type goes to the model as an attachment.
fn attachable(mime: &Option<String>) -> bool {
    mime.as_deref()
        .is_some_and(|m| m.starts_with("image/") || m == "application/pdf")
}

/// The images (and embedded images and PDFs) of `blocks` as `file` parts.
pub(crate) fn files(blocks: &[ContentBlock]) -> Vec<PromptPart> {
    let file = |mime: &str, data: &str, uri: Option<&str>| {
        let mut part =
            json!({"type": "file", "mime": mime, "url": format!("data:{mime};base64,{data}")});
        if let Some(name) = uri.and_then(|u| path_of(u).rsplit('/').next()) {
            part["filename"] = json!(name);
        }
        serde_json::from_value::<PromptPart>(part).ok()
    };
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Image(i) => file(&i.mime_type, &i.data, i.uri.as_deref()),
            ContentBlock::Resource(r) => match &r.resource {
                EmbeddedResourceResource::BlobResourceContents(b) if attachable(&b.mime_type) => {
                    file(b.mime_type.as_deref()?, &b.blob, Some(&b.uri))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
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
            {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
        ]));
        assert!(text(&b).ends_with("which this agent cannot hear."));
    }

    #[test]
    fn images_and_embedded_pdfs_are_attached_as_file_parts() {
        let b = blocks(json!([
            {"type": "text", "text": "look"},
            {"type": "image", "data": "iVBO", "mimeType": "image/png", "uri": "file:///p/shot.png"},
            {"type": "resource", "resource": {"uri": "file:///p/spec.pdf", "blob": "JVBE",
                                              "mimeType": "application/pdf"}},
            {"type": "resource", "resource": {"uri": "file:///p/a.bin", "blob": "AA=="}},
        ]));
        let parts = serde_json::to_value(files(&b)).unwrap();
        assert_eq!(
            parts,
            json!([
                {"type": "file", "mime": "image/png", "url": "data:image/png;base64,iVBO",
                 "filename": "shot.png"},
                {"type": "file", "mime": "application/pdf",
                 "url": "data:application/pdf;base64,JVBE", "filename": "spec.pdf"},
            ])
        );
        assert_eq!(
            text(&b),
            "look\n\nThe user attached /p/a.bin, which is not text and was not sent."
        );
    }
}
