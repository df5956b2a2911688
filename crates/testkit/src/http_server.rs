//! A loopback HTTP fixture server: real HTTP on 127.0.0.1, routes given by the test.

use std::net::SocketAddr;

use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// A running axum server on 127.0.0.1; stopped when dropped.
#[derive(Debug)]
pub struct FixtureServer {
    addr: SocketAddr,
    stop: CancellationToken,
}

impl FixtureServer {
    /// Serves `router` on a free loopback port.
    pub async fn start(router: Router) -> std::io::Result<FixtureServer> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let stop = CancellationToken::new();
        let token = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async move { token.cancelled().await })
                .await;
        });
        Ok(FixtureServer { addr, stop })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

impl Drop for FixtureServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
