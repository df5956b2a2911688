#!/usr/bin/env bash
# Subagents: one `strata run` step that starts four `task` subagents at once, against the same
# four tasks started one step after another, on the scripted model server (each child runs
# `sleep 0.5` in bash, then answers). Prints mean wall time and peak RSS of `strata run`.
# Not part of CI; see bench/README.md.
#
# Environment: RUNS=N runs per variant (default 3); PROFILE=release to measure a release build
# (default: the dev build the tests use).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench: apt-get install -y time" >&2; exit 1; }
PROFILE_ARGS=()
if [ "${PROFILE:-dev}" = release ]; then PROFILE_ARGS=(--release); fi
RUNS="${RUNS:-3}" cargo test "${PROFILE_ARGS[@]}" -p strata --test all \
  bench_four_subagents_at_once_against_one_after_another -- --ignored --nocapture --test-threads 1
