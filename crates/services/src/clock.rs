//! The Clock service: wall-clock time and sleeping, behind one handle.
//!
//! Everything in Strata that waits on time (scheduled cleanup, retries) goes through [`Clock`],
//! so tests can swap the live clock for a manual one ([`Clock::manual`]) and move time forward
//! with [`TestClock::advance`] instead of sleeping for real.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use tokio::sync::oneshot;

/// What a clock implementation provides.
#[async_trait]
pub trait ClockApi: Send + Sync + 'static {
    /// The current wall-clock time.
    fn now(&self) -> SystemTime;
    /// Completes once `d` has passed on this clock.
    async fn sleep(&self, d: Duration);
}

/// Handle to the process clock.
#[derive(Clone)]
pub struct Clock(Arc<dyn ClockApi>);

impl strata_graph::Service for Clock {
    const KEY: &'static str = "Clock";
}

impl Clock {
    /// Wraps any implementation.
    pub fn new(api: impl ClockApi) -> Self {
        Self(Arc::new(api))
    }

    /// The real clock: system time and tokio timers.
    pub fn live() -> Self {
        Self::new(LiveClock)
    }

    /// A clock that stands still at `start` until the returned [`TestClock`] advances it.
    pub fn manual(start: SystemTime) -> (Clock, TestClock) {
        let state = Arc::new(Mutex::new(ManualState {
            now: start,
            sleepers: Vec::new(),
        }));
        let clock = Self::new(ManualClock {
            state: state.clone(),
        });
        (clock, TestClock { state })
    }

    pub fn now(&self) -> SystemTime {
        self.0.now()
    }

    /// Milliseconds since the Unix epoch (0 for times before it).
    pub fn now_ms(&self) -> u64 {
        to_ms(self.now())
    }

    pub async fn sleep(&self, d: Duration) {
        self.0.sleep(d).await
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock").field("now", &self.now()).finish()
    }
}

/// Milliseconds since the Unix epoch, saturating at 0 before it and at `u64::MAX` far after.
pub fn to_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

struct LiveClock;

#[async_trait]
impl ClockApi for LiveClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    async fn sleep(&self, d: Duration) {
        tokio::time::sleep(d).await
    }
}

#[derive(Debug)]
struct ManualState {
    now: SystemTime,
    sleepers: Vec<(SystemTime, oneshot::Sender<()>)>,
}

fn lock(state: &Mutex<ManualState>) -> MutexGuard<'_, ManualState> {
    // A poisoned lock only means a holder panicked; time and the sleeper list stay consistent.
    state.lock().unwrap_or_else(|p| p.into_inner())
}

struct ManualClock {
    state: Arc<Mutex<ManualState>>,
}

#[async_trait]
impl ClockApi for ManualClock {
    fn now(&self) -> SystemTime {
        lock(&self.state).now
    }

    async fn sleep(&self, d: Duration) {
        let rx = {
            let mut state = lock(&self.state);
            if d.is_zero() {
                return;
            }
            let deadline = state.now + d;
            let (tx, rx) = oneshot::channel();
            state.sleepers.push((deadline, tx));
            rx
        };
        // The sender lives in the shared state, which this clock keeps alive; an error can only
        // mean it was dropped by a wake-up, so either way the sleep is over.
        let _ = rx.await;
    }
}

/// Controls a manual clock made by [`Clock::manual`].
#[derive(Debug, Clone)]
pub struct TestClock {
    state: Arc<Mutex<ManualState>>,
}

impl TestClock {
    pub fn now(&self) -> SystemTime {
        lock(&self.state).now
    }

    /// Moves time forward by `d` and wakes every sleeper whose deadline is now reached.
    pub fn advance(&self, d: Duration) {
        let mut state = lock(&self.state);
        state.now += d;
        let now = state.now;
        let (due, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut state.sleepers)
            .into_iter()
            .partition(|(deadline, _)| *deadline <= now);
        state.sleepers = waiting;
        drop(state);
        for (_, tx) in due {
            let _ = tx.send(());
        }
    }

    /// How many sleeps are currently waiting (cancelled sleeps are not counted). Tests poll this
    /// to know a background task has reached its sleep before advancing time.
    pub fn pending_sleepers(&self) -> usize {
        let mut state = lock(&self.state);
        state.sleepers.retain(|(_, tx)| !tx.is_closed());
        state.sleepers.len()
    }
}

/// The civil date (UTC) of `ms` milliseconds since the epoch: (year, month 1-12, day 1-31).
pub fn civil_date(ms: i64) -> (i64, u32, u32) {
    // Howard Hinnant's days-to-civil algorithm.
    let z = ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // Both are in range by construction: day 1..=31, month 1..=12.
    (year, day_or_month(month), day_or_month(day))
}

fn day_or_month(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

/// Today's date (UTC) as `YYYY-MM-DD`, from milliseconds since the epoch.
pub fn utc_date(ms: i64) -> String {
    let (year, month, day) = civil_date(ms);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Milliseconds since the epoch of `t` (negative before it).
pub fn epoch_ms(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::utc_date(0), "1970-01-01");
        assert_eq!(super::utc_date(951_782_400_000), "2000-02-29");
        assert_eq!(super::utc_date(1_767_225_600_000), "2026-01-01");
        assert_eq!(super::civil_date(-1), (1969, 12, 31));
    }

    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    async fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
        strata_testkit::poll_with_timeout(what, Duration::from_secs(5), || {
            let held = cond();
            async move { held.then_some(()) }
        })
        .await;
    }

    #[tokio::test]
    async fn sleeper_wakes_exactly_when_deadline_is_reached() {
        let start = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let (clock, test) = Clock::manual(start);
        let woke = Arc::new(AtomicBool::new(false));
        let task = {
            let (clock, woke) = (clock.clone(), woke.clone());
            tokio::spawn(async move {
                clock.sleep(Duration::from_secs(10)).await;
                woke.store(true, Ordering::SeqCst);
            })
        };
        wait_until("the sleeper to register", || test.pending_sleepers() == 1).await;

        test.advance(Duration::from_millis(9_999));
        // Give the task every chance to run; it must still be asleep.
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
        assert!(!woke.load(Ordering::SeqCst), "woke before its deadline");
        assert_eq!(test.pending_sleepers(), 1);

        test.advance(Duration::from_millis(1));
        wait_until("the sleeper to wake", || woke.load(Ordering::SeqCst)).await;
        task.await.unwrap();
        assert_eq!(test.pending_sleepers(), 0);
        assert_eq!(clock.now(), start + Duration::from_secs(10));
    }

    #[tokio::test]
    async fn manual_time_only_moves_when_advanced() {
        let start = UNIX_EPOCH + Duration::from_millis(1_234_567);
        let (clock, test) = Clock::manual(start);
        assert_eq!(clock.now_ms(), 1_234_567);
        test.advance(Duration::from_millis(33));
        assert_eq!(clock.now_ms(), 1_234_600);
        assert_eq!(test.now(), clock.now());
        // A zero sleep returns at once.
        clock.sleep(Duration::ZERO).await;
    }

    #[tokio::test]
    async fn cancelled_sleeps_are_not_counted() {
        let (clock, test) = Clock::manual(UNIX_EPOCH);
        let handle = tokio::spawn(async move { clock.sleep(Duration::from_secs(1)).await });
        wait_until("the sleeper to register", || test.pending_sleepers() == 1).await;
        handle.abort();
        wait_until("the cancelled sleep to drop", || {
            test.pending_sleepers() == 0
        })
        .await;
    }

    #[tokio::test]
    async fn live_clock_sleeps_and_tells_time() {
        let clock = Clock::live();
        let before = clock.now();
        clock.sleep(Duration::from_millis(20)).await;
        let slept = clock.now().duration_since(before).unwrap_or_default();
        assert!(slept >= Duration::from_millis(15), "slept only {slept:?}");
        assert!(clock.now_ms() > 1_600_000_000_000);
    }
}
