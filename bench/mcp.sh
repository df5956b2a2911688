#!/usr/bin/env bash
# MCP figures (issue 11): start-up cost of two local MCP servers in `strata run`, and an MCP
# tool call against a built-in one. Not part of CI; see bench/README.md.
#
# Needs the Python `mcp` client (the virtualenv `.ci/run` makes, or STRATA_TEST_MCP_PYTHON).
# Environment: RUNS=N (default 10), PROFILE=release|debug (default release), SKIP_BUILD=1.
set -euo pipefail
cd "$(dirname "$0")/.."
PROFILE="${PROFILE:-release}"
TARGET="${CARGO_TARGET_DIR:-target}"
PYTHON="${STRATA_TEST_MCP_PYTHON:-$HOME/.cache/strata/mcp-venv/bin/python}"
"$PYTHON" -c 'import mcp' || { echo "bench: no Python with the mcp package at $PYTHON; run .ci/run or set STRATA_TEST_MCP_PYTHON" >&2; exit 1; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  flag=(); [ "$PROFILE" = release ] && flag=(--release)
  cargo build "${flag[@]}" -p strata -p strata-testkit --bin strata --bin strata-mcp-fixture
fi
exec "$PYTHON" bench/mcp_figures.py "$TARGET/$PROFILE/strata" "$TARGET/$PROFILE/strata-mcp-fixture" "${RUNS:-10}"
