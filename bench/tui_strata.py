#!/usr/bin/env python3
"""Drives the real `strata` (no command: the UI on its in-process server) in a pseudo-terminal
and prints the TUI figures, with a fake OpenAI-compatible model on 127.0.0.1 (stdlib only).

usage: tui_strata.py STRATA_BIN [WORKDIR]
Figures: keypress -> drawn frame (key read -> frame flushed, from STRATA_TUI_TRACE), frame
time while streaming 5,000 tokens, first frame / scrolling frame time / peak RSS of the whole
process (UI + server core) with a 1,000-exchange session open, idle CPU over 10 s.
PARTS=keypress,streaming,big,idle picks some; EXCHANGES=N sizes the session.
The 1,000-exchange session is made through `strata serve` (one blocking prompt per exchange).
"""
import fcntl, json, os, pty, re, signal, statistics, struct, subprocess, sys, termios, threading, time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BIN = sys.argv[1]
WORK = sys.argv[2] if len(sys.argv) > 2 else "/tmp"
CLK = os.sysconf("SC_CLK_TCK")
MODE = {"tokens": 0, "streamed": 0}
ANSWER = ("Here is **one** way to do it:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n"
          "- it prints\n- it returns\n")


class Model(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        model = body.get("model", "m")

        def chunk(delta, finish=None, usage=None):
            c = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": model,
                 "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if usage:
                c["usage"] = usage
            self.wfile.write(f"data: {json.dumps(c)}\n\n".encode())

        # Only the agent's own requests (they offer tools) stream long; a title request does not.
        n = MODE["tokens"] if body.get("tools") else 0
        pieces = [f"tok{i} " for i in range(n)] if n else [ANSWER]
        chunk({"role": "assistant", "content": ""})
        for i, p in enumerate(pieces):
            chunk({"content": p})
            # About 1,000 tokens a second, in small flushed batches.
            if n and i % 10 == 0:
                self.wfile.flush()
                time.sleep(0.01)
        chunk({}, "stop")
        chunk({}, usage={"prompt_tokens": 10, "completion_tokens": max(n, 20), "total_tokens": 30})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        if n:
            MODE["streamed"] += 1


def start_model():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Model)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}/v1"


def project(url):
    root = os.path.join(WORK, "proj")
    dirs = {k: os.path.join(WORK, k) for k in ("data", "config", "home", "tmp")}
    for d in [root, *dirs.values()]:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(root, "strata.json"), "w") as f:
        json.dump({"model": "openai/bench-model", "provider": {"openai": {"baseURL": url}}}, f)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STRATA_", "OPENAI_", "OTEL_"))}
    env.update(STRATA_DATA_DIR=dirs["data"], STRATA_CONFIG_DIR=dirs["config"], HOME=dirs["home"],
               TMPDIR=dirs["tmp"], TERM="xterm-256color")
    return root, env


class Tui:
    def __init__(self, root, env, *args, cols=120, rows=40):
        self.trace = os.path.join(WORK, f"trace-{time.time_ns()}")
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen([BIN, *args], stdin=slave, stdout=slave, stderr=slave, cwd=root,
                                     env={**env, "STRATA_TUI_TRACE": self.trace},
                                     start_new_session=True)
        os.close(slave)
        self.master = master
        self.out = bytearray()
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.out += data

    def plain(self):
        """The output with escape sequences and runs of blanks turned into one space."""
        with self.lock:
            text = self.out.decode(errors="replace")
        return re.sub(r"\s+", " ", re.sub(r"\x1b\[[0-9;?>]*[A-Za-z~]", " ", text))

    def wait(self, text, limit=60):
        end = time.time() + limit
        while time.time() < end:
            if text in self.plain():
                return
            time.sleep(0.01)
        with self.lock:
            seen = self.out.decode(errors="replace")[-3000:]
        raise SystemExit(f"timed out waiting for {text!r}; the last output:\n{seen}")

    def send(self, data):
        os.write(self.master, data)

    def frames(self):
        try:
            with open(self.trace) as f:
                return [l.split() for l in f if l.startswith("frame")]
        except FileNotFoundError:
            return []

    def quiet(self, for_s=1.0, limit=120):
        end = time.time() + limit
        last, since = -1, time.time()
        while time.time() < end:
            n = len(self.frames())
            if n != last:
                last, since = n, time.time()
            elif time.time() - since >= for_s:
                return
            time.sleep(0.05)

    def stat(self, field):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def cpu_ticks(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def quit(self):
        self.send(b"\x03")
        time.sleep(0.1)
        self.send(b"\x03")
        try:
            return self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            raise SystemExit("strata did not quit")


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def ms(us):
    return f"{us / 1000:.2f} ms"


def keypress(root, env):
    t = Tui(root, env)
    t.wait("Ask anything")
    t.quiet(0.5)
    for c in "the quick brown fox jumps over the lazy dog 0123456":
        t.send(c.encode())
        time.sleep(0.03)
    t.quiet(0.3)
    internal = [int(f[2]) for f in t.frames() if f[2] != "-"]
    draws = [int(f[1]) for f in t.frames()]
    t.quit()
    print(f"keypress -> frame (key read -> frame flushed): median {ms(statistics.median(internal))}, "
          f"p95 {ms(pct(internal, 95))} ({len(internal)} keys); draw median {ms(statistics.median(draws))}")


def streaming(root, env, tokens=5000):
    MODE["tokens"] = tokens
    t = Tui(root, env)
    t.wait("Ask anything")
    t.quiet(0.5)
    n0 = len(t.frames())
    start = time.time()
    t.send(b"go\r")
    end = time.time() + 120
    while MODE["streamed"] == 0 and time.time() < end:
        time.sleep(0.01)
    t.quiet(1.0)
    elapsed = time.time() - start - 1.0
    draws = [int(f[1]) for f in t.frames()[n0:]]
    rss = t.stat("VmHWM")
    t.quit()
    MODE["tokens"] = 0
    print(f"streaming {tokens} tokens: {len(draws)} frames in ~{elapsed:.1f} s; draw median "
          f"{ms(statistics.median(draws))}, p95 {ms(pct(draws, 95))}, max {ms(max(draws))}; "
          f"peak RSS {rss / 1024:.1f} MiB")


def make_session(root, env, exchanges):
    p = subprocess.Popen([BIN, "serve", "--port", "0", "--dir", root], cwd=root, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = p.stdout.readline().strip().rsplit(" ", 1)[-1]

    def post(path, body):
        req = urllib.request.Request(url + path, json.dumps(body).encode(),
                                     {"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read() or b"null")

    sid = post("/session", {})["id"]
    start = time.time()
    for i in range(exchanges):
        post(f"/session/{sid}/message", {"parts": [{"type": "text", "text": f"question {i}: how?"}]})
    took = time.time() - start
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)
    return sid, took


def big_session(root, env, exchanges=1000):
    sid, took = make_session(root, env, exchanges)
    t0 = time.time()
    t = Tui(root, env, "--session", sid)
    t.wait(f"question {exchanges - 1}:", 120)
    opened = time.time() - t0
    t.quiet(0.5)
    first = [int(f[1]) for f in t.frames()]
    n0 = len(first)
    for _ in range(60):
        t.send(b"\x1b[5~")  # PageUp
        time.sleep(0.02)
    for _ in range(30):
        t.send(b"\x1b[6~")  # PageDown
        time.sleep(0.02)
    t.quiet(0.5)
    draws = [int(f[1]) for f in t.frames()[n0:]]
    internal = [int(f[2]) for f in t.frames()[n0:] if f[2] != "-"]
    rss = t.stat("VmHWM")
    t.quit()
    print(f"{exchanges}-exchange session ({2 * exchanges} messages, made in {took:.0f} s): open -> "
          f"last message on screen {opened * 1000:.0f} ms, slowest draw while opening {ms(max(first))}; "
          f"scrolling {len(draws)} frames, draw median {ms(statistics.median(draws))}, p95 "
          f"{ms(pct(draws, 95))}, key -> frame median {ms(statistics.median(internal))}; "
          f"peak RSS (UI + server core) {rss / 1024:.1f} MiB")


def idle(root, env, seconds=10):
    t = Tui(root, env)
    t.wait("Ask anything")
    t.quiet(0.5)
    n0 = len(t.frames())
    c0 = t.cpu_ticks()
    time.sleep(seconds)
    c1 = t.cpu_ticks()
    n1 = len(t.frames())
    t.quit()
    print(f"idle {seconds} s: {c1 - c0} CPU ticks ({(c1 - c0) / CLK / seconds * 100:.2f}% CPU), "
          f"{n1 - n0} frames drawn")


if __name__ == "__main__":
    root, env = project(start_model())
    which = (os.environ.get("PARTS") or "keypress,streaming,big,idle").split(",")
    if "keypress" in which:
        keypress(root, env)
    if "streaming" in which:
        streaming(root, env)
    if "idle" in which:
        idle(root, env)
    if "big" in which:
        big_session(root, env, int(os.environ.get("EXCHANGES", "1000")))
