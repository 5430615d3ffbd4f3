"""What `brief proxy` adds to a model call: latency (P50, P99), time to the first byte of a
stream, and throughput, against calling the same loopback upstream directly and, when it is
installed, against headroom's proxy in front of the same upstream.

Usage:
    python tests/python/bench_proxy.py [--brief target/release/brief]
        [--headroom target/headroom-venv/bin/headroom] [-n 2000] [--json]

The upstream is a small HTTP/1.1 server on loopback (two processes sharing one listening
socket) that answers every POST /v1/chat/completions with a fixed chat completion, or, for
`"stream": true`, with a first SSE event at once and the rest STREAM_GAP later (so a proxy
that held the answer back would show it in the time to first byte). Every path gets the
same requests: an agent-sized body (tools, a long system prompt, a few turns).

Latency: one client with one keep-alive connection per path; one proxy at a time, its N
calls interleaved with N direct calls (direct, proxy, direct, ...), so that whatever else
the machine is doing falls on both alike; "added" is the proxy's figure minus those direct
calls'. Throughput: CONCURRENCY connections for a fixed count of calls. Nothing leaves
127.0.0.1. Prints a Markdown table (or JSON with --json); progress goes to stderr.
"""

import argparse
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from multiprocessing.pool import ThreadPool

STREAM_GAP = 0.002
CONCURRENCY = 16
USAGE = {"prompt_tokens": 4096, "completion_tokens": 2, "total_tokens": 4098,
         "prompt_tokens_details": {"cached_tokens": 3968}}
ANSWER = json.dumps({
    "id": "chatcmpl-bench", "object": "chat.completion", "created": 1, "model": "bench-model",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                 "finish_reason": "stop"}],
    "usage": USAGE}).encode()


def sse(obj):
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


CHUNK = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1,
         "model": "bench-model"}
STREAM_FIRST = sse(dict(CHUNK, choices=[{"index": 0, "delta": {"role": "assistant",
                                                                "content": "o"}}]))
STREAM_REST = (sse(dict(CHUNK, choices=[{"index": 0, "delta": {"content": "k"}}]))
               + sse(dict(CHUNK, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}]))
               + sse(dict(CHUNK, choices=[], usage=USAGE)) + b"data: [DONE]\n\n")


def request_body(stream):
    tools = [{"type": "function", "function": {
        "name": f"tool_{i}", "description": "Reads one record of the appointment book. " * 6,
        "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}}
        for i in range(8)]
    system = "You are the clinic's scheduling assistant. Keep answers short. " * 120
    messages = [{"role": "system", "content": system}]
    for turn in range(6):
        messages.append({"role": "user", "content": f"Question {turn} about the week. " * 10})
        messages.append({"role": "assistant", "content": f"Answer {turn}. " * 20})
    messages.append({"role": "user", "content": "And the next free slot?"})
    body = {"model": "bench-model", "messages": messages, "tools": tools}
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return json.dumps(body).encode()


# ---------------------------------------------------------------- the upstream

def upstream_serve(conn):
    buf = b""
    with conn:
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(262144)
                if not data:
                    return
                buf += data
            head, buf = buf.split(b"\r\n\r\n", 1)
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            while len(buf) < length:
                data = conn.recv(262144)
                if not data:
                    return
                buf += data
            body, buf = buf[:length], buf[length:]
            if b'"stream": true' in body or b'"stream":true' in body:
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"cache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n"
                             + b"%x\r\n%s\r\n" % (len(STREAM_FIRST), STREAM_FIRST))
                time.sleep(STREAM_GAP)
                conn.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(STREAM_REST), STREAM_REST))
            else:
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                             b"content-length: %d\r\n\r\n%s" % (len(ANSWER), ANSWER))


def upstream_worker(listener):
    while True:
        conn, _ = listener.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=upstream_serve, args=(conn,), daemon=True).start()


def start_upstream(processes=2):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1024)
    children = []
    for _ in range(processes):
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                upstream_worker(listener)
            finally:
                os._exit(0)
        children.append(pid)
    port = listener.getsockname()[1]
    listener.close()
    return port, children


# ---------------------------------------------------------------- the client

class Conn:
    """One keep-alive HTTP/1.1 connection that times each answer."""

    def __init__(self, port, path):
        self.port, self.path = port, path
        self.sock = None

    def connect(self):
        self.sock = socket.create_connection(("127.0.0.1", self.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def recv(self):
        data = self.sock.recv(262144)
        if not data:
            raise ConnectionError("closed")
        self.buf += data

    def call(self, body):
        """(seconds to the whole answer, seconds to the first body byte)."""
        if self.sock is None:
            self.connect()
        request = (b"POST %s HTTP/1.1\r\nhost: 127.0.0.1:%d\r\ncontent-type: application/json\r\n"
                   b"authorization: Bearer sk-bench-0123456789\r\ncontent-length: %d\r\n\r\n"
                   % (self.path.encode(), self.port, len(body))) + body
        t0 = time.perf_counter()
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.buf:
            self.recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip().lower()
        if status != 200:
            raise RuntimeError(f"HTTP {status} on port {self.port}: {self.buf[:300]!r}")
        first = None
        if b"content-length" in headers:
            length = int(headers[b"content-length"])
            while len(self.buf) < max(length, 1):
                self.recv()
            first = time.perf_counter()
            self.buf = self.buf[length:]
        else:  # chunked
            while True:
                while b"\r\n" not in self.buf:
                    self.recv()
                size_line, rest = self.buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                while len(rest) < size + 2:
                    self.recv()
                    size_line, rest = self.buf.split(b"\r\n", 1)
                if first is None and size > 0:
                    first = time.perf_counter()
                self.buf = rest[size + 2:]
                if size == 0:
                    break
        done = time.perf_counter()
        if headers.get(b"connection") == b"close":
            self.sock.close()
            self.sock = None
        return done - t0, first - t0


def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))] * 1000


def latency(paths, body, n):
    """Per path: P50/P99 of the whole call and of the first body byte, in ms."""
    conns = {name: Conn(port, path) for name, (port, path) in paths.items()}
    for conn in conns.values():  # warm up: connections, pools, caches
        for _ in range(50):
            conn.call(body)
    samples = {name: ([], []) for name in conns}
    names = list(conns)
    for i in range(n):
        for name in names[i % len(names):] + names[:i % len(names)]:
            total, first = conns[name].call(body)
            samples[name][0].append(total)
            samples[name][1].append(first)
    return {name: {"p50": pct(t, .5), "p99": pct(t, .99), "first_p50": pct(f, .5),
                   "first_p99": pct(f, .99)} for name, (t, f) in samples.items()}


def throughput(port, path, body, total):
    per = total // CONCURRENCY

    def worker(_):
        conn = Conn(port, path)
        for _ in range(per):
            conn.call(body)

    with ThreadPool(CONCURRENCY) as pool:
        pool.map(worker, range(CONCURRENCY))  # warm up
        started = time.perf_counter()
        pool.map(worker, range(CONCURRENCY))
        return per * CONCURRENCY / (time.perf_counter() - started)


# ---------------------------------------------------------------- the proxies

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, path, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing answered on port {port} within {timeout} s")


def start_brief(binary, upstream, work):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")}
    process = subprocess.Popen(
        [binary, "proxy", "--listen", "127.0.0.1:0", "--ledger", os.path.join(work, "usage.jsonl"),
         "--openai-upstream", f"http://127.0.0.1:{upstream}/v1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    port = int(process.stdout.readline().strip().rsplit(":", 1)[1])
    return process, port


def start_headroom(binary, upstream, work, optimize):
    port = free_port()
    home = os.path.join(work, "headroom-home-" + ("opt" if optimize else "pass"))
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, HOME=home, HF_HUB_OFFLINE="1", OPENAI_API_KEY="sk-bench-0123456789")
    env.pop("OPENAI_BASE_URL", None)
    args = [binary, "proxy", "--host", "127.0.0.1", "--port", str(port),
            "--openai-api-url", f"http://127.0.0.1:{upstream}/v1", "--no-rate-limit", "--no-cache",
            "--no-http2"]
    if not optimize:
        args.append("--no-optimize")
    log = open(os.path.join(work, f"headroom-{port}.log"), "w")
    process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_for(port, "/health")
    except RuntimeError:
        process.kill()
        raise
    return process, port


def stop(process):
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def version(binary, *args):
    try:
        out = subprocess.run([binary, *args], capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brief", default="target/release/brief")
    parser.add_argument("--headroom", default="target/headroom-venv/bin/headroom")
    parser.add_argument("--headroom-optimize", action="store_true",
                        help="also measure headroom with its optimisation on (default mode)")
    parser.add_argument("-n", type=int, default=2000, help="requests per path for latency")
    parser.add_argument("--throughput", type=int, default=4000,
                        help="requests per path for throughput")
    parser.add_argument("--headroom-throughput", type=int, default=800,
                        help="requests per headroom path for throughput (it is far slower)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="brief-bench-")
    upstream, children = start_upstream()
    direct = (upstream, "/v1/chat/completions")
    notes = []
    proxies = [("brief proxy", lambda: start_brief(args.brief, upstream, work))]
    if shutil.which(args.headroom) or os.path.exists(args.headroom):
        for optimize in ([False, True] if args.headroom_optimize else [False]):
            name = "headroom proxy" + (" (optimize)" if optimize else " (--no-optimize)")
            proxies.append((name, lambda o=optimize: start_headroom(args.headroom, upstream,
                                                                    work, o)))
    else:
        notes.append(f"headroom not found at {args.headroom}")
    # One proxy at a time, its calls interleaved with direct calls: a proxy still busy after
    # its answer (logging, bookkeeping) would otherwise slow whichever call came next.
    results = {"non-streamed": {}, "streamed": {}}
    try:
        for label, stream in (("non-streamed", False), ("streamed", True)):
            body = request_body(stream)
            results[label]["direct"] = {"rps": throughput(*direct, body, args.throughput)}
        for name, start in proxies:
            try:
                process, port = start()
            except RuntimeError as err:
                notes.append(f"{name}: did not start: {err}")
                continue
            try:
                for label, stream in (("non-streamed", False), ("streamed", True)):
                    body = request_body(stream)
                    rows = latency({"direct": direct, name: (port, "/v1/chat/completions")},
                                   body, args.n)
                    count = (args.headroom_throughput if name.startswith("headroom")
                             else args.throughput)
                    rows[name]["rps"] = throughput(port, "/v1/chat/completions", body, count)
                    rows[name]["direct"] = rows["direct"]
                    results[label][name] = rows[name]
                    print(f"{label} {name}: {rows}", file=sys.stderr, flush=True)
            finally:
                stop(process)
    finally:
        for pid in children:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)

    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        "python": platform.python_version(),
        "brief": version(args.brief, "--version"),
        "headroom": (version(args.headroom, "--version")
                     if any(n.startswith("headroom") for n in results["streamed"]) else None),
        "request_bytes": len(request_body(False)),
        "n": args.n, "throughput_requests": args.throughput,
        "headroom_throughput_requests": args.headroom_throughput, "concurrency": CONCURRENCY,
        "stream_gap_ms": STREAM_GAP * 1000, "notes": notes,
    }
    if args.json:
        print(json.dumps({"meta": meta, "results": results}, indent=2))
        return
    print(f"{meta['date']}; {meta['machine']}; Python {meta['python']}; {meta['brief']}"
          + (f"; headroom {meta['headroom']}" if meta["headroom"] else ""))
    print(f"request {meta['request_bytes']} bytes; latency over {args.n} sequential calls per "
          f"path, each proxy's interleaved with as many direct calls; throughput over "
          f"{args.throughput} calls ({args.headroom_throughput} for headroom) on {CONCURRENCY} "
          f"connections; streams: first event, then the rest {STREAM_GAP * 1000:.0f} ms later")
    for note in notes:
        print(f"note: {note}")
    print()
    print("| call | path | P50 ms | P99 ms | first byte P50 ms | first byte P99 ms | req/s |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for label, rows in results.items():
        print(f"| {label} | direct (alone) | | | | | {rows['direct']['rps']:.0f} |")
        for name, r in rows.items():
            if name == "direct":
                continue
            d = r["direct"]
            print(f"| {label} | direct (beside {name}) | {d['p50']:.3f} | {d['p99']:.3f} | "
                  f"{d['first_p50']:.3f} | {d['first_p99']:.3f} | |")
            print(f"| {label} | {name} | {r['p50']:.3f} | {r['p99']:.3f} | {r['first_p50']:.3f} "
                  f"| {r['first_p99']:.3f} | {r['rps']:.0f} |")
            print(f"| {label} | **added by {name}** | {r['p50'] - d['p50']:+.3f} | "
                  f"{r['p99'] - d['p99']:+.3f} | {r['first_p50'] - d['first_p50']:+.3f} "
                  f"| {r['first_p99'] - d['first_p99']:+.3f} | |")


if __name__ == "__main__":
    sys.exit(main())
