#!/usr/bin/env bash
# Crash under load (issue 22 §5; not part of CI, see bench/README.md): a `strata serve` process
# runs 50 sessions at once (each turn: `read`, a bash call that sleeps 1–3 s, `read`, an
# answer, from the scripted model) while 20 clients read `GET /global/event`. At a random
# moment (evenly drawn up to 8 s after the first bash call sleeps) it is
# killed with SIGKILL and started again on the same data directory; 20 times. After each
# restart the driver checks that `PRAGMA integrity_check` is ok, that every stored item any
# client had received is in the store unchanged, that no tool call or turn is left open, and
# that every process group the dead server's bash calls started has ended.
#
# The driver is the `strata` crate's end-to-end test `e2e_crash` (crates/cli/tests/all/
# e2e_crash.rs) run with more rounds; it prints one line per round and the tally.
#
# Environment: ROUNDS (default 20), SESSIONS (50), CLIENTS (20), SEED (repeats the kill
# points of an earlier run), STRATA_BIN=PATH runs that binary as the server (a release build,
# say) instead of the debug one the test builds.
set -euo pipefail
cd "$(dirname "$0")/.."
export STRATA_CRASH_ROUNDS="${ROUNDS:-20}" STRATA_CRASH_SESSIONS="${SESSIONS:-50}" \
  STRATA_CRASH_CLIENTS="${CLIENTS:-20}"
if [ -n "${SEED:-}" ]; then export STRATA_CRASH_SEED="$SEED"; fi
cargo test -p strata --test all e2e_crash:: -- --nocapture 2>&1 | grep -E '^crash|^test result'
