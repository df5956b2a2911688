//! A resource read as a tool result: text parts are the output, binary parts become
//! attachments, each named by a line of the output.

use base64::Engine;
use strata_services::mcp::{ResourceBody, ResourcePart};

use crate::contract::Attachment;

/// The output and attachments for the parts read from `uri`; an error when a binary part is
/// not valid base64.
pub fn contents(uri: &str, parts: &[ResourcePart]) -> Result<(String, Vec<Attachment>), String> {
    let mut lines = Vec::new();
    let mut attachments = Vec::new();
    for part in parts {
        match &part.body {
            ResourceBody::Text(text) if parts.len() == 1 => lines.push(text.clone()),
            ResourceBody::Text(text) => lines.push(format!(
                "<resource uri=\"{}\">\n{}\n</resource>",
                part.uri,
                text.trim_end()
            )),
            ResourceBody::Blob(data) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data.trim())
                    .map_err(|e| {
                        format!(
                            "The MCP server sent the binary contents of `{}` in invalid base64 \
                             ({e}); the resource cannot be read.",
                            part.uri
                        )
                    })?;
                let mime = part
                    .mime_type
                    .clone()
                    .unwrap_or_else(|| "application/octet-stream".into());
                lines.push(format!(
                    "Binary contents of {} ({mime}, {} bytes) are attached.",
                    part.uri,
                    bytes.len()
                ));
                attachments.push(Attachment::from_bytes(mime, &bytes, file_name(&part.uri)));
            }
        }
    }
    if lines.is_empty() {
        lines.push(format!("The resource {uri} is empty."));
    }
    Ok((lines.join("\n\n"), attachments))
}

/// The URI's last path segment, when it has one.
fn file_name(uri: &str) -> Option<String> {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    let (_, last) = path.rsplit_once('/')?;
    (!last.is_empty()).then(|| last.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(uri: &str, body: ResourceBody, mime: Option<&str>) -> ResourcePart {
        ResourcePart {
            uri: uri.into(),
            mime_type: mime.map(str::to_string),
            body,
        }
    }

    #[test]
    fn one_text_part_is_the_output_as_it_is() {
        let parts = [part("x://a", ResourceBody::Text("alpha\n".into()), None)];
        let (out, files) = contents("x://a", &parts).unwrap();
        assert_eq!(out, "alpha\n");
        assert!(files.is_empty());
    }

    #[test]
    fn blobs_are_attached_and_named_and_several_texts_are_marked() {
        let parts = [
            part("x://a", ResourceBody::Text("alpha".into()), None),
            part(
                "x://dir/p.png",
                ResourceBody::Blob("AAEC".into()),
                Some("image/png"),
            ),
        ];
        let (out, files) = contents("x://a", &parts).unwrap();
        assert_eq!(
            out,
            "<resource uri=\"x://a\">\nalpha\n</resource>\n\nBinary contents of x://dir/p.png \
             (image/png, 3 bytes) are attached."
        );
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].url, "data:image/png;base64,AAEC");
        assert_eq!(files[0].filename.as_deref(), Some("p.png"));
        let bad = [part(
            "x://b",
            ResourceBody::Blob("not base64!".into()),
            None,
        )];
        let e = contents("x://b", &bad).unwrap_err();
        assert!(e.contains("`x://b`") && e.contains("invalid base64"), "{e}");
        assert_eq!(
            contents("x://c", &[]).unwrap().0,
            "The resource x://c is empty."
        );
    }
}
