//! Strata's terminal client (floor 7): a client of the server's API that never touches
//! sessions, files or tools itself.
//!
//! - [`client`]: the one [`Client`] interface, and its HTTP + SSE transport.
//! - [`event`]: the server's events, the protocol's [`ServerEvent`]s, decoded from the stream.
//! - [`model`]: the protocol's sessions and requests, and messages and parts in the form the
//!   UI draws them.
//! - [`state`]: the UI [`State`] and the pure reducer that applies events to it.
//! - [`app`]: the [`App`]: state plus prompt, dialogs and keys, turning keys into actions;
//!   every change to the app happens in its update code.
//! - [`run`]: the event loop ([`run()`](run::run)); [`terminal`]: entering and restoring.
//! - [`view`]: drawing the app, which it only reads ([`view::draw`]); markdown, highlighting,
//!   tool cards, and the [`ViewState`](view::ViewState) the runtime keeps between frames.

pub mod app;
pub mod client;
pub mod event;
pub mod model;
pub mod run;
pub mod state;
pub mod terminal;
pub mod view;

pub use app::{Action, App, Reply};
pub use client::{Client, ClientError, ClientEvent, HttpClient, HttpOptions, Prompt};
pub use event::{Envelope, ServerEvent};
pub use state::{Effect, State};
