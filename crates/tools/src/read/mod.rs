//! The `read` tool: a page of a text file, a directory listing, or an image/PDF attachment.
//! The file is streamed and reading stops as soon as the page is full (spec §1).

mod instructions;
mod natural;
mod page;
mod sniff;
mod tool;

pub use page::{DEFAULT_LIMIT, MAX_BYTES, MAX_LINE_CHARS};
pub use tool::{Read, ReadParams};
