//! The `webfetch` tool (spec §8): one http(s) URL fetched through HttpClient and returned as
//! Markdown, visible text or raw HTML, or as an image attachment.

mod convert;
mod tool;

pub use convert::{markdown, visible_text};
pub use tool::{DEFAULT_TIMEOUT, Format, MAX_BYTES, MAX_TIMEOUT, Webfetch, WebfetchParams};
