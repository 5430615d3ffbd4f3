"""What `brief proxy` adds to a model call: latency (P50, P99), time to the first byte of a
stream, and throughput, against calling the same loopback upstream directly and, when it is
installed, against headroom's proxy in front of the same upstream. With --writer: whether the
ledger keeps up with the calls (rows/s, backlog, RSS) in a burst and under sustained load.

Usage:
    python tests/python/bench_proxy.py [--brief target/release/brief]
        [--headroom target/headroom-venv/bin/headroom] [-n 2000] [--json]
    python tests/python/bench_proxy.py --writer [--burst 40000] [--sustain 60]
        [--baseline OTHER_BRIEF_BINARY]

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
import random
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

def serve_requests(conn, answer):
    """Reads HTTP/1.1 requests off `conn` until it closes; `answer(conn, path, body)` answers
    each (benches/proxy_wires.py answers per wire through the same loop)."""
    buf = b""
    with conn:
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(262144)
                if not data:
                    return
                buf += data
            head, buf = buf.split(b"\r\n\r\n", 1)
            lines = head.split(b"\r\n")
            path = lines[0].split(b" ")[1]
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            while len(buf) < length:
                data = conn.recv(262144)
                if not data:
                    return
                buf += data
            body, buf = buf[:length], buf[length:]
            answer(conn, path, body)


def send_answer(conn, streamed, answer, first, rest, gap):
    """A streamed answer: `first` at once, `rest` `gap` seconds later; else `answer` whole."""
    if streamed:
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                     b"cache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n"
                     + b"%x\r\n%s\r\n" % (len(first), first))
        time.sleep(gap)
        conn.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(rest), rest))
    else:
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                     b"content-length: %d\r\n\r\n%s" % (len(answer), answer))


def upstream_answer(conn, _path, body):
    streamed = b'"stream": true' in body or b'"stream":true' in body
    send_answer(conn, streamed, ANSWER, STREAM_FIRST, STREAM_REST, STREAM_GAP)


def upstream_serve(conn):
    serve_requests(conn, upstream_answer)


def upstream_worker(listener, serve=upstream_serve):
    while True:
        conn, _ = listener.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def start_upstream(processes=2, serve=upstream_serve):
    """`processes` forked servers sharing one loopback listener, each connection served by
    `serve(conn)`: the port and the children's pids."""
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
                upstream_worker(listener, serve)
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

    def call(self, body, extra=b""):
        """(seconds to the whole answer, seconds to the first body byte)."""
        if self.sock is None:
            self.connect()
        request = (b"POST %s HTTP/1.1\r\nhost: 127.0.0.1:%d\r\ncontent-type: application/json\r\n"
                   b"authorization: Bearer sk-bench-0123456789\r\n%scontent-length: %d\r\n\r\n"
                   % (self.path.encode(), self.port, extra, len(body))) + body
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


def latency(paths, body, n, pace=None):
    """Per path: P50/P99 of the whole call and of the first body byte, in ms. With `pace`
    (min, max seconds), each call follows an idle gap drawn from that range, as agents pace
    their calls (a model's answer to read, a tool to run)."""
    conns = {name: Conn(port, path) for name, (port, path) in paths.items()}
    for conn in conns.values():  # warm up: connections, pools, caches
        for _ in range(50):
            conn.call(body)
    samples = {name: ([], []) for name in conns}
    names = list(conns)
    for i in range(n):
        for name in names[i % len(names):] + names[:i % len(names)]:
            if pace:
                time.sleep(random.uniform(*pace))
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


def start_litellm(binary, upstream, work):
    """LiteLLM's proxy in front of the same upstream, one model name routed to it."""
    port = free_port()
    config = os.path.join(work, "litellm.yaml")
    with open(config, "w") as f:
        f.write("model_list:\n  - model_name: bench-model\n    litellm_params:\n"
                "      model: openai/bench-model\n"
                f"      api_base: http://127.0.0.1:{upstream}/v1\n"
                "      api_key: sk-bench-0123456789\n"
                "litellm_settings:\n  telemetry: false\n")
    # The client sends `Bearer sk-bench-0123456789`: LiteLLM takes it as its master key.
    env = dict(os.environ, LITELLM_LOG="ERROR", LITELLM_TELEMETRY="False",
               LITELLM_MASTER_KEY="sk-bench-0123456789")
    env.pop("OPENAI_BASE_URL", None)
    log = open(os.path.join(work, f"litellm-{port}.log"), "w")
    process = subprocess.Popen([binary, "--config", config, "--host", "127.0.0.1",
                                "--port", str(port), "--num_workers", "1"],
                               stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_for(port, "/health/liveliness", timeout=180)
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


# ---------------------------------------------------------------- the ledger writer

def rss_kib(pid):
    """(VmRSS, VmHWM) of a process, in KiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0])
    return fields.get("VmRSS", 0), fields.get("VmHWM", 0)


class LineCounter:
    """Rows in a ledger file, counted as it grows."""

    def __init__(self, path):
        self.path, self.offset, self.rows = path, 0, 0

    def count(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return 0
        self.offset += len(data)
        self.rows += data.count(b"\n")
        return self.rows


def load_worker(port, body, slots, first, count, calls_each, stop):
    """One client process: `count` keep-alive connections on threads, each its own session;
    each makes `calls_each` calls (or runs until `stop` is set when calls_each is 0)."""
    def connection(i):
        conn = Conn(port, "/v1/chat/completions")
        extra = b"x-brief-session: bench-%d\r\n" % i
        done = 0
        while (calls_each and done < calls_each) or (not calls_each and not stop.value):
            conn.call(body, extra)
            done += 1
            slots[i] = done
    threads = [threading.Thread(target=connection, args=(first + k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def writer_run(binary, upstream, work, body, total=0, seconds=0, processes=4):
    """Drives CONCURRENCY connections at a fresh proxy: `total` calls as fast as they go, or
    as many as go in `seconds`. Samples every 50 ms: calls answered (the client's count),
    rows in the ledger (its lines), the proxy's RSS. Then waits for the last row."""
    import multiprocessing
    ledger = os.path.join(work, f"writer-{time.time_ns()}.jsonl")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")}
    process = subprocess.Popen(
        [binary, "proxy", "--listen", "127.0.0.1:0", "--ledger", ledger,
         "--openai-upstream", f"http://127.0.0.1:{upstream}/v1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    port = int(process.stdout.readline().strip().rsplit(":", 1)[1])
    Conn(port, "/v1/chat/completions").call(body)  # warm: the pool, the first row
    context = multiprocessing.get_context("fork")
    slots = context.Array("q", CONCURRENCY, lock=False)
    stop = context.Value("b", 0, lock=False)
    per = CONCURRENCY // processes
    calls_each = total // CONCURRENCY if total else 0
    rows = LineCounter(ledger)
    rows.count()
    base_rows = rows.rows
    samples = []
    started = time.perf_counter()
    workers = [context.Process(target=load_worker,
                               args=(port, body, slots, k * per, per, calls_each, stop))
               for k in range(processes)]
    for worker in workers:
        worker.start()
    answered_at = None
    while True:
        time.sleep(0.05)
        now = time.perf_counter() - started
        answered = sum(slots)
        written = rows.count() - base_rows
        rss, _ = rss_kib(process.pid)
        samples.append((now, answered, written, rss))
        if seconds and not stop.value and now >= seconds:
            stop.value = 1
        load_done = not any(w.is_alive() for w in workers)
        if load_done and answered_at is None:
            answered_at = now
        if load_done and written >= answered:
            break
        if answered_at is not None and now - answered_at > 600:
            break
    for worker in workers:
        worker.join()
    _, peak = rss_kib(process.pid)
    rss_end = samples[-1][3]
    stop_process(process)
    answered, last_row = samples[-1][1], samples[-1][0]
    if seconds:
        # Sustained: what went through in the window itself.
        in_window = [s for s in samples if s[0] <= seconds] or samples[:1]
        calls_per_s = in_window[-1][1] / in_window[-1][0]
        rows_per_s = in_window[-1][2] / in_window[-1][0]
    else:
        # Burst: every call over the time to the last answer, every row over the time to
        # the last row.
        calls_per_s = answered / answered_at
        rows_per_s = samples[-1][2] / last_row
    backlog = max(s[1] - s[2] for s in samples)
    return {
        "calls": answered, "rows": samples[-1][2],
        "calls_per_s": calls_per_s,
        "rows_per_s": rows_per_s,
        "last_row_after_last_answer_s": round(samples[-1][0] - answered_at, 2),
        "max_backlog_rows": backlog,
        "max_rss_mib": max(s[3] for s in samples) / 1024,
        "peak_rss_mib": peak / 1024,
        "rss_end_mib": rss_end / 1024,
    }


def stop_process(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=600)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def writer_main(args):
    work = tempfile.mkdtemp(prefix="brief-bench-writer-")
    upstream, children = start_upstream()
    body = request_body(False)
    results = []
    try:
        binaries = [("this build", args.brief)]
        if args.baseline:
            binaries.append(("baseline", args.baseline))
        for name, binary in binaries:
            print(f"{name}: burst of {args.burst} calls", file=sys.stderr, flush=True)
            burst = writer_run(binary, upstream, work, body, total=args.burst)
            results.append((name, f"burst of {args.burst:,} calls", burst))
            print(f"  {burst}", file=sys.stderr, flush=True)
            if args.sustain and name == "this build":
                print(f"{name}: {args.sustain} s sustained", file=sys.stderr, flush=True)
                sustained = writer_run(binary, upstream, work, body, seconds=args.sustain)
                results.append((name, f"{args.sustain} s sustained", sustained))
                print(f"  {sustained}", file=sys.stderr, flush=True)
    finally:
        for pid in children:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        "brief": version(args.brief, "--version"),
        "request_bytes": len(body), "connections": CONCURRENCY,
        "load": "Python client: 4 processes x 4 keep-alive connections, one session each",
    }
    if args.json:
        print(json.dumps({"meta": meta, "results": results}, indent=2))
        return
    print(f"{meta['date']}; {meta['machine']}; {meta['brief']}; request {meta['request_bytes']} "
          f"bytes; {meta['load']}")
    print()
    print("| proxy | load | calls/s | rows/s | last row after last answer | max backlog (rows) "
          "| max RSS MiB | RSS at end MiB |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, load, r in results:
        print(f"| {name} | {load} | {r['calls_per_s']:,.0f} | {r['rows_per_s']:,.0f} | "
              f"{r['last_row_after_last_answer_s']} s | {r['max_backlog_rows']:,} | "
              f"{r['max_rss_mib']:.0f} | {r['rss_end_mib']:.0f} |")


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
    parser.add_argument("--litellm", default="target/litellm-venv/bin/litellm",
                        help="LiteLLM's proxy, measured beside brief's when it is installed")
    parser.add_argument("--pace", metavar="MIN_MS,MAX_MS",
                        help="an idle gap before each latency call, e.g. 2,10 (agents pace "
                             "their calls); default: back to back")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--writer", action="store_true",
                        help="measure the ledger writer instead: burst and sustained load")
    parser.add_argument("--burst", type=int, default=40000, help="calls in the burst")
    parser.add_argument("--sustain", type=int, default=60, help="seconds of sustained load")
    parser.add_argument("--baseline", help="another brief binary to run the burst against")
    args = parser.parse_args()
    if args.writer:
        return writer_main(args)

    pace = None
    if args.pace:
        low, high = (float(v) / 1000 for v in args.pace.split(","))
        pace = (low, high)
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
    if shutil.which(args.litellm) or os.path.exists(args.litellm):
        proxies.append(("litellm proxy", lambda: start_litellm(args.litellm, upstream, work)))
    else:
        notes.append(f"litellm not found at {args.litellm}")
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
                                   body, args.n, pace)
                    count = (args.headroom_throughput
                             if name.startswith(("headroom", "litellm")) else args.throughput)
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
        "stream_gap_ms": STREAM_GAP * 1000, "pace_ms": args.pace, "notes": notes,
    }
    if args.json:
        print(json.dumps({"meta": meta, "results": results}, indent=2))
        return
    print(f"{meta['date']}; {meta['machine']}; Python {meta['python']}; {meta['brief']}"
          + (f"; headroom {meta['headroom']}" if meta["headroom"] else ""))
    print(f"request {meta['request_bytes']} bytes; latency over {args.n} sequential calls per "
          f"path, each proxy's interleaved with as many direct calls; throughput over "
          f"{args.throughput} calls ({args.headroom_throughput} for headroom) on {CONCURRENCY} "
          f"connections; streams: first event, then the rest {STREAM_GAP * 1000:.0f} ms later"
          + (f"; each latency call after an idle gap of {args.pace} ms" if args.pace
             else "; latency calls back to back"))
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
