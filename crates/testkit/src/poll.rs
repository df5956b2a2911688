//! Waiting in tests: bounded, with a message naming what was awaited. Never a bare sleep.
//!
//! One policy for every wait: look at once, then again after 2 ms, doubling up to every 50 ms,
//! until the limit. The async helpers sleep on tokio; the `_blocking` one sleeps the thread, for
//! tests that drive processes without a runtime.

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
pub async fn poll_with_timeout<T, F, Fut>(what: &str, limit: Duration, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    match poll_within(limit, check).await {
        Some(v) => v,
        None => panic!("timed out after {limit:?} polling for {what}"),
    }
}

/// Like [`poll_with_timeout`], but gives `None` after `limit` instead of failing, for a test
/// that asserts on the outcome itself.
pub async fn poll_within<T, F, Fut>(limit: Duration, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let mut backoff = Backoff::new(limit);
    loop {
        if let Some(v) = check().await {
            return Some(v);
        }
        tokio::time::sleep(backoff.next()?).await;
    }
}

/// [`poll_within`] for a thread without an async runtime: sleeps the thread between checks.
pub fn poll_within_blocking<T>(limit: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let mut backoff = Backoff::new(limit);
    loop {
        if let Some(v) = check() {
            return Some(v);
        }
        std::thread::sleep(backoff.next()?);
    }
}

/// The pauses between checks: short at first, so a quick wait stays quick.
struct Backoff {
    start: Instant,
    limit: Duration,
    delay: Duration,
}

impl Backoff {
    fn new(limit: Duration) -> Backoff {
        Backoff {
            start: Instant::now(),
            limit,
            delay: Duration::from_millis(2),
        }
    }

    /// The pause before the next check, or `None` once `limit` has passed.
    fn next(&mut self) -> Option<Duration> {
        if self.start.elapsed() > self.limit {
            return None;
        }
        let pause = self.delay;
        self.delay = (self.delay * 2).min(Duration::from_millis(50));
        Some(pause)
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
    async fn poll_within_gives_none_after_the_limit() {
        let start = Instant::now();
        let got = poll_within(Duration::from_millis(30), || async { None::<()> }).await;
        assert_eq!(got, None);
        assert!(start.elapsed() >= Duration::from_millis(30));
    }

    #[test]
    fn blocking_poll_returns_once_the_check_passes_or_none_after_the_limit() {
        let mut calls = 0;
        let got = poll_within_blocking(Duration::from_secs(5), || {
            calls += 1;
            (calls == 3).then_some(calls)
        });
        assert_eq!(got, Some(3));
        let start = Instant::now();
        assert_eq!(
            poll_within_blocking(Duration::from_millis(30), || None::<()>),
            None
        );
        assert!(start.elapsed() >= Duration::from_millis(30));
    }

    #[test]
    fn the_pause_doubles_up_to_fifty_milliseconds() {
        let mut b = Backoff::new(Duration::from_secs(60));
        let pauses: Vec<u64> = (0..7)
            .map(|_| b.next().unwrap().as_millis() as u64)
            .collect();
        assert_eq!(pauses, [2, 4, 8, 16, 32, 50, 50]);
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
