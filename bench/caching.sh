#!/usr/bin/env bash
# What prompt caching saves (not part of CI; see bench/README.md): the agent test that replays
# a 30-step session against the scripted model server's simulated Anthropic prompt cache, with
# caching on and with `options.cache: false`, and prices both at claude-sonnet-4 list prices.
# The figures are token counts, not timings, so one run is enough; this prints them.
#
# Environment: CARGO_TARGET_DIR as for any cargo build (a debug build is enough).
set -euo pipefail
cd "$(dirname "$0")/.."

out="$(cargo test -p strata-agent --test all bench_caching -- --nocapture 2>&1)" || {
  echo "$out" >&2
  exit 1
}
echo "$out" | grep -E '^caching (on|off)'
