#!/usr/bin/env bash
# Benchmarks of `strata tool` on large inputs (not part of CI; see bench/README.md).
#
#  (a) `read` of the first page of a 1 GiB file against a 1 KiB file, plus a 1 GiB file of
#      short lines (where the 2000-line limit, not the 50 KB cap, ends the page);
#  (b) `grep` over a ~500 MB tree of 20,000 files against `rg` with the same pattern.
#
# Times come from hyperfine (warm page cache), peak memory from `/usr/bin/time -v`.
# Everything is generated under a temporary directory that is removed at the end.
#
# Environment:
#   GREP_TREE=DIR   search DIR instead of the generated tree (e.g. a copy of cargo sources)
#   RUNS=N          hyperfine runs per command (default 10)
#   SKIP_BUILD=1    use the existing release binary
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-10}"
TARGET="${CARGO_TARGET_DIR:-target}"
STRATA="$TARGET/release/strata"

need() {
  command -v "$1" >/dev/null 2>&1 && return
  echo "bench: \`$1\` is missing; install it with: apt-get update && apt-get install -y $2" >&2
  exit 1
}
need hyperfine hyperfine
need rg ripgrep
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing; apt-get install -y time" >&2; exit 1; }

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  cargo build --release -p strata
fi
STRATA="$(cd "$(dirname "$STRATA")" && pwd)/strata"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# Strata's data and config go to the scratch directory, never the user's.
export STRATA_DATA_DIR="$WORK/data" STRATA_CONFIG_DIR="$WORK/config"
mkdir -p "$STRATA_DATA_DIR" "$STRATA_CONFIG_DIR"

# Peak resident set size of one run, in MiB.
peak_rss() {
  /usr/bin/time -v "$@" 2>&1 >/dev/null |
    awk -F: '/Maximum resident set size/ { printf "%.1f MiB", $2 / 1024 }'
}

# bench NAME RUNS COMMAND...
bench() {
  local name="$1" runs="$2"; shift 2
  hyperfine --style basic --warmup 2 --runs "$runs" --export-markdown "$WORK/$name.md" "$@"
}

summary=()

# ---------------------------------------------------------------- (a) read
READ_DIR="$WORK/read"
mkdir -p "$READ_DIR"
# 1 KiB: 16 lines of 64 bytes.
for _ in $(seq 16); do printf '%063d\n' 0; done >"$READ_DIR/small.txt"
# (`yes` ends by SIGPIPE, which is not a failure here.)
# 1 GiB of source-like 76-byte lines: the 50 KB page cap ends the page after ~680 lines.
{ yes 'let value = parser.parse(input).map_err(|e| Error::new(e, "context"))?;   ' || true; } |
  head -c 1073741824 >"$READ_DIR/big.txt"

read_cmd() { echo "$STRATA tool read '{\"filePath\":\"$1\"}' --dir $READ_DIR"; }
bench read "$RUNS" "$(read_cmd small.txt)" "$(read_cmd big.txt)"
summary+=("read 1 KiB peak RSS: $(peak_rss "$STRATA" tool read '{"filePath":"small.txt"}' --dir "$READ_DIR")")
summary+=("read 1 GiB peak RSS: $(peak_rss "$STRATA" tool read '{"filePath":"big.txt"}' --dir "$READ_DIR")")
rm -f "$READ_DIR/big.txt"

# 1 GiB of 11-byte lines: 2000 lines fit under the cap, and the rest is read to count lines.
{ yes 'short line' || true; } | head -c 1073741824 >"$READ_DIR/short-lines.txt"
bench read-short-lines 5 "$(read_cmd short-lines.txt)"
summary+=("read 1 GiB short lines peak RSS: $(peak_rss "$STRATA" tool read '{"filePath":"short-lines.txt"}' --dir "$READ_DIR")")
rm -f "$READ_DIR/short-lines.txt"

# ---------------------------------------------------------------- (b) grep
if [ -n "${GREP_TREE:-}" ]; then
  TREE="$(cd "$GREP_TREE" && pwd)"
else
  TREE="$WORK/tree"
  # 200 folders x 100 files x 320 lines of ~80 bytes (~500 MB); every 400th file holds one
  # match, so both tools print 50 matches.
  awk -v root="$TREE" 'BEGIN {
    srand(42)
    n = split("the a parse value request handle buffer index token stream error result " \
              "config module service graph node tier scope cache layer future option vector " \
              "string bytes path file line match search pattern", words, " ")
    for (i = 1; i <= 4000; i++) {
      s = "    let"
      w = 6 + int(rand() * 10)
      for (j = 0; j < w; j++) s = s (rand() < 0.3 ? "_" : " ") words[1 + int(rand() * n)]
      pool[i] = s ";"
    }
    for (f = 0; f < 20000; f++) {
      dir = sprintf("%s/d%03d", root, int(f / 100))
      if (f % 100 == 0) system("mkdir -p " dir)
      path = sprintf("%s/f%05d.rs", dir, f)
      for (l = 0; l < 320; l++) print pool[1 + int(rand() * 4000)] > path
      if (f % 400 == 0) print "fn handle_request_" f "(req: Request) -> Response { todo!() }" > path
      close(path)
    }
  }'
fi
PATTERN='fn handle_request_[0-9]+\('
files=$(find "$TREE" -type f | wc -l)
size=$(du -sh "$TREE" | cut -f1)
GREP_ARGS="{\"pattern\":\"fn handle_request_[0-9]+\\\\(\"}"
# `rg --hidden` because Strata's grep searches hidden files too.
bench grep "$RUNS" \
  "$STRATA tool grep '$GREP_ARGS' --dir $TREE" \
  "rg --hidden -n '$PATTERN' $TREE"
summary+=("grep tree: $files files, $size")
summary+=("strata grep matches: $("$STRATA" tool grep "$GREP_ARGS" --dir "$TREE" | grep -c 'handle_request' || true)")
summary+=("rg matches: $(rg --hidden -n "$PATTERN" "$TREE" | wc -l)")
summary+=("strata grep peak RSS: $(peak_rss "$STRATA" tool grep "$GREP_ARGS" --dir "$TREE")")
summary+=("rg peak RSS: $(peak_rss rg --hidden -n "$PATTERN" "$TREE")")

echo
echo "== results ($(nproc) cores; hyperfine $(hyperfine --version | cut -d' ' -f2); $(rg --version | head -1))"
for f in read read-short-lines grep; do
  sed -e "s#$WORK#\$WORK#g" -e "s#$STRATA#strata#g" "$WORK/$f.md"
  echo
done
printf '%s\n' "${summary[@]}"
