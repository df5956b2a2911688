//! Serving the router: bind (port 0 tries 4096 first, then any free port), refuse a
//! non-loopback address without a password unless told it is meant to be public, and serve
//! until the shutdown signal, then dispose the instances.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};

use tokio::net::TcpListener;

use crate::core::ServerCore;
use crate::http::HttpOptions;
use crate::routes::router;

/// The port tried first when asked for port 0.
pub const PREFERRED_PORT: u16 = 4096;

/// Why the server could not start listening.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "refusing to listen on {host} without a password: anyone who can reach it could run \
         commands here. Set STRATA_SERVER_PASSWORD, bind 127.0.0.1, or pass \
         --i-know-it-is-public"
    )]
    PublicWithoutPassword { host: String },
    #[error("could not listen on {addr}: {source}; pick another --port or --hostname")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("`{0}` is not an IP address; pass e.g. --hostname 127.0.0.1")]
    BadHost(String),
}

/// Resolves `host` (an IP, or `localhost`).
fn ip_of(host: &str) -> Result<IpAddr, ServeError> {
    if host == "localhost" {
        return Ok(IpAddr::from([127, 0, 0, 1]));
    }
    host.parse()
        .map_err(|_| ServeError::BadHost(host.to_string()))
}

/// Binds the listener, applying the public-address rule and the port-0 preference.
pub async fn bind(
    host: &str,
    port: u16,
    has_password: bool,
    public_ok: bool,
) -> Result<TcpListener, ServeError> {
    let ip = ip_of(host)?;
    if !ip.is_loopback() && !has_password && !public_ok {
        return Err(ServeError::PublicWithoutPassword {
            host: host.to_string(),
        });
    }
    if port == 0
        && let Ok(listener) = TcpListener::bind(SocketAddr::new(ip, PREFERRED_PORT)).await
    {
        return Ok(listener);
    }
    let addr = SocketAddr::new(ip, port);
    TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind {
            addr: addr.to_string(),
            source,
        })
}

/// Serves until `shutdown` resolves, then shuts the core down.
pub async fn serve(
    listener: TcpListener,
    core: ServerCore,
    options: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(core.clone(), options);
    let stop = tokio_util::sync::CancellationToken::new();
    let serve_stop = stop.clone();
    let server = axum::serve(listener, app).with_graceful_shutdown(async move {
        shutdown.await;
        serve_stop.cancel();
    });
    // Open SSE streams never end on their own, so the graceful wait is bounded.
    let result = tokio::select! {
        r = server => r,
        () = async {
            stop.cancelled().await;
            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        } => Ok(()),
    };
    core.shutdown().await;
    result
}
