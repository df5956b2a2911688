"""MCP figures for issue 11 (run by bench/mcp.sh; not part of CI).

(1) Start-up cost of MCP in `strata run`: time from launching `strata run` to the first model
    request reaching a local fake OpenAI-compatible server, with no MCP server configured and
    with two local MCP servers (the testkit fixture `strata-mcp-fixture`, twice).
(2) Latency of one MCP tool call against one built-in tool call, measured from inside one
    `strata mcp` session with the Python MCP client: `read` (built-in) vs `fix_echo` (the fixture
    server's echo, through Strata's MCP client and wrapper).

Usage: mcp.py STRATA_BIN FIXTURE_BIN [RUNS]
"""

import asyncio
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

STRATA, FIXTURE = sys.argv[1], sys.argv[2]
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 10

first_request = []


class Model(http.server.BaseHTTPRequestHandler):
    """Answers every chat completion at once with a short streamed reply."""

    def do_POST(self):
        first_request.append(time.monotonic())
        self.rfile.read(int(self.headers.get("content-length", 0)))
        chunks = [
            {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 1, "completion_tokens": 1}},
        ]
        body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


def stats(xs):
    return f"median {statistics.median(xs):.1f} ms, mean {statistics.mean(xs):.1f} ms, min {min(xs):.1f} ms (n={len(xs)})"


def startup(project, env):
    out = []
    for _ in range(RUNS + 1):
        first_request.clear()
        t0 = time.monotonic()
        subprocess.run(
            [STRATA, "run", "--dir", project, "-m", "openai/gpt-4.1", "--max-steps", "1", "hi"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
        )
        out.append((first_request[0] - t0) * 1000)
    return out[1:]  # the first run warms the page cache


async def latency(project, env):
    params = StdioServerParameters(command=STRATA, args=["mcp", "--dir", project], env=env)
    times = {"read": [], "fix_echo": []}
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            calls = {"read": {"filePath": "notes.txt"}, "fix_echo": {"message": "hi"}}
            for _ in range(3):  # warm-up
                for name, args in calls.items():
                    await s.call_tool(name, arguments=args)
            for _ in range(RUNS * 10):
                for name, args in calls.items():
                    t0 = time.perf_counter()
                    res = await s.call_tool(name, arguments=args)
                    times[name].append((time.perf_counter() - t0) * 1000)
                    assert not res.is_error, res
    return times


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    work = tempfile.mkdtemp(prefix="strata-bench-mcp-")
    env = dict(os.environ)
    env.update({
        "STRATA_DATA_DIR": f"{work}/data", "STRATA_CONFIG_DIR": f"{work}/config",
        "OPENAI_BASE_URL": f"http://127.0.0.1:{server.server_port}/v1", "OPENAI_API_KEY": "bench",
    })
    plain, with_mcp = f"{work}/plain", f"{work}/mcp"
    for d in (plain, with_mcp):
        os.makedirs(d)
        with open(f"{d}/notes.txt", "w") as f:
            f.write("one\ntwo\n")
    with open(f"{with_mcp}/strata.json", "w") as f:
        json.dump({
            "mcp": {
                "fix": {"type": "local", "command": [FIXTURE]},
                "fix2": {"type": "local", "command": [FIXTURE]},
            },
            # The fixture is not in mcp_trust: its tools ask; the bench allows them.
            "permission": {"fix_*": "allow", "fix2_*": "allow"},
        }, f)
    print(f"time to first model request, no MCP server:     {stats(startup(plain, env))}")
    print(f"time to first model request, two local servers: {stats(startup(with_mcp, env))}")
    times = asyncio.run(latency(with_mcp, env))
    print(f"tool call over `strata mcp`, built-in `read`:     {stats(times['read'])}")
    print(f"tool call over `strata mcp`, MCP tool `fix_echo`: {stats(times['fix_echo'])}")
    server.shutdown()


main()
