#!/usr/bin/env bash
# What `webfetch` costs against a loopback web server (not part of CI; see bench/README.md):
#
#  (a) a 4 MiB HTML page fetched as markdown, text and html: time and peak memory;
#  (b) an endless chunked body: the 5 MiB cap must stop the read, and peak memory must stay
#      under 40 MiB (the script fails otherwise).
#
# The server is a small Python program on 127.0.0.1. Times come from hyperfine, peak memory
# from `/usr/bin/time -v`.
#
# Environment: RUNS=N hyperfine runs per command (default 10); SKIP_BUILD=1 reuses the build.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-10}"
TARGET="${CARGO_TARGET_DIR:-target}"
RSS_LIMIT_KIB=$((40 * 1024))
command -v hyperfine >/dev/null || { echo "bench: apt-get install -y hyperfine" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench: apt-get install -y python3" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: apt-get install -y time" >&2; exit 1; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  cargo build --release -p strata
fi
STRATA="$(cd "$TARGET/release" && pwd)/strata"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-bench-web.XXXXXX")"
SERVER_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
export STRATA_DATA_DIR="$WORK/data" STRATA_CONFIG_DIR="$WORK/config"
mkdir -p "$STRATA_DATA_DIR" "$STRATA_CONFIG_DIR" "$WORK/project"

# A 4 MiB page of ordinary markup: headings, paragraphs with links and emphasis, lists, code,
# and scripts and styles that the conversions must drop.
python3 - "$WORK/page.html" <<'PY'
import sys
parts = ["<!doctype html><html><head><title>Bench page</title>",
         "<style>body { font: 14px sans-serif }</style></head><body>"]
size, i = sum(map(len, parts)), 0
while size < 4 * 1024 * 1024:
    block = (f"<h2>Section {i}</h2><p>Paragraph {i} with <b>bold</b>, <i>italic</i> and a "
             f"<a href=\"https://example.com/{i}\">link</a> in running text.</p>"
             f"<ul><li>first {i}</li><li>second {i}</li></ul>"
             f"<pre><code>fn item_{i}() -> u32 {{ {i} }}</code></pre>"
             f"<script>var counter{i} = {i};</script>\n")
    parts.append(block)
    size += len(block)
    i += 1
parts.append("</body></html>")
open(sys.argv[1], "w").write("".join(parts))
PY

# The server: /page.html from disk, /endless a chunked body that never ends. It writes its
# port to a file once it listens.
python3 - "$WORK/page.html" "$WORK/port" <<'PY' &
import http.server, sys
page = open(sys.argv[1], "rb").read()
chunk = b"<p>" + b"x" * 65530 + b"</p>"
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_GET(self):
        if self.path == "/page.html":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while True:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except (BrokenPipeError, ConnectionResetError):
            pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
open(sys.argv[2], "w").write(str(server.server_address[1]))
server.serve_forever()
PY
SERVER_PID=$!
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
[ -s "$WORK/port" ] || { echo "bench: the web server did not start" >&2; exit 1; }
BASE="http://127.0.0.1:$(cat "$WORK/port")"

fetch_cmd() { echo "$STRATA tool webfetch '{\"url\":\"$BASE/$1\",\"format\":\"$2\"}' --dir $WORK/project"; }
# Peak resident set size of one run, in KiB.
peak_kib() {
  /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ { print $2 + 0 }'
}

echo "== (a) 4 MiB page ($(du -k "$WORK/page.html" | cut -f1) KiB)"
hyperfine --style basic --warmup 2 --runs "$RUNS" --export-markdown "$WORK/page.md" \
  -n markdown "$(fetch_cmd page.html markdown)" \
  -n text "$(fetch_cmd page.html text)" \
  -n html "$(fetch_cmd page.html html)"
summary=()
for format in markdown text html; do
  kib=$(peak_kib "$STRATA" tool webfetch "{\"url\":\"$BASE/page.html\",\"format\":\"$format\"}" \
    --dir "$WORK/project")
  summary+=("4 MiB page as $format: peak RSS $((kib / 1024)) MiB")
done

echo "== (b) endless chunked body"
start=$(date +%s%N)
set +e
"$STRATA" tool webfetch "{\"url\":\"$BASE/endless\",\"format\":\"html\"}" --dir "$WORK/project" \
  >/dev/null 2>"$WORK/endless.err"
code=$?
set -e
ms=$((($(date +%s%N) - start) / 1000000))
kib=$(peak_kib "$STRATA" tool webfetch "{\"url\":\"$BASE/endless\",\"format\":\"html\"}" \
  --dir "$WORK/project" || true)
summary+=("endless body: exit $code after ${ms} ms, peak RSS $((kib / 1024)) MiB: $(head -c 160 "$WORK/endless.err")")

echo
echo "== results ($(nproc) cores; hyperfine $(hyperfine --version | cut -d' ' -f2))"
sed -e "s#$WORK#\$WORK#g" -e "s#$STRATA#strata#g" -e "s#$BASE#\$BASE#g" "$WORK/page.md"
echo
printf '%s\n' "${summary[@]}" | sed -e "s#$BASE#\$BASE#g"
if [ "$code" = 0 ] || ! grep -q "5 MB" "$WORK/endless.err"; then
  echo "bench: the endless body was not refused at the cap" >&2
  exit 1
fi
if [ "$kib" -ge "$RSS_LIMIT_KIB" ]; then
  echo "bench: the endless body took $kib KiB, over the $RSS_LIMIT_KIB KiB limit" >&2
  exit 1
fi
