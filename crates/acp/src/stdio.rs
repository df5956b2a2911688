//! The agent on a byte pipe: this process's stdin and stdout for `strata acp` (ACP alone goes
//! to stdout; logs go to the log file and stderr), or any pipe for tests and the fuzzer. The
//! agent runs until the editor closes its side.
//!
//! Lines are read as bytes and decoded lossily: a byte that is not UTF-8 makes its line a
//! malformed message the agent answers with an error, instead of a read error that would
//! stop the connection (the SDK's own byte transport) while the editor waits for an answer.

use std::io;

use agent_client_protocol::{ConnectTo, Lines};
use futures::Stream;
use strata_server::ServerCore;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::agent::agent;

/// Serves ACP on stdio until the editor closes stdin or the connection fails.
pub async fn serve_stdio(core: ServerCore) -> Result<(), agent_client_protocol::Error> {
    serve(core, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves ACP on `input` and `output` until the input ends or the connection fails.
pub async fn serve<R, W>(
    core: ServerCore,
    input: R,
    output: W,
) -> Result<(), agent_client_protocol::Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    agent(core)
        .connect_to(Lines::new(line_sink(output), lossy_lines(input)))
        .await
}

/// The input's lines without their `\n` or `\r\n`, decoded lossily; ends at the input's end or
/// after its first read error.
fn lossy_lines<R>(input: R) -> impl Stream<Item = io::Result<String>> + Send + 'static
where
    R: AsyncRead + Unpin + Send + 'static,
{
    futures::stream::unfold(Some(BufReader::new(input)), |reader| async move {
        let mut reader = reader?;
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) => None,
            Ok(_) => Some((Ok(decode(line)), Some(reader))),
            Err(e) => Some((Err(e), None)),
        }
    })
}

fn decode(mut line: Vec<u8>) -> String {
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    }
    match String::from_utf8(line) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Writes each message as one line and flushes it, so the editor sees it at once.
fn line_sink<W>(output: W) -> impl futures::Sink<String, Error = io::Error> + Send + 'static
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    futures::sink::unfold(output, |mut out, line: String| async move {
        out.write_all(line.as_bytes()).await?;
        out.write_all(b"\n").await?;
        out.flush().await?;
        Ok::<_, io::Error>(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    #[tokio::test]
    async fn lines_lose_their_ends_and_bad_bytes_become_replacement_characters() {
        let input: &[u8] = b"{\"a\":1}\r\nx\xffy\n\nlast";
        let lines: Vec<String> = lossy_lines(input).map(|l| l.unwrap()).collect().await;
        assert_eq!(lines, ["{\"a\":1}", "x\u{fffd}y", "", "last"]);
    }
}
