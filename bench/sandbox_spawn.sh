#!/usr/bin/env bash
# The sandbox's cost per command: median spawn-to-exit time of `true` with and without the
# workspace-write policy, 200 runs each in one process (crates/services/examples/sandbox_spawn.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run -q -p strata-services --example sandbox_spawn
