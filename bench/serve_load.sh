#!/usr/bin/env bash
# Server load (issue 13; not part of CI, see bench/README.md): 50 sessions each run one scripted
# 5-step turn at the same time (four `read` calls, then a text answer), while 20 clients read
# `GET /global/event`, against a release `strata serve` and, when `opencode` is on PATH, against
# `opencode serve` on the same load. The driver is the server crate's bench target `serve_load`
# (`crates/server/benches/serve_load.rs`, built by `cargo bench`): it starts the scripted model server (in the driver process, on 127.0.0.1), starts
# the server process on a fresh temporary project, data and config, connects the clients, creates
# the sessions, sends every prompt with `POST /session/:id/prompt_async` at once, and reads until
# every client has seen every session's `session.idle`.
#
# What is printed, per run and as the median of the runs:
# - turns/s: sessions / (last `session.idle` arrival at any client − when the prompts were sent).
# - step latency: for every model step, the time from the scripted model server handing the
#   last byte of its streamed response to the connection, to the arrival of that step's
#   `step-finish` part (`message.part.updated`) at each client (sessions × 5 × clients
#   samples, one clock: the driver process). For the four tool steps this includes running the
#   tool, since both servers write `step-finish` after the step's calls ran; "answer step" is
#   the text step alone (no tool in between): the closest to pure event delivery.
# - fan-out spread: for each item, its arrival at each client minus its earliest arrival at
#   any client (how far the clients drift apart).
# - peak RSS: `VmHWM` of the server process from /proc when the load has finished (and, apart,
#   the sum of its child processes'), read before the process is killed.
# - deltas before their part's completion: of the text deltas each answer is streamed in
#   (sessions x deltas per answer x clients), the share that reached a client before that
#   text part's completion (`message.part.updated` with `time.end`); a delta dropped or sent
#   after the completion counts against it.
# - whether every client got the same items in the same order with no id twice, and whether
#   each session's stored messages hold four completed tool parts, five step-finish parts and
#   the scripted answer.
#
# The driver, the model server and the server share the machine's cores, as in the test.
#
# Environment: RUNS=N runs per server (default 3); SESSIONS, CLIENTS (default 50, 20);
# SKIP_BUILD=1 reuses the release build; STRATA_BIN=PATH benches that binary; SERVERS="strata
# opencode" (default: both, opencode only when installed).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET="${CARGO_TARGET_DIR:-target}"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  [ -n "${STRATA_BIN:-}" ] || cargo build --release -p strata
  cargo bench -p strata-server --bench serve_load --no-run
fi
STRATA_BIN="${STRATA_BIN:-$(cd "$TARGET/release" && pwd)/strata}"
SERVERS="${SERVERS:-strata opencode}"
for server in $SERVERS; do
  if [ "$server" = opencode ] && ! command -v opencode >/dev/null; then
    echo "bench: opencode is not installed (npm install -g opencode-ai@1.18.33); skipped"
    continue
  fi
  STRATA_BIN="$STRATA_BIN" BENCH_SERVER="$server" BENCH_RUNS="${RUNS:-3}" \
    BENCH_SESSIONS="${SESSIONS:-50}" BENCH_CLIENTS="${CLIENTS:-20}" \
    cargo bench -p strata-server --bench serve_load 2>&1 | grep -o 'bench:.*'
done
