//! The agent on this process's stdin and stdout: ACP alone goes to stdout (logs go to the log
//! file and stderr), and the agent runs until the editor closes stdin.

use agent_client_protocol::{ByteStreams, ConnectTo};
use strata_server::ServerCore;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

use crate::agent::agent;

/// Serves ACP on stdio until the editor closes stdin or the connection fails.
pub async fn serve_stdio(core: ServerCore) -> Result<(), agent_client_protocol::Error> {
    let transport = ByteStreams::new(
        tokio::io::stdout().compat_write(),
        tokio::io::stdin().compat(),
    );
    agent(core).connect_to(transport).await
}
