#!/usr/bin/env bash
# What diagnostics cost: `strata tool write` of a C file with an error, with clangd answering
# (start, initialise, parse, publish, stop, all inside one run) and with `"lsp": false`.
# Not part of CI; see bench/README.md.
#
# Environment: RUNS=N hyperfine runs per command (default 10); SKIP_BUILD=1 reuses the build.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-10}"
TARGET="${CARGO_TARGET_DIR:-target}"
command -v hyperfine >/dev/null || { echo "bench: apt-get install -y hyperfine" >&2; exit 1; }
command -v clangd >/dev/null || { echo "bench: apt-get install -y clangd" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: apt-get install -y time" >&2; exit 1; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  cargo build --release -p strata
fi
STRATA="$(cd "$TARGET/release" && pwd)/strata"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-bench-lsp.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export STRATA_DATA_DIR="$WORK/data" STRATA_CONFIG_DIR="$WORK/config"
mkdir -p "$STRATA_DATA_DIR" "$STRATA_CONFIG_DIR" "$WORK/on" "$WORK/off"
echo '{"lsp": false}' >"$WORK/off/strata.json"

ARGS='{"filePath":"main.c","content":"int main(void) {\n  return missing;\n}\n"}'
hyperfine --style basic --warmup 2 --runs "$RUNS" \
  -n "write with clangd diagnostics" "$STRATA tool write '$ARGS' --yes --dir $WORK/on" \
  -n "write with lsp off" "$STRATA tool write '$ARGS' --yes --dir $WORK/off"
for mode in on off; do
  rss=$(/usr/bin/time -v "$STRATA" tool write "$ARGS" --yes --dir "$WORK/$mode" 2>&1 >/dev/null |
    awk -F: '/Maximum resident set size/ { printf "%.1f MiB", $2 / 1024 }')
  echo "strata peak RSS, lsp $mode: $rss"
done
echo "output with clangd:"
"$STRATA" tool write "$ARGS" --yes --dir "$WORK/on" | sed "s#$WORK#\$WORK#g"
