#!/usr/bin/env bash
# The snapshot store over 500 scripted turns in a 440-file project with a 50 MB untracked build
# folder: the store's size, and the time per capture and per revert at the first and the last
# turn (crates/services/examples/snapshot_store.rs). Needs git. Environment: TURNS (500),
# MAX_MB (2048), GIT=1 for a git project (default: a plain folder).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run -q -p strata-services --example snapshot_store
