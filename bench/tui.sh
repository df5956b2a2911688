#!/usr/bin/env bash
# TUI figures: keypress -> frame, frame time while streaming 5,000 tokens, peak RSS and frame
# time with a 1,000-message session, idle CPU over 10 s. Runs the release `strata-tui-demo`
# (the real UI loop against a scripted in-memory server) in a pseudo-terminal of 120x40.
#   bench/tui.sh            builds `cargo build --release -p strata-tui --bin strata-tui-demo`
#   SKIP_BUILD=1 bench/tui.sh
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
if [ -z "${SKIP_BUILD:-}" ]; then
  cargo build --release -p strata-tui --bin strata-tui-demo
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 bench/tui_drive.py "$target/release/strata-tui-demo" "$work"
