//! The server API's wire types: what `strata serve` sends and accepts, in opencode's shapes,
//! so opencode's own clients and Strata's TUI read the same JSON.
//!
//! - [`event`]: the event stream. Each item of `GET /event` is an [`Envelope`]
//!   (`{"id", "type", "properties"}` plus Strata's optional per-session `seq`); each item of
//!   `GET /global/event` is a [`GlobalEnvelope`] (`{"directory", "project"?, "payload"}`).
//! - [`view`]: sessions, messages and parts as the API shows them.
//! - [`request`]: permission and question requests, todos, file diffs, and the bodies clients
//!   post (prompts, replies, new sessions), plus the error body.
//! - [`command`]: the commands a session can run (the MCP servers' prompts) and the body that
//!   runs one.
//! - [`tools`]: a session's tools, loaded or deferred, and their counts.
//! - [`credentials`]: the server's Basic-auth credentials from the environment, read one way
//!   by the server and its clients.
//!
//! Resuming a stream: stored events carry an SSE `id:` line holding a cursor (a decimal integer
//! that only grows, server-wide); a client reconnecting with `Last-Event-ID: <cursor>` gets
//! every stored event after it. Live-only items (text deltas, heartbeats, `server.connected`)
//! carry no cursor and no `seq`. Within one session, stored events have `seq` 1, 2, 3, … with
//! no gaps, so a client that sees a jump knows it missed something and re-fetches the session.

pub mod command;
pub mod credentials;
pub mod event;
pub mod request;
pub mod tools;
pub mod view;

#[cfg(test)]
mod lenient_tests;

pub use command::{CommandBody, CommandInfo};
pub use credentials::ServerCredentials;
pub use event::{Decoded, Envelope, GlobalEnvelope, ServerEvent};
pub use request::{
    ApiError, FileDiff, ModelChoice, PermissionReply, PermissionReplyBody, PermissionRequest,
    PermissionRule, PromptBody, PromptPart, QuestionInfo, QuestionOption, QuestionReplyBody,
    QuestionRequest, SessionCreateBody, SummarizeBody, Todo, ToolRef,
};
pub use tools::{SessionTool, SessionTools};
pub use view::{MessageEntry, MessageView, PartView, SessionInfo, SessionTime};
