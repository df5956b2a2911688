//! Time-sortable ids: `ses_`, `msg_`, `prt_` followed by 11 base62 digits of a per-process
//! monotonic clock (milliseconds × 4096 + a counter) and 8 random base62 digits. Ids made later
//! sort after earlier ones as plain strings, in this process and (to the millisecond) across
//! processes; the random tail keeps ids from different processes apart.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rand::Rng;

/// Digits in ASCII order, so that string order equals numeric order.
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// 62^11 > 2^64: every u64 fits in 11 digits.
const TIME_DIGITS: usize = 11;
const RANDOM_DIGITS: usize = 8;
/// Ids per millisecond before the clock part borrows from the next millisecond.
const PER_MS: u64 = 4096;

/// What an id names; decides its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Session,
    Message,
    Part,
}

impl IdKind {
    pub fn prefix(self) -> &'static str {
        match self {
            IdKind::Session => "ses",
            IdKind::Message => "msg",
            IdKind::Part => "prt",
        }
    }
}

static LAST: AtomicU64 = AtomicU64::new(0);

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The next value of the process-wide clock: never smaller than the wall clock, always larger
/// than the previous value.
fn tick() -> u64 {
    let wall = u64::try_from(now_ms()).unwrap_or(0).saturating_mul(PER_MS);
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        let next = wall.max(last.saturating_add(1));
        match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => last = seen,
        }
    }
}

/// A new ascending id of `kind`, e.g. `ses_0UjYwXq3k0Gb9xT2aQpZ`.
pub fn new_id(kind: IdKind) -> String {
    let mut id = String::with_capacity(4 + TIME_DIGITS + RANDOM_DIGITS);
    id.push_str(kind.prefix());
    id.push('_');
    let mut digits = [b'0'; TIME_DIGITS];
    let mut n = tick();
    for d in digits.iter_mut().rev() {
        *d = BASE62[(n % 62) as usize];
        n /= 62;
    }
    id.extend(digits.iter().map(|&b| char::from(b)));
    let mut rng = rand::rng();
    for _ in 0..RANDOM_DIGITS {
        id.push(char::from(BASE62[rng.random_range(0..62)]));
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_prefix_and_ascend_as_strings() {
        let ids: Vec<String> = (0..5000).map(|_| new_id(IdKind::Message)).collect();
        for pair in ids.windows(2) {
            assert!(pair[0] < pair[1], "{} !< {}", pair[0], pair[1]);
        }
        assert!(ids[0].starts_with("msg_"));
        assert_eq!(ids[0].len(), 4 + TIME_DIGITS + RANDOM_DIGITS);
        assert!(new_id(IdKind::Session).starts_with("ses_"));
        assert!(new_id(IdKind::Part).starts_with("prt_"));
    }

    #[test]
    fn base62_digits_are_in_ascii_order() {
        assert!(BASE62.windows(2).all(|w| w[0] < w[1]));
    }
}
