#!/usr/bin/env bash
# Long sessions (issue 22 §5; not part of CI, see bench/README.md): one stored session of
# 20,000 messages (about a million tokens), written through the real store by the agent
# crate's `longsess` example, then, with real processes against the release `strata`:
#   (a) GET /session/:id/message from `strata serve` (whole and with ?limit=), with the
#       server's peak RSS;
#   (b) `strata --session ID` (the TUI) in a pseudo-terminal: start -> the session on screen,
#       peak RSS;
#   (c) `strata run --session ID "next"` against a scripted model on 127.0.0.1: start -> the
#       first model request, peak RSS;
#   (d) `strata acp`, `session/load` (the editor's replay): request -> answer, peak RSS;
#   (e) GET /session/:id/tools: request time, the server's peak RSS.
# The driver is bench/longsess.py (python3, standard library only; `/usr/bin/time` for RSS).
#
#   bench/longsess.sh
#   SKIP_BUILD=1 bench/longsess.sh              reuse the release builds
# Environment: MESSAGES (20000), TOKENS (1000000), COMPACT_EVERY (150000, 0: never),
# RUNS (5), LIMIT (100), PARTS (get,tui,run,acp,tools), KEEP=1 keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
if [ -z "${SKIP_BUILD:-}" ]; then
  cargo build --release -p strata --bin strata
  cargo build --release -p strata-agent --example longsess
fi
work="$(mktemp -d)"
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$work"' EXIT; else echo "work folder: $work"; fi
mkdir -p "$work/proj" "$work/data"
# The session's directory is the project's real path, as `strata` resolves it.
proj="$(cd "$work/proj" && pwd -P)"
sid="$("$target/release/examples/longsess" --data "$work/data" --dir "$proj" \
  --messages "${MESSAGES:-20000}" --tokens "${TOKENS:-1000000}" \
  --compact-every "${COMPACT_EVERY:-150000}")"
echo "session $sid; database $(du -h "$work/data/strata.db" | cut -f1)"
python3 bench/longsess.py "$target/release/strata" "$work" "$sid"
