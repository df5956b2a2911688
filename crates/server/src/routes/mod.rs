//! The route handlers, one module per group; each handler is a thin call into
//! [`ServerCore`](crate::core::ServerCore). [`table`] lists every route for `/doc`, and
//! [`router`] puts the groups and the [`http`](crate::http) layers together.

pub mod context;
pub mod doc;
pub mod event;
pub mod global;
pub mod keys;
pub mod message;
pub mod reply;
pub mod session;
pub mod table;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware;

use crate::core::ServerCore;
use crate::http::{AppState, BODY_LIMIT, HttpOptions, access, auth, cors, error};

/// The whole API over `core`.
pub fn router(core: ServerCore, options: HttpOptions) -> Router {
    let state = AppState {
        core,
        options: Arc::new(options),
    };
    Router::new()
        .merge(session::routes())
        .merge(message::routes())
        .merge(event::routes())
        .merge(reply::routes())
        .merge(context::routes())
        .merge(global::routes())
        .merge(keys::routes())
        .merge(doc::routes())
        .fallback(error::unknown_route)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(state.clone(), auth::require))
        .layer(middleware::from_fn_with_state(state.clone(), cors::apply))
        .layer(middleware::from_fn(access::log_failures))
        .with_state(state)
}
