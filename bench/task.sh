#!/usr/bin/env bash
# Subagents: one `strata run` step that starts four `task` subagents at once, against the same
# four tasks started one step after another, on the scripted model server (each child runs
# `sleep 0.5` in bash, then answers). Prints mean wall time and peak RSS of `strata run`.
# Not part of CI; see bench/README.md.
#
# Environment: RUNS=N runs per variant (default 3). The driver is the CLI's bench target
# `subagents` (`crates/cli/benches/subagents.rs`), built by `cargo bench` (optimised).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench: apt-get install -y time" >&2; exit 1; }
RUNS="${RUNS:-3}" cargo bench -p strata --bench subagents
