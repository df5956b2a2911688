//! Messages the providers' unit tests build again and again: files attached by a tool and the
//! tool results carrying them.

use super::{ChatMessage, Media};

/// A small file of type `mime` named `name`, inlined as a data URL.
pub(crate) fn media(mime: &str, name: &str) -> Media {
    Media {
        mime: mime.into(),
        url: format!("data:{mime};base64,QUJD"),
        filename: Some(name.into()),
    }
}

/// The result of `read` call `id`, its output `read`, with `media` attached.
pub(crate) fn read_result(id: &str, is_error: bool, media: Vec<Media>) -> ChatMessage {
    ChatMessage::ToolResult {
        call_id: id.into(),
        name: "read".into(),
        output: "read".into(),
        is_error,
        media,
    }
}
