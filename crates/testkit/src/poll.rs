//! Waiting in tests: bounded, with a message naming what was awaited. Never a bare sleep.

use std::future::Future;
use std::time::{Duration, Instant};

/// Awaits `fut`, failing the test with `what` if it takes longer than `limit`.
pub async fn await_with_timeout<F: Future>(what: &str, limit: Duration, fut: F) -> F::Output {
    match tokio::time::timeout(limit, fut).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {limit:?} waiting for {what}"),
    }
}

/// Calls `check` every few milliseconds until it returns `Some`, failing the test with `what`
/// after `limit`.
pub async fn poll_with_timeout<T, F, Fut>(what: &str, limit: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let start = Instant::now();
    let mut delay = Duration::from_millis(2);
    loop {
        if let Some(v) = check().await {
            return v;
        }
        if start.elapsed() > limit {
            panic!("timed out after {limit:?} polling for {what}");
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn poll_returns_once_the_check_passes() {
        let n = Arc::new(AtomicU32::new(0));
        let got = poll_with_timeout("three calls", Duration::from_secs(5), || {
            let n = n.clone();
            async move {
                let v = n.fetch_add(1, Ordering::SeqCst);
                (v >= 2).then_some(v)
            }
        })
        .await;
        assert_eq!(got, 2);
    }

    #[tokio::test]
    #[should_panic(expected = "polling for never")]
    async fn poll_fails_with_the_message() {
        poll_with_timeout("never", Duration::from_millis(30), || async { None::<()> }).await;
    }

    #[tokio::test]
    #[should_panic(expected = "waiting for forever")]
    async fn await_fails_with_the_message() {
        await_with_timeout(
            "forever",
            Duration::from_millis(20),
            std::future::pending::<()>(),
        )
        .await;
    }
}
