#!/usr/bin/env python3
"""Long-session figures (issue 22 §5) against the release `strata`, with real processes only
(python3 standard library; loopback only).

usage: longsess.py STRATA_BIN WORKDIR SESSION_ID
WORKDIR holds `proj/` (the project, whose strata.json this script writes), `data/` (the data
directory with the stored session) and room for config, home and temp folders. Measures, RUNS
times each (default 5), and prints medians:
  (a) GET /session/:id/message against a fresh `strata serve`: request time, body size, the
      server's peak RSS (VmHWM) after it; with no limit and with ?limit=LIMIT (default 100);
  (b) `strata --session ID` in a 120x40 pseudo-terminal: process start -> the session's last
      message on screen, and peak RSS once the screen is still;
  (c) `strata run --session ID "next"` against a scripted OpenAI-compatible model: process
      start -> the first model request arriving, and peak RSS (`/usr/bin/time -v`).
  (d) `strata acp`: `session/load` of the session (the editor's replay): request -> answer
      after every update, the updates' count and bytes, and peak RSS (`/usr/bin/time -v`);
  (e) GET /session/:id/tools against a fresh `strata serve`: request time and peak RSS.
PARTS=get,tui,run,acp,tools picks some (default: all).
"""
import json, os, pty, re, signal, statistics, struct, subprocess, sys, termios, threading, time
import fcntl, shutil
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BIN, WORK, SID = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
RUNS = int(os.environ.get("RUNS", "5"))
LIMIT = int(os.environ.get("LIMIT", "100"))
# The generator ends the last answer with this, so it is on screen when the session is drawn.
MARKER = "end of the long session"
FIRST = {"at": None, "body": None}


class Model(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        # The agent's own request offers tools; a new session's title request does not.
        if FIRST["at"] is None and b'"tools"' in raw:
            FIRST["at"], FIRST["body"] = time.time(), raw
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for c in ({"role": "assistant", "content": "done"}, {}):
            chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                     "choices": [{"index": 0, "delta": c, "finish_reason": None if c else "stop"}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        usage = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                 "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}}
        self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())


def start_model():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Model)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}/v1"


def project(url):
    root = os.path.join(WORK, "proj")
    dirs = {k: os.path.join(WORK, k) for k in ("data", "config", "home", "tmp")}
    for d in [root, *dirs.values()]:
        os.makedirs(d, exist_ok=True)
    # A 200k window: the generator compacted every 150k tokens, as the loop would have.
    model = {"limit": {"context": 200000, "output": 16000}}
    with open(os.path.join(root, "strata.json"), "w") as f:
        json.dump({"model": "openai/bench-model",
                   "provider": {"openai": {"baseURL": url, "models": {"bench-model": model}}}}, f)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STRATA_", "OPENAI_", "OTEL_"))}
    env.update(STRATA_DATA_DIR=dirs["data"], STRATA_CONFIG_DIR=dirs["config"], HOME=dirs["home"],
               TMPDIR=dirs["tmp"], TERM="xterm-256color", OPENAI_API_KEY="bench")
    return root, env


def status(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


def get_once(root, env, query):
    p = subprocess.Popen([BIN, "serve", "--port", "0", "--dir", root], cwd=root, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = p.stdout.readline().strip().rsplit(" ", 1)[-1]
        base = status(p.pid, "VmHWM")
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"{url}/session/{SID}/message{query}", timeout=120) as r:
            body = r.read(1)
            first = time.perf_counter() - t0
            body += r.read()
        took = time.perf_counter() - t0
        count = len(json.loads(body))
        return took, len(body), count, status(p.pid, "VmHWM"), base, first
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)


def get(root, env):
    for query in ("", f"?limit={LIMIT}"):
        runs = [get_once(root, env, query) for _ in range(RUNS)]
        t = statistics.median(r[0] for r in runs)
        hwm = statistics.median(r[3] for r in runs)
        base = statistics.median(r[4] for r in runs)
        first = statistics.median(r[5] for r in runs)
        print(f"GET /session/:id/message{query}: {runs[0][2]} messages, {runs[0][1] / 1e6:.1f} MB; "
              f"request median {t * 1000:.0f} ms (min {min(r[0] for r in runs) * 1000:.0f}), first "
              f"byte {first * 1000:.0f} ms; server peak RSS median {mib(hwm)} (after start {mib(base)})")


def tui_once(root, env, args=None, marker=MARKER):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    trace = os.path.join(WORK, f"trace-{time.time_ns()}")
    t0 = time.perf_counter()
    args = ["--session", SID] if args is None else args
    p = subprocess.Popen([BIN, *args], stdin=slave, stdout=slave, stderr=slave, cwd=root,
                         env={**env, "STRATA_TUI_TRACE": trace}, start_new_session=True)
    os.close(slave)
    out, seen = bytearray(), None
    try:
        end = time.time() + 120
        while time.time() < end:
            out += os.read(master, 65536)
            text = re.sub(r"\s+", " ", re.sub(r"\x1b\[[0-9;?>]*[A-Za-z~]", " ", out.decode(errors="replace")))
            if marker in text:
                seen = time.perf_counter() - t0
                break
        if seen is None:
            raise SystemExit(f"the screen never showed {marker!r}; last output: {out[-2000:]!r}")
        # Let it settle (no frame for half a second) before reading the peak.
        last, since = -1, time.time()
        while time.time() - since < 0.5:
            n = sum(1 for _ in open(trace)) if os.path.exists(trace) else 0
            if n != last:
                last, since = n, time.time()
            time.sleep(0.05)
        frames = [l.split() for l in open(trace) if l.startswith("frame")]
        return seen, status(p.pid, "VmHWM"), max(int(f[1]) for f in frames)
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        os.close(master)


def tui(root, env):
    empty = [tui_once(root, env, [], "Ask anything") for _ in range(RUNS)]
    print(f"TUI with no session (for comparison): start -> first frame median "
          f"{statistics.median(r[0] for r in empty) * 1000:.0f} ms; peak RSS median "
          f"{mib(statistics.median(r[1] for r in empty))}")
    runs = [tui_once(root, env) for _ in range(RUNS)]
    print(f"TUI --session: start -> last message on screen median "
          f"{statistics.median(r[0] for r in runs) * 1000:.0f} ms (min {min(r[0] for r in runs) * 1000:.0f}); "
          f"peak RSS median {mib(statistics.median(r[1] for r in runs))}; slowest draw median "
          f"{statistics.median(r[2] for r in runs) / 1000:.2f} ms")


def pristine(work):
    """Puts back the session as generated, so each run resumes the same 20,000 messages."""
    data, keep = os.path.join(work, "data"), os.path.join(work, "data.orig")
    if not os.path.exists(keep):
        shutil.copytree(data, keep)
    shutil.rmtree(data)
    shutil.copytree(keep, data)


def run_once(root, env, resume=True):
    pristine(WORK)
    FIRST["at"] = FIRST["body"] = None
    args = ["--session", SID] if resume else []
    t0 = time.time()
    p = subprocess.run(["/usr/bin/time", "-v", BIN, "run", *args, "next"], cwd=root,
                       env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or FIRST["at"] is None:
        raise SystemExit(f"strata run failed ({p.returncode}): {p.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    body = json.loads(FIRST["body"])
    return FIRST["at"] - t0, rss, len(FIRST["body"]), len(body.get("messages", []))


def run(root, env):
    fresh = [run_once(root, env, resume=False) for _ in range(RUNS)]
    print(f"run (a new session, for comparison): start -> first model request median "
          f"{statistics.median(r[0] for r in fresh) * 1000:.0f} ms; peak RSS median "
          f"{mib(statistics.median(r[1] for r in fresh))}")
    runs = [run_once(root, env) for _ in range(RUNS)]
    print(f"run --session: start -> first model request median "
          f"{statistics.median(r[0] for r in runs) * 1000:.0f} ms (min {min(r[0] for r in runs) * 1000:.0f}); "
          f"peak RSS median {mib(statistics.median(r[1] for r in runs))}; first request "
          f"{runs[-1][3]} messages, {runs[-1][2] / 1e6:.2f} MB")


def acp_once(root, env):
    p = subprocess.Popen(["/usr/bin/time", "-v", BIN, "acp"], cwd=root, env=env, text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def call(id, method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}) + "\n")
        p.stdin.flush()
        updates = size = 0
        for line in p.stdout:
            msg = json.loads(line)
            if msg.get("id") == id:
                if "error" in msg:
                    raise SystemExit(f"{method} failed: {msg['error']}")
                return updates, size
            if msg.get("method") == "session/update":
                updates, size = updates + 1, size + len(line)
        raise SystemExit(f"strata acp ended before answering {method}")

    call(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    t0 = time.perf_counter()
    updates, size = call(2, "session/load", {"sessionId": SID, "cwd": root, "mcpServers": []})
    took = time.perf_counter() - t0
    p.stdin.close()
    err = p.stderr.read()
    p.wait(timeout=60)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    return took, updates, size, rss


def acp(root, env):
    runs = [acp_once(root, env) for _ in range(RUNS)]
    print(f"acp session/load: {runs[0][1]} updates, {runs[0][2] / 1e6:.1f} MB; request -> answer "
          f"median {statistics.median(r[0] for r in runs) * 1000:.0f} ms (min "
          f"{min(r[0] for r in runs) * 1000:.0f}); peak RSS median "
          f"{mib(statistics.median(r[3] for r in runs))}")


def tools_once(root, env):
    p = subprocess.Popen([BIN, "serve", "--port", "0", "--dir", root], cwd=root, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = p.stdout.readline().strip().rsplit(" ", 1)[-1]
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"{url}/session/{SID}/tools", timeout=120) as r:
            loaded = json.loads(r.read())["loaded"]
        return time.perf_counter() - t0, status(p.pid, "VmHWM"), loaded
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)


def tools(root, env):
    runs = [tools_once(root, env) for _ in range(RUNS)]
    print(f"GET /session/:id/tools ({runs[0][2]} loaded): request median "
          f"{statistics.median(r[0] for r in runs) * 1000:.0f} ms; server peak RSS median "
          f"{mib(statistics.median(r[1] for r in runs))}")


if __name__ == "__main__":
    root, env = project(start_model())
    which = (os.environ.get("PARTS") or "get,tui,run,acp,tools").split(",")
    for name, fn in (("get", get), ("tui", tui), ("run", run), ("acp", acp), ("tools", tools)):
        if name in which:
            fn(root, env)
