//! Strata's floor 0: the wire contract, serde types only.
//!
//! What the agent stores in SQLite and emits to front-ends, and what a server or a terminal UI
//! reads back. Field names and value shapes follow opencode's (`callID`, `state.status`,
//! `time.start`, …), so `--format json` lines and session exports read the same as there.
//!
//! - [`store`]: the rows of the session database — [`Session`], [`Message`], [`Part`] and the
//!   numbered [`Event`]s — and the event kinds.
//! - [`tool`]: a tool call's part, [`ToolPart`], with its states pending → running →
//!   completed or error.
//! - [`part`]: the other part kinds (text, reasoning, step start and finish, compaction) and
//!   their names.
//! - [`message`]: the data of user and assistant messages, token counts, errors.
//! - [`event`]: what a running loop tells a front-end ([`LoopEvent`]), session statuses.
//! - [`view`]: the opencode-shaped JSON views of stored rows (`{id, sessionID, type, …}`).
//! - [`wire`]: the server API's types — the typed event stream, requests, replies and bodies.
//! - [`sse`]: the one decoder of server-sent events, a pure byte-to-event codec with no I/O.
//!
//! This crate depends on nothing of ours.

pub mod event;
pub mod message;
pub mod part;
pub mod sse;
pub mod store;
pub mod tool;
pub mod view;
pub mod wire;

pub use event::{LoopEvent, SessionStatus};
pub use message::{AssistantMessage, ErrorInfo, Tokens, UserMessage, UserModel};
pub use part::{CompactionPart, PartData, ReasoningPart, StepFinish, TextPart};
pub use store::{Event, Message, Part, Role, Session};
pub use tool::{Attachment, ToolPart, ToolState};
