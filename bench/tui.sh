#!/usr/bin/env bash
# TUI figures: keypress -> frame, frame time while streaming 5,000 tokens, peak RSS and frame
# time with a 1,000-message session, idle CPU over 10 s. In pseudo-terminals of 120x40:
# 1. the release `strata-tui-demo` (the real UI loop against a scripted in-memory server);
# 2. the release `strata` itself (the UI on its in-process server core) with a fake
#    OpenAI-compatible model on 127.0.0.1 (bench/tui_strata.py).
#   bench/tui.sh              builds both binaries, runs both
#   SKIP_BUILD=1 bench/tui.sh
#   ONLY=demo | ONLY=strata   one of the two
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
only="${ONLY:-all}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ "$only" != strata ]; then
  [ -z "${SKIP_BUILD:-}" ] && cargo build --release -p strata-tui --bin strata-tui-demo
  echo "== strata-tui-demo"
  python3 bench/tui_drive.py "$target/release/strata-tui-demo" "$work"
fi
if [ "$only" != demo ]; then
  [ -z "${SKIP_BUILD:-}" ] && cargo build --release -p strata --bin strata
  echo "== strata (in-process server)"
  mkdir -p "$work/strata"
  python3 bench/tui_strata.py "$target/release/strata" "$work/strata"
fi
