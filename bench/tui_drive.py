#!/usr/bin/env python3
"""Drives strata-tui-demo in a pseudo-terminal and prints the TUI figures.

usage: tui_drive.py BIN [WORKDIR]
Figures: keypress -> drawn frame (external: key written -> first output byte; internal: key
read -> frame flushed, from the demo's --trace), frame time while streaming 5,000 tokens,
peak RSS and frame time with a 1,000-message session (scrolling), idle CPU over 10 s.
"""
import fcntl, os, pty, signal, statistics, struct, subprocess, sys, termios, threading, time

BIN = sys.argv[1]
WORK = sys.argv[2] if len(sys.argv) > 2 else "/tmp"
CLK = os.sysconf("SC_CLK_TCK")


class Tui:
    def __init__(self, *args, cols=120, rows=40):
        self.trace = os.path.join(WORK, f"trace-{os.getpid()}-{time.time_ns()}")
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen([BIN, "--trace", self.trace, *args], stdin=slave, stdout=slave,
                                     stderr=slave, cwd=WORK, start_new_session=True)
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

    def size(self):
        with self.lock:
            return len(self.out)

    def wait(self, text, limit=30):
        end = time.time() + limit
        while time.time() < end:
            with self.lock:
                if text.encode() in self.out:
                    return True
            time.sleep(0.005)
        raise SystemExit(f"timed out waiting for {text!r}")

    def send(self, data):
        os.write(self.master, data)

    def frames(self):
        try:
            with open(self.trace) as f:
                return [l.split() for l in f if l.startswith("frame")]
        except FileNotFoundError:
            return []

    def quiet(self, for_s=1.0, limit=60):
        """Waits until no frame was drawn for `for_s` seconds."""
        end = time.time() + limit
        last, since = -1, time.time()
        while time.time() < end:
            n = len(self.frames())
            if n != last:
                last, since = n, time.time()
            elif time.time() - since >= for_s:
                return
            time.sleep(0.05)

    def cpu_ticks(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def peak_rss_kb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def quit(self):
        self.send(b"\x03")
        time.sleep(0.1)
        self.send(b"\x03")
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            raise SystemExit("the TUI did not quit")


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def ms(us):
    return f"{us / 1000:.2f} ms"


def keypress():
    t = Tui()
    t.wait("Ask anything")
    t.quiet(0.5)
    ext = []
    for c in "the quick brown fox jumps over the lazy dog 0123456":
        before = t.size()
        start = time.perf_counter()
        t.send(c.encode())
        while t.size() == before:
            time.sleep(0.0002)
        ext.append((time.perf_counter() - start) * 1e6)
        time.sleep(0.03)
    t.quiet(0.3)
    internal = [int(f[2]) for f in t.frames() if f[2] != "-"]
    t.quit()
    print(f"keypress -> frame: external median {ms(statistics.median(ext))}, p95 {ms(pct(ext, 95))} "
          f"({len(ext)} keys); in-process key -> frame flushed median {ms(statistics.median(internal))}, "
          f"p95 {ms(pct(internal, 95))}")


def streaming(tokens=5000):
    t = Tui("--stream", str(tokens))
    t.wait("Ask anything")
    t.quiet(0.5)
    n0 = len(t.frames())
    start = time.time()
    t.send(b"go\r")
    t.wait("working", 10)
    # The turn ends with the status back to idle; then no more frames.
    time.sleep(1)
    t.quiet(1.0)
    elapsed = time.time() - start - 1.0
    draws = [int(f[1]) for f in t.frames()[n0:]]
    t.quit()
    print(f"streaming {tokens} tokens: {len(draws)} frames in ~{elapsed:.1f} s "
          f"(coalesced, <= 1 per 16 ms); draw median {ms(statistics.median(draws))}, "
          f"p95 {ms(pct(draws, 95))}, max {ms(max(draws))}")


def big_session(messages=1000):
    t = Tui("--messages", str(messages))
    t.wait("ses_demo")
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
    rss = t.peak_rss_kb()
    t.quit()
    print(f"{messages}-message session ({2 * messages} messages incl. replies): first frame with the "
          f"session {ms(max(first))} (all layouts computed); scrolling {len(draws)} frames, draw median "
          f"{ms(statistics.median(draws))}, p95 {ms(pct(draws, 95))}, key -> frame median "
          f"{ms(statistics.median(internal))}; peak RSS {rss / 1024:.1f} MiB")


def idle(seconds=10):
    t = Tui()
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
    keypress()
    streaming()
    big_session()
    idle()
