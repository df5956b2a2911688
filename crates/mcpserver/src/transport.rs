//! The two transports: stdio for `strata mcp`, streamable HTTP as a tower service for `/mcp`.

use std::net::SocketAddr;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;

use crate::server::{ServeError, StrataMcp};

/// Serves `server` on stdin/stdout until the client closes stdin or `cancel` fires.
pub async fn serve_stdio(server: StrataMcp, cancel: CancellationToken) -> Result<(), ServeError> {
    let running = server
        .serve_with_ct(rmcp::transport::stdio(), cancel)
        .await
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    Ok(())
}

/// The streamable-HTTP MCP service (a tower service); each MCP session gets its own Strata
/// session. Sessions end when `cancel` fires. Mount it with `nest_service("/mcp", …)`.
pub fn http_service(
    server: StrataMcp,
    cancel: CancellationToken,
) -> StreamableHttpService<StrataMcp, LocalSessionManager> {
    let config = StreamableHttpServerConfig::default().with_cancellation_token(cancel);
    StreamableHttpService::new(
        move || Ok(server.for_session()),
        LocalSessionManager::default().into(),
        config,
    )
}

/// An axum router with the MCP service at `/mcp`.
pub fn router(server: StrataMcp, cancel: CancellationToken) -> axum::Router {
    axum::Router::new().nest_service("/mcp", http_service(server, cancel))
}

/// Serves MCP over streamable HTTP at `http://‹listener›/mcp` until `cancel` fires.
pub async fn serve_http(
    server: StrataMcp,
    listener: tokio::net::TcpListener,
    cancel: CancellationToken,
) -> Result<(), ServeError> {
    let app = router(server, cancel.clone());
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { cancel.cancelled().await })
        .await
        .map_err(|e| ServeError::Transport(e.to_string()))
}

/// Binds `addr` for [`serve_http`], naming it when that fails.
pub async fn bind(addr: &str) -> Result<(tokio::net::TcpListener, SocketAddr), ServeError> {
    let bind_err = |why: String| ServeError::Bind {
        addr: addr.to_string(),
        why,
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| bind_err(e.to_string()))?;
    let local = listener.local_addr().map_err(|e| bind_err(e.to_string()))?;
    Ok((listener, local))
}
