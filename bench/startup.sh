#!/usr/bin/env bash
# Start-up cost of short `strata` commands (not part of CI; see bench/README.md): peak RSS and
# wall time of
#
#   strata --version
#   strata tools --model openai/gpt-5
#   strata debug graph
#   strata run (one `read` call, then an answer) against a scripted model on 127.0.0.1
#
# for one binary, or for a baseline and a candidate side by side with their ratios, plus each
# binary's size on disk and stripped. Times come from hyperfine (warm page cache); peak RSS is
# `/usr/bin/time -v`'s "Maximum resident set size", the median of RSS_RUNS runs.
#
# The model is a small Python server speaking OpenAI's chat completions (streaming): the
# agent's first request gets one `read` call, every later one a short answer; requests
# without tools (the session title) get a title. Every command runs in a fresh project
# directory, with HOME and Strata's data and config directories in a temporary folder that
# is removed at the end.
#
# Environment:
#   STRATA_BIN=PATH  the candidate binary (default: $CARGO_TARGET_DIR/release/strata, built
#                    unless SKIP_BUILD=1)
#   BASE_BIN=PATH    a baseline binary to compare against (optional)
#   RUNS=N           hyperfine runs per command (default 30), WARMUP=N warm-ups (default 3)
#   RSS_RUNS=N       runs whose peak RSS is measured (default 5; the median is shown)
#   ORDER=PATH       measure nothing: run each command once under valgrind's callgrind and write
#                    the candidate's functions they execute, in first-run order, to PATH (the
#                    start-up order file, crates/cli/startup.order; see crates/cli/build.rs)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -z "${ORDER:-}" ] || ORDER="$(realpath -m "$ORDER")"

RUNS="${RUNS:-30}"
WARMUP="${WARMUP:-3}"
RSS_RUNS="${RSS_RUNS:-5}"
TARGET="${CARGO_TARGET_DIR:-target}"

need() {
  command -v "$1" >/dev/null 2>&1 && return
  echo "bench: \`$1\` is missing; install it with: apt-get update && apt-get install -y $2" >&2
  exit 1
}
need hyperfine hyperfine
need python3 python3
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing; apt-get install -y time" >&2; exit 1; }

if [ -z "${STRATA_BIN:-}" ]; then
  [ "${SKIP_BUILD:-0}" = 1 ] || cargo build --release -p strata
  STRATA_BIN="$TARGET/release/strata"
fi
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
BINS=("new=$(abs "$STRATA_BIN")")
if [ -n "${BASE_BIN:-}" ]; then
  BINS=("base=$(abs "$BASE_BIN")" "${BINS[@]}")
fi
for b in "${BINS[@]}"; do
  [ -x "${b#*=}" ] || { echo "bench: no executable at ${b#*=}" >&2; exit 1; }
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-bench-startup.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
# Nothing of the user's: HOME, config and data all live in the scratch folder.
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config" XDG_DATA_HOME="$WORK/home/.local/share"
export STRATA_DATA_DIR="$WORK/data" STRATA_CONFIG_DIR="$WORK/config"
mkdir -p "$HOME" "$STRATA_DATA_DIR" "$STRATA_CONFIG_DIR" "$WORK/project"
echo "hello from the bench" > "$WORK/project/notes.txt"
unset STRATA_LOG RUST_LOG OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_TRACES_ENDPOINT

# The scripted model: one `read` call while no tool result is in the history, then an answer.
python3 - "$WORK/model.port" "$WORK/project/notes.txt" <<'PY' &
import http.server, json, sys
port_file, path = sys.argv[1], sys.argv[2]
def frame(delta, finish=None):
    c = {"id": "b", "object": "chat.completion.chunk", "created": 0, "model": "gpt-5",
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(c) + "\n\n"
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        out = [frame({"role": "assistant", "content": ""})]
        if not body.get("tools"):
            out += [frame({"content": "Bench title"}), frame({}, "stop")]
        elif any(m.get("role") == "tool" for m in body["messages"]):
            out += [frame({"content": "The file says hello."}), frame({}, "stop")]
        else:
            args = json.dumps({"filePath": path})
            out += [frame({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                     "function": {"name": "read", "arguments": args}}]}), frame({}, "tool_calls")]
        out.append("data: [DONE]\n\n")
        data = "".join(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(port_file, "w").write(str(s.server_address[1]))
s.serve_forever()
PY
PIDS+=($!)
for _ in $(seq 100); do [ -s "$WORK/model.port" ] && break; sleep 0.1; done
[ -s "$WORK/model.port" ] || { echo "bench: the scripted model did not start" >&2; exit 1; }
export OPENAI_BASE_URL="http://127.0.0.1:$(cat "$WORK/model.port")/v1" OPENAI_API_KEY=bench
cd "$WORK/project"

COMMANDS=(
  "version|--version"
  "tools|tools --model openai/gpt-5"
  "graph|debug graph"
  "run|run --model openai/gpt-5 --format json read-notes"
)

# One checked run of each binary: the run must finish its `read` call and answer.
for b in "${BINS[@]}"; do
  "${b#*=}" run --model openai/gpt-5 --format json read-notes > "$WORK/check.jsonl" \
    || { echo "bench: ${b%%=*}: strata run failed" >&2; exit 1; }
  grep -q '"status":"completed"' "$WORK/check.jsonl" \
    || { echo "bench: ${b%%=*}: the run made no completed tool call" >&2; exit 1; }
done

# The functions of the binary that the commands execute, first run first, one per line.
if [ -n "${ORDER:-}" ]; then
  need valgrind valgrind
  bin="${BINS[${#BINS[@]}-1]#*=}"
  for c in "${COMMANDS[@]}"; do
    # shellcheck disable=SC2086 # the arguments are words
    valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$WORK/${c%%|*}.cg" \
      "$bin" ${c#*|} > /dev/null
  done
  python3 - "$bin" "$ORDER" "$WORK" "${COMMANDS[@]}" <<'PY'
import re, sys
binary, out, work, commands = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
seen, order = set(), []
for c in commands:
    names, obs, ob = {}, {}, None
    for line in open(f"{work}/{c.split('|')[0]}.cg"):
        m = re.match(r"(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, id_, name = m.groups()
        table = obs if kind.endswith("ob") else names
        if name is not None:
            table[id_] = name
        if kind == "ob":
            ob = obs[id_]
        elif kind == "fn" and ob == binary:
            # Callgrind marks recursion levels with 'N; the symbol is the same.
            sym = re.sub(r"'\d+$", "", names[id_])
            if not sym.startswith("0x") and sym not in seen:
                seen.add(sym)
                order.append(sym)
open(out, "w").write("\n".join(order) + "\n")
print(f"bench: {len(order)} functions written to {out}")
PY
  exit 0
fi

# Median peak RSS in KiB of RSS_RUNS runs of a command.
peak_rss() {
  for _ in $(seq "$RSS_RUNS"); do
    /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ { print $2 + 0 }'
  done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

for c in "${COMMANDS[@]}"; do
  name="${c%%|*}"; args="${c#*|}"
  for b in "${BINS[@]}"; do
    who="${b%%=*}"; bin="${b#*=}"
    # shellcheck disable=SC2086 # the arguments are words
    peak_rss "$bin" $args > "$WORK/$who-$name.rss"
    hyperfine --style none --shell=none --warmup "$WARMUP" --runs "$RUNS" \
      --export-json "$WORK/$who-$name.json" "$bin $args" > /dev/null
  done
done

for b in "${BINS[@]}"; do
  bin="${b#*=}"
  strip -o "$WORK/stripped" "$bin"
  echo "$(stat -c %s "$bin") $(stat -c %s "$WORK/stripped")" > "$WORK/${b%%=*}.size"
done

python3 - "$WORK" "${#BINS[@]}" <<'PY'
import json, os, sys
work, two = sys.argv[1], sys.argv[2] == "2"
who = ["base", "new"] if two else ["new"]
names = [("version", "--version"), ("tools", "tools --model openai/gpt-5"),
         ("graph", "debug graph"), ("run", "run, one read call")]
def rss(w, n): return int(open(f"{work}/{w}-{n}.rss").read()) / 1024
def time(w, n):
    r = json.load(open(f"{work}/{w}-{n}.json"))["results"][0]
    return r["mean"] * 1000, r["stddev"] * 1000, r["median"] * 1000
if two:
    print("| command | peak RSS before | after | ratio | time before (mean ± σ) | after | ratio |")
    print("|:---|---:|---:|---:|---:|---:|---:|")
else:
    print("| command | peak RSS | time (mean ± σ) | median |")
    print("|:---|---:|---:|---:|")
for n, label in names:
    if two:
        (ra, rb), (ta, tb) = (rss("base", n), rss("new", n)), (time("base", n), time("new", n))
        print(f"| `strata {label}` | {ra:.1f} MiB | {rb:.1f} MiB | {rb / ra:.2f} | "
              f"{ta[0]:.1f} ± {ta[1]:.1f} ms | {tb[0]:.1f} ± {tb[1]:.1f} ms | {tb[0] / ta[0]:.2f} |")
    else:
        t = time("new", n)
        print(f"| `strata {label}` | {rss('new', n):.1f} MiB | {t[0]:.1f} ± {t[1]:.1f} ms | {t[2]:.1f} ms |")
print()
for w in who:
    size, stripped = (int(x) for x in open(f"{work}/{w}.size").read().split())
    print(f"{w}: binary {size / 2**20:.1f} MiB, stripped {stripped / 2**20:.1f} MiB")
PY
