//! The call scheduler: a step's ready calls run in the order the model made them, except that
//! a run of consecutive concurrency-safe calls (by their tools' effects) runs in parallel.
//! Once a batch produces a result that halts the turn (a refused permission, a fatal error),
//! the calls after it are not run but answered by `skip`.

use std::future::Future;

/// A group of calls that run together.
#[derive(Debug, Clone, PartialEq)]
pub enum Batch<T> {
    /// Consecutive concurrency-safe calls, run at the same time.
    Parallel(Vec<T>),
    /// One call that runs alone.
    Serial(T),
}

/// Splits `items` into batches, keeping their order.
pub fn batches<T>(items: Vec<T>, safe: impl Fn(&T) -> bool) -> Vec<Batch<T>> {
    let mut out: Vec<Batch<T>> = Vec::new();
    for item in items {
        if safe(&item) {
            if let Some(Batch::Parallel(group)) = out.last_mut() {
                group.push(item);
            } else {
                out.push(Batch::Parallel(vec![item]));
            }
        } else {
            out.push(Batch::Serial(item));
        }
    }
    out
}

/// Runs the batches in order; results come back in the calls' order. After a batch with a
/// result for which `halts` is true, the remaining calls go to `skip` instead of `run`.
pub async fn run_batches<T, R, Run, Fut>(
    batches: Vec<Batch<T>>,
    run: Run,
    skip: impl Fn(T) -> R,
    halts: impl Fn(&R) -> bool,
) -> Vec<R>
where
    Run: Fn(T) -> Fut,
    Fut: Future<Output = R>,
{
    let mut out = Vec::new();
    let mut halted = false;
    for batch in batches {
        let items = match batch {
            Batch::Parallel(items) => items,
            Batch::Serial(item) => vec![item],
        };
        if halted {
            out.extend(items.into_iter().map(&skip));
            continue;
        }
        let results = futures::future::join_all(items.into_iter().map(&run)).await;
        halted = results.iter().any(&halts);
        out.extend(results);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn consecutive_safe_calls_share_a_batch() {
        let b = batches(vec![1, 3, 4, 5, 7, 8], |n| n % 2 == 1);
        assert_eq!(
            b,
            vec![
                Batch::Parallel(vec![1, 3]),
                Batch::Serial(4),
                Batch::Parallel(vec![5, 7]),
                Batch::Serial(8),
            ]
        );
    }

    #[tokio::test]
    async fn parallel_calls_overlap_and_results_keep_order() {
        // Each safe call waits until all three have started: only possible if they overlap.
        let started = Arc::new(AtomicUsize::new(0));
        let notify = Arc::new(tokio::sync::Notify::new());
        let run = |n: u32| {
            let started = started.clone();
            let notify = notify.clone();
            async move {
                if started.fetch_add(1, Ordering::SeqCst) + 1 == 3 {
                    notify.notify_waiters();
                }
                let waited = notify.notified();
                if started.load(Ordering::SeqCst) < 3 {
                    waited.await;
                }
                n * 10
            }
        };
        let out = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            run_batches(batches(vec![1, 2, 3], |_| true), run, |n| n, |_| false),
        )
        .await
        .expect("the three calls overlap");
        assert_eq!(out, vec![10, 20, 30]);
    }

    #[tokio::test]
    async fn a_halting_result_skips_the_rest() {
        let out = run_batches(
            batches(vec![1, 2, 3, 4], |n| *n > 2),
            |n: i32| async move { if n == 2 { -2 } else { n } },
            |n| n + 100,
            |r| *r < 0,
        )
        .await;
        assert_eq!(out, vec![1, -2, 103, 104]);
    }
}
