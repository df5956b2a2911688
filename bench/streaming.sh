#!/usr/bin/env bash
# What starting calls while the response still streams saves (not part of CI; see
# bench/README.md). Runs the agent crate's bench target `early_calls`
# (`crates/agent/benches/early_calls.rs`): a scripted model streams one step of three calls with a pause between them, then a
# final answer; each scenario runs with calls held until the response ends (the old behaviour,
# `RunOptions::early_calls = false`) and with calls started early, and the median wall time of
# the run is printed.
#
# Environment: BENCH_GAP_MS pause between calls in the stream (default 200), BENCH_RUNS runs per
# case (default 5). Built by `cargo bench` with optimisations (the times are dominated by the
# pauses and the slow page, not by CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench -p strata-agent --bench early_calls 2>&1 | grep '^bench:'
