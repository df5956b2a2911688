//! Strata's tools and results in MCP's shapes: a tool's effects become its annotations, and a
//! result's text and attachments become content blocks (images as image content, other files
//! as embedded blobs).

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents, Tool, ToolAnnotations};
use serde_json::{Map, Value};
use strata_tools::{Effects, ErasedTool, ToolResult};

/// The MCP hints a tool's effects stand for.
pub fn annotations(effects: Effects) -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(effects.read_only)
        .destructive(effects.destructive)
        .open_world(effects.open_world)
}

/// One advertised tool as MCP lists it: id, description, schema, annotations.
pub(crate) fn tool(t: &ErasedTool) -> Tool {
    let schema = match &*t.schema {
        Value::Object(map) => map.clone(),
        // Every tool's wire schema is an object; keep MCP's shape if one ever is not.
        _ => {
            let mut map = Map::new();
            map.insert("type".into(), Value::String("object".into()));
            map
        }
    };
    Tool::new(t.id, t.description.clone(), Arc::new(schema))
        .with_annotations(annotations(t.effects))
}

/// The content of a successful call: the output text, then each attachment.
pub fn result_content(r: &ToolResult) -> Vec<ContentBlock> {
    let mut out = vec![ContentBlock::text(r.output.clone())];
    for (i, a) in r.attachments.iter().enumerate() {
        // `data:<mime>;base64,<payload>` (Attachment's own format).
        let Some((_, data)) = a.url.split_once(";base64,") else {
            continue;
        };
        if a.mime.starts_with("image/") {
            out.push(ContentBlock::image(data, a.mime.clone()));
        } else {
            let uri = match &a.filename {
                Some(name) => format!("strata://attachment/{name}"),
                None => format!("strata://attachment/{i}"),
            };
            out.push(ContentBlock::resource(
                ResourceContents::blob(data, uri).with_mime_type(a.mime.clone()),
            ));
        }
    }
    out
}

/// A successful call.
pub(crate) fn success(r: &ToolResult) -> CallToolResult {
    CallToolResult::success(result_content(r))
}

/// A failed call, as the model would read it.
pub(crate) fn failure(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_tools::Attachment;

    #[test]
    fn effects_map_onto_the_three_hints() {
        let a = annotations(Effects::READ_ONLY);
        assert_eq!(
            (a.read_only_hint, a.destructive_hint, a.open_world_hint),
            (Some(true), Some(false), Some(false))
        );
        let w = annotations(Effects::WRITES);
        assert_eq!(
            (w.read_only_hint, w.destructive_hint),
            (Some(false), Some(true))
        );
    }

    #[test]
    fn images_become_image_content_and_other_files_blobs() {
        let r = ToolResult::new("t", "out")
            .attach(Attachment::file("image/png", "AAAA", None))
            .attach(Attachment::file(
                "application/pdf",
                "BBBB",
                Some("a.pdf".into()),
            ));
        let json = serde_json::to_value(result_content(&r)).unwrap();
        assert_eq!(json[0]["text"], "out");
        assert_eq!(json[1]["type"], "image");
        assert_eq!(json[1]["data"], "AAAA");
        assert_eq!(json[1]["mimeType"], "image/png");
        assert_eq!(json[2]["type"], "resource");
        assert_eq!(json[2]["resource"]["blob"], "BBBB");
        assert_eq!(json[2]["resource"]["uri"], "strata://attachment/a.pdf");
    }
}
