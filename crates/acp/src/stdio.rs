//! The agent on a byte pipe: this process's stdin and stdout for `strata acp` (ACP alone goes
//! to stdout; logs go to the log file and stderr), or any pipe for tests and the fuzzer. The
//! agent runs until the editor closes its side.
//!
//! Lines are read as bytes and decoded lossily: a byte that is not UTF-8 makes its line a
//! malformed message the agent answers with an error, instead of a read error that would
//! stop the connection (the SDK's own byte transport) while the editor waits for an answer.
//!
//! Lines are written by a task of their own: it takes every line queued since its last write
//! and writes them at once, so a burst (a long session's replay, a fast stream of chunks)
//! costs one write and one flush per batch instead of per line, and a full queue holds the
//! agent back instead of growing.

use std::io;

use agent_client_protocol::{ConnectTo, Lines};
use futures::Stream;
use strata_server::ServerCore;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

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
    let (tx, rx) = mpsc::channel(QUEUE);
    let writer = tokio::spawn(write_lines(output, rx));
    let served = agent(core)
        .connect_to(Lines::new(queue_sink(tx), lossy_lines(input)))
        .await;
    // The connection dropped its sink: the writer sends what is still queued, then ends.
    match writer.await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!(error = %e, "the ACP output could not be written"),
        Err(e) => tracing::warn!(error = %e, "the ACP writer task failed"),
    }
    served
}

/// Lines the writer may hold before the agent waits for it.
const QUEUE: usize = 256;

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

/// Queues each message for the writer; fails once the writer has stopped (the editor closed
/// its side).
fn queue_sink(tx: mpsc::Sender<String>) -> impl futures::Sink<String, Error = io::Error> + Send {
    futures::sink::unfold(tx, |tx, line: String| async move {
        tx.send(line).await.map_err(|_| {
            io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the editor closed the agent's output",
            )
        })?;
        Ok::<_, io::Error>(tx)
    })
}

/// Writes the queued messages a line each, every batch at once and then flushed, so the editor
/// sees each line as soon as it is written; ends when the queue closes and is empty.
async fn write_lines<W>(mut out: W, mut rx: mpsc::Receiver<String>) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    let mut lines = Vec::new();
    let mut buf = Vec::new();
    while rx.recv_many(&mut lines, QUEUE).await > 0 {
        buf.clear();
        for line in lines.drain(..) {
            buf.extend_from_slice(line.as_bytes());
            buf.push(b'\n');
        }
        out.write_all(&buf).await?;
        out.flush().await?;
    }
    Ok(())
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

    #[tokio::test]
    async fn queued_lines_are_written_whole_and_in_order_before_the_writer_ends() {
        use futures::SinkExt;
        let (tx, rx) = mpsc::channel(QUEUE);
        let (out, mut read) = tokio::io::duplex(1 << 20);
        let writer = tokio::spawn(write_lines(out, rx));
        // Boxed, so that dropping it drops the sender.
        let mut sink = Box::pin(queue_sink(tx));
        for i in 0..1000 {
            sink.send(format!("{{\"n\":{i}}}")).await.unwrap();
        }
        drop(sink);
        writer.await.unwrap().unwrap();
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut read, &mut text)
            .await
            .unwrap();
        let expected: String = (0..1000).map(|i| format!("{{\"n\":{i}}}\n")).collect();
        assert_eq!(text, expected);
    }

    #[tokio::test]
    async fn a_closed_output_fails_the_next_send() {
        use futures::SinkExt;
        let (tx, rx) = mpsc::channel(QUEUE);
        let (out, read) = tokio::io::duplex(64);
        drop(read);
        let writer = tokio::spawn(write_lines(out, rx));
        let mut sink = std::pin::pin!(queue_sink(tx));
        sink.send("first".into()).await.unwrap();
        assert!(writer.await.unwrap().is_err(), "the write fails");
        let refused = sink.send("second".into()).await.unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::BrokenPipe);
    }
}
