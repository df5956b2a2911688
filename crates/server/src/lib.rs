//! Strata's floor 6: the HTTP + SSE server over the agent, shaped so that opencode's own
//! clients (`opencode run --attach`, `opencode attach`) and Strata's TUI can drive it.
//!
//! - [`core`]: the transport-free server. [`ServerCore`] owns the instances (one per project
//!   directory, built on first use), the per-session turn queues, the event fan-out with replay
//!   from the store, and permission and question replies. The TUI's in-process client calls it
//!   directly; the HTTP handlers are thin wrappers over it.
//! - [`local`]: the in-process transport, a [`Local`](local::Local) handle over the core for
//!   one project: typed calls and the event stream over a channel, for a UI in this process.
//! - [`http`]: what the handlers stand on: state, auth, CORS, body limits, errors, the SSE
//!   writer.
//! - [`routes`]: one module per route group, and the [`router`] over them.
//! - [`serve`]: binding a listener (port 0 tries 4096 first) and serving until shutdown.

pub mod core;
pub mod http;
pub mod local;
pub mod routes;
pub mod serve;

pub use core::{CoreError, CoreOptions, ServerCore};
pub use http::{AuthConfig, HttpOptions};
pub use local::{Local, LocalEvent};
pub use routes::router;
