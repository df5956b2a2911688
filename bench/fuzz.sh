#!/usr/bin/env bash
# Every fuzz target for SECONDS each (default 60), with runs, executions per second and corpus
# size per target, in release (not part of CI's time budget; .ci/run runs them 4 s each in the
# dev profile). See fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
exec fuzz/run.sh "${SECONDS_EACH:-60}" "$@"
