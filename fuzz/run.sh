#!/usr/bin/env bash
# Builds every fuzz target and runs each for SECONDS (default 15) from its committed seeds in
# fuzz/corpus/. New inputs and crash files go to a scratch folder, never into the repository.
# Prints one line per target (runs, executions per second, corpus size) and exits non-zero at
# the first crash or broken property, naming the target and the saved input.
#
# Usage: fuzz/run.sh [SECONDS] [TARGET...]   (cargo-fuzz and RUSTC_BOOTSTRAP=1, see README.md)
# FUZZ_PROFILE=dev builds the dev profile: about a third of the release build's CPU time, and
# slower runs; .ci/run uses it for its short stage. The default is release.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-15}"
shift || true
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$HOME/.cache/strata/fuzz-target}"
# No sanitizer: the code is safe Rust, and the instrumentation alone finds panics and broken
# assertions; debug assertions and overflow checks stay on in both profiles (Cargo.toml).
build=(--sanitizer none)
case "${FUZZ_PROFILE:-release}" in
  dev) build+=(--dev) ;;
  release) build+=(--debug-assertions) ;;
  *) echo "fuzz: FUZZ_PROFILE must be dev or release, not ${FUZZ_PROFILE}" >&2; exit 2 ;;
esac
started=$SECONDS
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
cargo fuzz build "${build[@]}"
built=$SECONDS
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t/new" "$scratch/$t/artifacts"
  log="$scratch/$t/log"
  if ! cargo fuzz run "${build[@]}" "$t" "$scratch/$t/new" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$scratch/$t/artifacts/" >"$log" 2>&1; then
    echo "fuzz: $t FAILED; its last lines:"
    tail -n 40 "$log"
    saved="${FUZZ_KEEP:-$PWD/fuzz/artifacts}/$t"
    mkdir -p "$saved"
    cp "$scratch/$t/artifacts/"* "$saved/" 2>/dev/null || true
    echo "fuzz: the failing input is kept in $saved"
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  corpus=$(find "$scratch/$t/new" "fuzz/corpus/$t" -type f 2>/dev/null | wc -l)
  printf 'fuzz: %-18s %10s runs in %ss, %7s exec/s, corpus %s\n' "$t" "$runs" "$seconds" "$rate" "$corpus"
done
echo "fuzz: ${#targets[@]} targets: build $((built - started)) s, runs $((SECONDS - built)) s"
