//! The axum side: the router with its layers (auth, CORS, body limit, request log), the error
//! body, the JSON extractor that names the bad field, the directory extractor and the SSE
//! writer. Handlers live in [`crate::routes`], one module per route group.

mod auth;
mod cors;
pub mod dir;
pub mod error;
pub mod json;
pub mod sse;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware;

use crate::core::ServerCore;
use crate::routes;

pub use auth::AuthConfig;
pub use error::ApiFailure;

/// Request bodies larger than this are refused (413).
pub const BODY_LIMIT: usize = 8 * 1024 * 1024;

/// How the HTTP layer behaves.
#[derive(Debug, Clone, Default)]
pub struct HttpOptions {
    pub auth: AuthConfig,
    /// Origins allowed besides localhost ones (`--cors`).
    pub cors: Vec<String>,
}

/// What every handler gets.
#[derive(Debug, Clone)]
pub struct AppState {
    pub core: ServerCore,
    pub options: Arc<HttpOptions>,
}

/// The whole API over `core`.
pub fn router(core: ServerCore, options: HttpOptions) -> Router {
    let state = AppState {
        core,
        options: Arc::new(options),
    };
    Router::new()
        .merge(routes::session::routes())
        .merge(routes::message::routes())
        .merge(routes::event::routes())
        .merge(routes::reply::routes())
        .merge(routes::context::routes())
        .merge(routes::global::routes())
        .merge(routes::doc::routes())
        .fallback(error::unknown_route)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(state.clone(), auth::require))
        .layer(middleware::from_fn_with_state(state.clone(), cors::apply))
        .with_state(state)
}
