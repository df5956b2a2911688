//! Running a terminal prompt beside the runtime: stdin blocks, so each prompt gets a plain
//! thread, which never holds up the runtime's shutdown when the run is cancelled mid-prompt.

use std::io::{BufRead, Write};

use tokio::sync::oneshot;

/// Runs `prompt` on a thread named `name`, reading stdin and writing stderr, and returns the
/// channel of its result. When no thread can be started, prints `failed` and returns a closed
/// channel, which the caller treats as a dismissal.
pub(crate) fn spawn_prompt<T: Send + 'static>(
    name: &str,
    failed: &str,
    prompt: impl FnOnce(&mut dyn BufRead, &mut dyn Write) -> T + Send + 'static,
) -> oneshot::Receiver<T> {
    let (tx, rx) = oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let _ = tx.send(prompt(&mut std::io::stdin().lock(), &mut std::io::stderr()));
        });
    if spawned.is_err() {
        eprintln!("{failed}");
    }
    rx
}
