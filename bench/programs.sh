#!/usr/bin/env bash
# What a tool program saves (not part of CI; see bench/README.md): the agent test that runs a
# scripted task needing six reads and two greps, once as eight separate calls and once as one
# `execute` program, and prints the requests, the bytes sent to the model (tokens estimated at
# four bytes each) and the wall time of each session.
#
# Environment: CARGO_TARGET_DIR as for any cargo build (a debug build is enough).
set -euo pipefail
cd "$(dirname "$0")/.."

out="$(cargo test -p strata-agent --test all figure_six_reads_and_two_greps -- --nocapture 2>&1)" || {
  echo "$out" >&2
  exit 1
}
echo "$out" | grep -E '^programs '
