//! Requests in the log: every answer with a 4xx or 5xx status is logged with its method, path
//! and status (4xx at info, 5xx at warn), so a client that stumbles over a route can be
//! diagnosed from the server's log alone; the others at debug, to see which routes a client
//! calls. Query strings are left out: they may carry `auth_token`.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

pub(crate) async fn log_failures(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let res = next.run(req).await;
    let status = res.status();
    if status.is_server_error() {
        tracing::warn!(%method, path, status = status.as_u16(), "request failed");
    } else if status.is_client_error() {
        tracing::info!(%method, path, status = status.as_u16(), "request refused");
    } else {
        tracing::debug!(%method, path, status = status.as_u16(), "request answered");
    }
    res
}
