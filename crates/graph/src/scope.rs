//! `Scope`: the lifetime that owns finalizers and background tasks.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

type Finalizer = Box<dyn FnOnce() -> BoxFuture<'static, ()> + Send>;

/// Owns what a build acquired. Closing it cancels and awaits its background tasks, then runs its
/// finalizers last-in-first-out (dependents close before their dependencies), exactly once.
#[derive(Clone, Default)]
pub struct Scope {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Inner {
    finalizers: Mutex<Vec<(String, Finalizer)>>,
    tasks: TaskTracker,
    token: CancellationToken,
    closed: AtomicBool,
}

impl Scope {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `f` to run when the scope closes. On a closed scope it is spawned at once.
    pub fn add_finalizer<F, Fut>(&self, label: impl Into<String>, f: F)
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let boxed: Finalizer = Box::new(move || Box::pin(f()));
        if self.is_closed() {
            tokio::spawn(boxed());
            return;
        }
        self.lock().push((label.into(), boxed));
    }

    /// Runs `fut` in the background until it ends or the scope closes.
    pub fn spawn<F>(&self, fut: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let token = self.inner.token.clone();
        self.inner.tasks.spawn(async move {
            tokio::select! {
                _ = token.cancelled() => {}
                _ = fut => {}
            }
        });
    }

    /// A token cancelled when the scope starts closing.
    pub fn token(&self) -> CancellationToken {
        self.inner.token.clone()
    }

    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::SeqCst)
    }

    /// Cancels and awaits background tasks, then runs finalizers last-in-first-out.
    /// Later calls do nothing.
    pub async fn close(&self) {
        if self.inner.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.inner.token.cancel();
        self.inner.tasks.close();
        self.inner.tasks.wait().await;
        loop {
            // Popped one at a time so a finalizer that registers another still sees it run.
            let next = self.lock().pop();
            match next {
                Some((label, f)) => {
                    tracing::debug!(finalizer = %label, "scope finalizer");
                    f().await;
                }
                None => break,
            }
        }
    }

    /// Labels of the finalizers still pending, in registration order.
    pub fn pending_finalizers(&self) -> Vec<String> {
        self.lock().iter().map(|(l, _)| l.clone()).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, Finalizer)>> {
        // A poisoned lock only means a finalizer registration panicked; the list is still valid.
        self.inner
            .finalizers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[tokio::test]
    async fn finalizers_run_lifo_exactly_once() {
        let scope = Scope::new();
        let log = Arc::new(Mutex::new(Vec::new()));
        for i in 0..3 {
            let log = log.clone();
            scope.add_finalizer(format!("f{i}"), move || async move {
                log.lock().unwrap().push(i);
            });
        }
        assert_eq!(scope.pending_finalizers(), vec!["f0", "f1", "f2"]);
        scope.close().await;
        scope.close().await;
        assert_eq!(*log.lock().unwrap(), vec![2, 1, 0]);
        assert!(scope.is_closed());
    }

    #[tokio::test]
    async fn tasks_are_cancelled_and_awaited_on_close() {
        let scope = Scope::new();
        let dropped = Arc::new(AtomicUsize::new(0));
        struct Guard(Arc<AtomicUsize>);
        impl Drop for Guard {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        for _ in 0..2 {
            let g = Guard(dropped.clone());
            scope.spawn(async move {
                let _g = g;
                std::future::pending::<()>().await;
            });
        }
        let token = scope.token();
        scope.close().await;
        // close() returned only after both tasks were dropped.
        assert_eq!(dropped.load(Ordering::SeqCst), 2);
        assert!(token.is_cancelled());
    }

    #[tokio::test]
    async fn tasks_close_before_finalizers() {
        let scope = Scope::new();
        let log = Arc::new(Mutex::new(Vec::new()));
        let l1 = log.clone();
        scope.add_finalizer("fin", move || async move {
            l1.lock().unwrap().push("finalizer")
        });
        let l2 = log.clone();
        struct OnDrop(Arc<Mutex<Vec<&'static str>>>);
        impl Drop for OnDrop {
            fn drop(&mut self) {
                self.0.lock().unwrap().push("task");
            }
        }
        let d = OnDrop(l2);
        scope.spawn(async move {
            let _d = d;
            std::future::pending::<()>().await;
        });
        scope.close().await;
        assert_eq!(*log.lock().unwrap(), vec!["task", "finalizer"]);
    }
}
