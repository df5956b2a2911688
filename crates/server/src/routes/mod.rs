//! The route handlers, one module per group; each handler is a thin call into
//! [`ServerCore`](crate::core::ServerCore). [`table`] lists every route for `/doc`.

pub mod context;
pub mod doc;
pub mod event;
pub mod global;
pub mod message;
pub mod reply;
pub mod session;
pub mod table;
