//! The axum side under the handlers: the state every handler gets, the layers (auth, CORS,
//! the log of failed requests), the error body, the JSON extractor that names the bad field,
//! the directory extractor and the SSE writer. The router that puts handlers and layers together is
//! [`crate::routes::router`].

pub(crate) mod access;
pub(crate) mod auth;
pub(crate) mod cors;
pub mod dir;
pub mod error;
pub mod json;
pub mod sse;

use std::sync::Arc;

use crate::core::ServerCore;

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
