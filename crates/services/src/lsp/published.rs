//! What one server has published: each file's latest diagnostics, how often and for which
//! document version, and waiting for the publish that answers a change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::diagnostic::Diagnostic;

/// How long an older version's diagnostics stand before they are taken as the answer.
pub const STALE_GRACE: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, Copy, Default)]
struct State {
    count: u64,
    version: Option<i64>,
}

/// Where a document stood when it was sent: what [`Publications::wait`] waits past.
#[derive(Debug, Clone, Copy)]
pub(super) struct Synced {
    before: u64,
    version: i64,
}

/// One server's publications.
pub(super) struct Publications {
    diagnostics: Mutex<HashMap<PathBuf, Vec<Diagnostic>>>,
    state: Mutex<HashMap<PathBuf, State>>,
    /// Bumped on every publish (and when the server goes away), so waiters wake up.
    tick: watch::Sender<u64>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each map is updated in one statement, so a poisoned lock still holds consistent data.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Default for Publications {
    fn default() -> Self {
        Self {
            diagnostics: Mutex::default(),
            state: Mutex::default(),
            tick: watch::channel(0).0,
        }
    }
}

impl Publications {
    /// Notes a publish of `path`'s diagnostics for document `version` (if the server said).
    pub(super) fn record(&self, path: PathBuf, version: Option<i64>, list: Vec<Diagnostic>) {
        lock(&self.diagnostics).insert(path.clone(), list);
        let mut state = lock(&self.state);
        let entry = state.entry(path).or_default();
        entry.count += 1;
        entry.version = version;
        drop(state);
        self.wake();
    }

    /// Wakes every waiter, e.g. because the server is gone.
    pub(super) fn wake(&self) {
        self.tick.send_modify(|t| *t += 1);
    }

    /// Marks the moment `path` is sent to the server as `version`.
    pub(super) fn synced(&self, path: &Path, version: i64) -> Synced {
        Synced {
            before: self.state(path).count,
            version,
        }
    }

    fn state(&self, path: &Path) -> State {
        lock(&self.state).get(path).copied().unwrap_or_default()
    }

    /// Every file's latest diagnostics.
    pub(super) fn all(&self) -> HashMap<PathBuf, Vec<Diagnostic>> {
        lock(&self.diagnostics).clone()
    }

    /// Waits until `path`'s diagnostics are published for the synced version (or, from a
    /// server that leaves versions out, published again at all), then until no new publish
    /// arrives for `settle` (servers often publish twice); at most `limit` in all.
    ///
    /// A publish after the sync that names an older version is taken once [`STALE_GRACE`]
    /// passes without a newer one: clangd, for one, may label a build of the newest text with
    /// the version it first opened.
    pub(super) async fn wait(
        &self,
        path: &Path,
        synced: Synced,
        limit: Duration,
        settle: Duration,
    ) {
        let deadline = Instant::now() + limit;
        let mut ticks = self.tick.subscribe();
        let mut stale_since: Option<Instant> = None;
        loop {
            let s = self.state(path);
            if s.count > synced.before {
                if s.version.is_none_or(|v| v >= synced.version) {
                    break;
                }
                stale_since.get_or_insert_with(Instant::now);
            }
            let until = stale_since.map_or(deadline, |t| (t + STALE_GRACE).min(deadline));
            match tokio::time::timeout_at(until, ticks.changed()).await {
                Ok(Ok(())) => {}
                // Past the grace an older publish is the best there is.
                Err(_) if stale_since.is_some() => break,
                _ => return,
            }
        }
        loop {
            let until = (Instant::now() + settle).min(deadline);
            match tokio::time::timeout_at(until, ticks.changed()).await {
                Ok(Ok(())) if Instant::now() < deadline => {}
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    const LIMIT: Duration = Duration::from_secs(60);
    const SETTLE: Duration = Duration::from_millis(150);

    /// Publishes for `file` after `delay`, from another task; returns how long `wait` took.
    async fn waited(publishes: &[(u64, Option<i64>)], synced_version: i64) -> Duration {
        let p = Arc::new(Publications::default());
        let file = PathBuf::from("/p/a.c");
        let synced = p.synced(&file, synced_version);
        let (pub_side, path) = (p.clone(), file.clone());
        let plan = publishes.to_vec();
        tokio::spawn(async move {
            for (after_ms, version) in plan {
                tokio::time::sleep(Duration::from_millis(after_ms)).await;
                pub_side.record(path.clone(), version, Vec::new());
            }
        });
        let start = Instant::now();
        p.wait(&file, synced, LIMIT, SETTLE).await;
        start.elapsed()
    }

    #[tokio::test(start_paused = true)]
    async fn a_publish_for_the_synced_version_ends_the_wait_once_settled() {
        assert_eq!(
            waited(&[(100, Some(3))], 3).await,
            Duration::from_millis(250)
        );
        // A server that sends no version: any publish after the sync counts.
        assert_eq!(waited(&[(100, None)], 3).await, Duration::from_millis(250));
    }

    #[tokio::test(start_paused = true)]
    async fn an_older_version_is_taken_after_the_grace() {
        let took = waited(&[(100, Some(0))], 2).await;
        assert_eq!(took, Duration::from_millis(100) + STALE_GRACE + SETTLE);
    }

    #[tokio::test(start_paused = true)]
    async fn a_newer_publish_within_the_grace_is_waited_for() {
        // Stale at 100 ms, current 200 ms later: done once that one settles.
        let took = waited(&[(100, Some(0)), (200, Some(2))], 2).await;
        assert_eq!(took, Duration::from_millis(300) + SETTLE);
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_publish_the_wait_ends_at_the_limit() {
        assert_eq!(waited(&[], 0).await, LIMIT);
    }

    #[test]
    fn the_latest_diagnostics_of_each_file_are_kept() {
        let p = Publications::default();
        p.record("/p/a.c".into(), Some(0), Vec::new());
        assert!(p.all()[Path::new("/p/a.c")].is_empty());
        assert_eq!(p.synced(Path::new("/p/a.c"), 1).before, 1);
        assert_eq!(p.synced(Path::new("/p/b.c"), 0).before, 0);
    }
}
