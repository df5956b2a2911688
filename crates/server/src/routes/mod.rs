//! The route handlers, one module per group; each handler is a thin call into
//! [`ServerCore`](crate::core::ServerCore). Each group declares its routes once, as
//! [`Endpoint`]s that carry the handler and what `/doc` says of it; [`router`] builds the
//! routes from them and puts the [`http`](crate::http) layers around.

pub mod background;
pub mod context;
pub mod doc;
pub mod endpoint;
pub mod event;
pub mod global;
pub mod keys;
pub mod message;
pub mod message_list;
pub mod openapi;
pub mod reply;
pub mod session;
pub mod worktree;

pub use endpoint::{Endpoint, Route};

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware;

use crate::core::ServerCore;
use crate::http::{AppState, BODY_LIMIT, HttpOptions, access, auth, cors, error};

/// Every route of the API, group by group.
pub fn endpoints() -> Vec<Endpoint> {
    [
        session::endpoints(),
        background::endpoints(),
        message::endpoints(),
        event::endpoints(),
        reply::endpoints(),
        context::endpoints(),
        global::endpoints(),
        keys::endpoints(),
        worktree::endpoints(),
        doc::endpoints(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// What the document says of every route.
pub fn all_routes() -> Vec<Route> {
    endpoints().into_iter().map(|e| e.route).collect()
}

/// The whole API over `core`.
pub fn router(core: ServerCore, options: HttpOptions) -> Router {
    let state = AppState {
        core,
        options: Arc::new(options),
    };
    endpoint::router(endpoints())
        .fallback(error::unknown_route)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(state.clone(), auth::require))
        .layer(middleware::from_fn_with_state(state.clone(), cors::apply))
        .layer(middleware::from_fn(access::log_failures))
        .with_state(state)
}
