#!/usr/bin/env bash
# `strata acp` against `strata run --format json` on the same scripted turn (three `read`
# calls, then a streamed answer): time to the first update, time for the whole turn, and the
# turn's time per update. Not part of CI; see bench/README.md.
#
# Environment: RUNS=N turns per variant (default 5). The driver is the CLI's bench target
# `acp_latency` (`crates/cli/benches/acp_latency.rs`). `cargo bench` builds it optimised;
# PROFILE=dev runs it in the dev profile instead (`cargo test --bench`), as the figures in
# bench/README.md were taken.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${PROFILE:-release}" = dev ]; then
  cargo build -p strata --bin strata
  RUNS="${RUNS:-5}" cargo test -p strata --bench acp_latency
else
  RUNS="${RUNS:-5}" cargo bench -p strata --bench acp_latency
fi
