#!/usr/bin/env bash
# What deferring MCP tools saves (not part of CI; see bench/README.md): the agent test that runs
# the same scripted session against the testkit's 120-tool MCP server with deferral on and off,
# and prints the bytes of tool schemas in the first request and the tokens estimated from them
# (four bytes a token, as compaction estimates). Counts, not timings: one run is enough.
#
# Environment: CARGO_TARGET_DIR as for any cargo build (a debug build is enough).
set -euo pipefail
cd "$(dirname "$0")/.."

out="$(cargo test -p strata-agent --test all figure_first_request_tool_bytes -- --nocapture 2>&1)" || {
  echo "$out" >&2
  exit 1
}
echo "$out" | grep -E '^deferral (on|off)'
