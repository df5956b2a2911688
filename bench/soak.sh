#!/usr/bin/env bash
# Soak (issue 22 §5; not part of CI, see bench/README.md): turns through the in-process server
# core (`Local`, no HTTP) with the scripted model, each a `read` call and a text answer: first
# 2,000 turns in one session, then 200 sessions of 10 turns. The test process's RSS (VmRSS)
# is sampled every 100 turns and a least-squares line is fitted through the samples after the
# first fifth (warm); open descriptors (/proc/self/fd), threads and live tokio tasks are counted
# after the first turn and at the end.
#
# The driver is the server crate's ignored test `soak::soak_full`
# (crates/server/tests/all/soak.rs). It runs whatever profile cargo builds (debug by default;
# `--release` via CARGO_ARGS if your machine allows it).
#
# Environment: LONG_TURNS (default 2000), SESSIONS (200), SESSION_TURNS (10), CARGO_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
export STRATA_SOAK_LONG_TURNS="${LONG_TURNS:-2000}" STRATA_SOAK_SESSIONS="${SESSIONS:-200}" \
  STRATA_SOAK_SESSION_TURNS="${SESSION_TURNS:-10}"
# shellcheck disable=SC2086
cargo test ${CARGO_ARGS:-} -p strata-server --test all soak::soak_full -- --ignored --nocapture \
  2>&1 | grep -E '^soak:|^test result'
