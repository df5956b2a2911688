#!/usr/bin/env bash
# Fuzzes a running `strata serve` from outside with schemathesis (PyPI), against the server's
# own OpenAPI document (`GET /doc`): every answer must follow the document (status, content
# type, body schema), no request may end in a 500, and the server must still answer `/doc`
# when the run ends. Prints schemathesis's summary and exits non-zero on any failure.
#
# The server runs on a fresh temporary project, data, config and home, with its only provider
# pointed at a closed local port and `bash` denied, so no request reaches the network or runs
# a command. The event streams (`/event`, `/global/event`) never end, so they are left out.
#
# Environment: STRATA_BIN (default: the debug build, built first), SCHEMATHESIS (default:
# $HOME/.cache/strata/schemathesis-venv/bin/schemathesis; .ci/run installs it),
# MAX_EXAMPLES per operation (default 30), SEED (default 1, so runs repeat).
set -euo pipefail
cd "$(dirname "$0")/.."
ST="${SCHEMATHESIS:-$HOME/.cache/strata/schemathesis-venv/bin/schemathesis}"
if [ ! -x "$ST" ]; then
  echo "schemathesis: $ST is missing; install it with:" >&2
  echo "  python3 -m venv \$HOME/.cache/strata/schemathesis-venv && \\" >&2
  echo "  \$HOME/.cache/strata/schemathesis-venv/bin/pip install schemathesis==4.32.5" >&2
  exit 2
fi
if [ -z "${STRATA_BIN:-}" ]; then
  cargo build -q -p strata
  STRATA_BIN="${CARGO_TARGET_DIR:-target}/debug/strata"
fi

work="$(mktemp -d)"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/project" "$work/data" "$work/config" "$work/home" "$work/tmp"
cat >"$work/project/strata.json" <<'JSON'
{"model": "openai/schemathesis",
 "provider": {"openai": {"baseURL": "http://127.0.0.1:9/v1"}},
 "permission": {"bash": "deny"}, "sandbox": {"auto_allow": false}}
JSON
STRATA_DATA_DIR="$work/data" STRATA_CONFIG_DIR="$work/config" HOME="$work/home" \
  TMPDIR="$work/tmp" OPENAI_API_KEY=unused \
  "$STRATA_BIN" serve --port 0 --dir "$work/project" >"$work/out" 2>"$work/err" &
server=$!
url=""
for _ in $(seq 1 300); do
  url="$(grep -o 'http://[^ ]*' "$work/out" | head -n 1 || true)"
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/err" >&2; echo "schemathesis: strata serve exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "schemathesis: strata serve printed no URL" >&2; exit 1; }

status=0
# From the scratch folder: schemathesis keeps its own state in `.schemathesis/` of the cwd.
(cd "$work" && "$ST" run "$url/doc" --url "$url" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --exclude-path-regex 'event$' \
  --max-examples "${MAX_EXAMPLES:-30}" \
  --seed "${SEED:-1}" \
  --request-timeout 10 \
  --workers 1 \
  --suppress-health-check all) \
  || status=$?

if ! kill -0 "$server" 2>/dev/null; then
  echo "schemathesis: strata serve died during the run; its stderr:" >&2
  tail -n 40 "$work/err" >&2
  exit 1
fi
doc="$(curl -s -o /dev/null -w '%{http_code}' "$url/doc")"
if [ "$doc" != 200 ]; then
  echo "schemathesis: /doc answered $doc after the run" >&2
  exit 1
fi
echo "schemathesis: strata serve still answers /doc after the run"
exit "$status"
