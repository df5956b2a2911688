#!/usr/bin/env bash
# What exporting spans over OTLP costs (not part of CI; see bench/README.md): one `strata run`
# that makes 1,000 tool calls (20 steps of 50 parallel `glob` calls, then a final answer),
# timed without export and with export to an OTLP/HTTP receiver on loopback.
#
# The scripted model (OpenAI-compatible, streaming) and the OTLP receiver (accepts
# POST /v1/traces and counts the bytes) are small Python programs on 127.0.0.1. Times come
# from hyperfine.
#
# Environment: RUNS=N hyperfine runs per command (default 5); CALLS=N tool calls per run
# (default 1000); BATCH=N calls per step (default 50); SKIP_BUILD=1 reuses the build;
# STRATA_BIN=PATH times that binary instead (implies SKIP_BUILD).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-5}"
CALLS="${CALLS:-1000}"
BATCH="${BATCH:-50}"
TARGET="${CARGO_TARGET_DIR:-target}"
command -v hyperfine >/dev/null || { echo "bench: apt-get install -y hyperfine" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench: apt-get install -y python3" >&2; exit 1; }
if [ -n "${STRATA_BIN:-}" ]; then
  STRATA="$STRATA_BIN"
else
  [ "${SKIP_BUILD:-0}" = 1 ] || cargo build --release -p strata
  STRATA="$(cd "$TARGET/release" && pwd)/strata"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-bench-otlp.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
export STRATA_DATA_DIR="$WORK/data" STRATA_CONFIG_DIR="$WORK/config"
mkdir -p "$STRATA_DATA_DIR" "$STRATA_CONFIG_DIR" "$WORK/project"
for i in 1 2 3; do echo "file $i" > "$WORK/project/f$i.txt"; done

# The model: while fewer than CALLS tool results are in the history, a step of BATCH `glob`
# calls (each pattern different, so the repeated-call guard stays quiet); then a short answer.
python3 - "$WORK/model.port" "$CALLS" "$BATCH" <<'PY' &
import http.server, json, sys
port_file, total, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def frame(delta, finish=None):
    c = {"id": "b", "object": "chat.completion.chunk", "created": 0, "model": "bench",
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(c) + "\n\n"
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        done = sum(1 for m in body["messages"] if m.get("role") == "tool")
        out = [frame({"role": "assistant", "content": ""})]
        if done >= total:
            out += [frame({"content": "done"}), frame({}, "stop")]
        else:
            for i in range(min(batch, total - done)):
                out.append(frame({"tool_calls": [{"index": i, "id": f"c{done + i}", "type": "function",
                    "function": {"name": "glob", "arguments": json.dumps({"pattern": f"*{done + i}*"})}}]}))
            out.append(frame({}, "tool_calls"))
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

# The OTLP receiver: 200 to every POST /v1/traces, bytes counted in a file.
python3 - "$WORK/otlp.port" "$WORK/otlp.bytes" <<'PY' &
import http.server, sys
port_file, count_file = sys.argv[1], sys.argv[2]
total = 0
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        global total
        total += len(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        open(count_file, "w").write(str(total))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(port_file, "w").write(str(s.server_address[1]))
s.serve_forever()
PY
PIDS+=($!)

for f in model.port otlp.port; do
  for _ in $(seq 100); do [ -s "$WORK/$f" ] && break; sleep 0.1; done
done
export OPENAI_BASE_URL="http://127.0.0.1:$(cat "$WORK/model.port")/v1" OPENAI_API_KEY=bench
OTLP="http://127.0.0.1:$(cat "$WORK/otlp.port")"
RUN="cd '$WORK/project' && '$STRATA' run --model openai/bench --max-steps 1000 --format json go > '$WORK/out.jsonl'"

# One checked run first: every call completed, and the receiver got spans.
(cd "$WORK/project" && OTEL_EXPORTER_OTLP_ENDPOINT="$OTLP" "$STRATA" run --model openai/bench \
  --max-steps 1000 --format json go > "$WORK/out.jsonl")
completed=$(grep -c '"status":"completed"' "$WORK/out.jsonl" || true)
echo "check: $completed completed tool calls; OTLP receiver got $(cat "$WORK/otlp.bytes" 2>/dev/null || echo 0) bytes"
[ "$completed" -ge "$CALLS" ] || { echo "bench: expected $CALLS completed calls" >&2; exit 1; }

hyperfine --runs "$RUNS" --warmup 1 \
  -n "no export" "env -u OTEL_EXPORTER_OTLP_ENDPOINT sh -c \"$RUN\"" \
  -n "OTLP export" "env OTEL_EXPORTER_OTLP_ENDPOINT=$OTLP sh -c \"$RUN\""
