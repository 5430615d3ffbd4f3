"""What a ClickHouse ledger costs a fleet (issue 26), side by side with the file ledger in the
same run, against a real clickhouse-server started here on loopback with a temporary data
directory (Debian's package: `apt-get install -y clickhouse-server`).

Usage:
    cargo build --release
    python3 tests/python/bench_fleet.py [--brief target/release/brief] [-n 2000]
        [--streams 200] [--proxies 4] [--seconds 20] [--usage-rows 1000000]
        [--sections latency,scale,usage]

Sections:
  latency  what the proxy adds to a call with the sink on (--ledger clickhouse://…) and off
           (--ledger FILE): one client, one keep-alive connection per path, the calls of the
           direct path and of both proxies interleaved (direct, off, on, ...), the same
           loopback upstream and agent-shaped request as bench_proxy.py. "Added" is a
           proxy's figure minus the direct calls'. Then every row is checked in ClickHouse.
  scale    `--streams` concurrent connections (each its own X-Brief-Session) spread over
           `--proxies` proxies writing to one ClickHouse table, for `--seconds`, then the
           same with the file ledger: calls/s, rows/s landed, each call's latency (P50,
           P99), and every row exactly once in the end.
  usage    `brief usage --by model --json` over `--usage-rows` rows in a JSONL file against
           the same rows in ClickHouse (pushed with `brief ledger push`, timed too); the two
           reports must be equal.

Prints Markdown to stdout; progress to stderr.
"""

import argparse
import json
import multiprocessing
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_proxy as bp  # noqa: E402  (upstream, client, percentiles)

USER, PASSWORD = "bench", "bench-pw-4f1d"
TABLE = "fleet.usage"
PATH = "/v1/chat/completions"


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- ClickHouse

class ClickHouse:
    def __init__(self, work):
        self.dir = os.path.join(work, "clickhouse")
        for sub in ("data", "tmp", "user_files", "log"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        self.port, tcp = bp.free_port(), bp.free_port()
        d = self.dir
        with open(os.path.join(d, "config.xml"), "w") as f:
            f.write(f"""<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>{d}/log/server.log</log><errorlog>{d}/log/error.log</errorlog><size>10M</size><count>1</count></logger>
    <listen_host>127.0.0.1</listen_host>
    <http_port>{self.port}</http_port>
    <tcp_port>{tcp}</tcp_port>
    <path>{d}/data/</path>
    <tmp_path>{d}/tmp/</tmp_path>
    <user_files_path>{d}/user_files/</user_files_path>
    <users_config>users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <mark_cache_size>268435456</mark_cache_size>
    <max_concurrent_queries>100</max_concurrent_queries>
    <timezone>UTC</timezone>
</yandex>
""")
        with open(os.path.join(d, "users.xml"), "w") as f:
            f.write(f"""<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
    <users><{USER}><password>{PASSWORD}</password><networks><ip>127.0.0.1</ip></networks>
        <profile>default</profile><quota>default</quota></{USER}></users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
""")
        binary = shutil.which("clickhouse-server") or "/usr/sbin/clickhouse-server"
        if not os.path.exists(binary):
            sys.exit("clickhouse-server is not installed: apt-get install -y clickhouse-server")
        self.process = subprocess.Popen(
            [binary, f"--config-file={d}/config.xml"], cwd=d,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/ping", timeout=2)
                break
            except OSError:
                time.sleep(0.1)
        self.version = self.query("SELECT version()").strip()

    def url(self, table=TABLE, query=""):
        # The password comes from BRIEF_CLICKHOUSE_PASSWORD, never the command line.
        return f"clickhouse://{USER}@127.0.0.1:{self.port}/{table}{query}"

    def query(self, sql):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/", data=sql.encode(),
            headers={"X-ClickHouse-User": USER, "X-ClickHouse-Key": PASSWORD})
        with urllib.request.urlopen(request, timeout=600) as answer:
            return answer.read().decode()

    def count(self, sql):
        return int(self.query(sql).strip())

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def brief_env(work):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "BRIEF_LEDGER")}
    env.update(XDG_STATE_HOME=os.path.join(work, "state"), BRIEF_CLICKHOUSE_PASSWORD=PASSWORD)
    return env


def start_proxy(binary, upstream, ledger, work, host):
    env = dict(brief_env(work), BRIEF_HOST=host)
    process = subprocess.Popen(
        [binary, "proxy", "--listen", "127.0.0.1:0", "--ledger", ledger,
         "--openai-upstream", f"http://127.0.0.1:{upstream}/v1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    port = int(process.stdout.readline().strip().rsplit(":", 1)[1])
    return process, port


def stats(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=10) as answer:
        return json.loads(answer.read())


def init_table(binary, ch, work, table):
    subprocess.run([binary, "ledger", "init", ch.url(table)], env=brief_env(work), check=True,
                   stdout=subprocess.DEVNULL)


def wait_rows(ch, table, n, limit=600):
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        if ch.count(f"SELECT count() FROM {table} FINAL") >= n:
            break
        time.sleep(0.1)
    return (ch.count(f"SELECT count() FROM {table}"),
            ch.count(f"SELECT count() FROM {table} FINAL"))


def line_count(path):
    try:
        with open(path, "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


# ---------------------------------------------------------------- latency

def latency_section(args, binary, ch, upstream, work, body):
    table = "fleet.latency"
    init_table(binary, ch, work, table)
    off, off_port = start_proxy(binary, upstream, os.path.join(work, "latency.jsonl"), work,
                                "bench-off")
    on, on_port = start_proxy(binary, upstream, ch.url(table, "?batch_interval=200ms"), work,
                              "bench-on")
    try:
        log(f"latency: {args.n} calls per path, interleaved")
        result = bp.latency({"direct": (upstream, PATH), "sink off": (off_port, PATH),
                             "sink on": (on_port, PATH)}, body, args.n)
        calls = args.n + 50  # and the warm-up's
        raw, once = wait_rows(ch, table, calls)
        sink = stats(on_port)["sink"]
    finally:
        for p in (off, on):
            bp.stop_process(p)
    d = result["direct"]
    print("### Latency: what the proxy adds with the sink on and off\n")
    print("| path | P50 ms | P99 ms | added P50 ms | added P99 ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| direct | {d['p50']:.3f} | {d['p99']:.3f} | | |")
    for name in ("sink off", "sink on"):
        r = result[name]
        print(f"| brief proxy, {name} ({'file ledger' if name == 'sink off' else 'ClickHouse'}) "
              f"| {r['p50']:.3f} | {r['p99']:.3f} | **{r['p50'] - d['p50']:+.3f}** "
              f"| **{r['p99'] - d['p99']:+.3f}** |")
    on_p99, off_p99 = result["sink on"]["p99"], result["sink off"]["p99"]
    print(f"\nThe sink's own share at P99 (on minus off): {on_p99 - off_p99:+.3f} ms. "
          f"Rows in ClickHouse after the run: {once} of {calls} calls counted once, {raw} "
          f"stored (sink: {sink['rows_stored']} stored, {sink['rows_pending']} pending, "
          f"last error {sink['last_error']!r}).\n")


# ---------------------------------------------------------------- scale

def scale_worker(port, body, first, count, stop, slots, latencies):
    def connection(i):
        conn = bp.Conn(port, PATH)
        extra = b"x-brief-session: fleet-%d\r\n" % i
        mine = []
        while not stop.value:
            total, _ = conn.call(body, extra)
            mine.append(total)
            slots[i] += 1
        latencies.put(mine)
    threads = [threading.Thread(target=connection, args=(first + k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def drive(ports, body, streams, seconds, landed):
    """`streams` connections spread over `ports` for `seconds`; samples (t, answered,
    landed()) every 0.25 s. Returns (samples, latencies)."""
    context = multiprocessing.get_context("fork")
    slots = context.Array("q", streams, lock=False)
    stop = context.Value("b", 0, lock=False)
    latencies = context.Queue()
    per_process = 25
    workers = []
    for first in range(0, streams, per_process):
        count = min(per_process, streams - first)
        port = ports[(first // per_process) % len(ports)]
        workers.append(context.Process(target=scale_worker, args=(
            port, body, first, count, stop, slots, latencies)))
    started = time.perf_counter()
    for w in workers:
        w.start()
    samples = []
    while True:
        time.sleep(0.25)
        now = time.perf_counter() - started
        samples.append((now, sum(slots), landed()))
        if now >= seconds:
            stop.value = 1
            break
    collected = []
    for _ in range(streams):
        collected.extend(latencies.get())
    for w in workers:
        w.join()
    return samples, collected, sum(slots)


def scale_section(args, binary, ch, upstream, work, body):
    table = "fleet.scale"
    init_table(binary, ch, work, table)
    rows = {}
    for mode in ("on", "off"):
        procs, ports = [], []
        files = []
        for k in range(args.proxies):
            if mode == "on":
                ledger = ch.url(table, "?batch_interval=250ms")
            else:
                ledger = os.path.join(work, f"scale-{k}.jsonl")
                files.append(ledger)
            p, port = start_proxy(binary, upstream, ledger, work, f"proxy-{k}")
            procs.append(p)
            ports.append(port)
        for port in ports:  # warm: pools, the first row
            bp.Conn(port, PATH).call(body)
        warm = len(ports)
        if mode == "on":
            landed = lambda: ch.count(f"SELECT count() FROM {table}") - warm  # noqa: E731
        else:
            landed = lambda: sum(line_count(f) for f in files) - warm  # noqa: E731
        log(f"scale, sink {mode}: {args.streams} streams over {args.proxies} proxies, "
            f"{args.seconds} s")
        samples, lat, answered = drive(ports, body, args.streams, args.seconds, landed)
        started = time.perf_counter()
        while landed() < answered and time.perf_counter() - started < 600:
            time.sleep(0.1)
        last_row_after = time.perf_counter() - started
        for p in procs:
            bp.stop_process(p)
        end = samples[-1]
        result = {"calls": answered, "calls_per_s": end[1] / end[0], "rows": landed(),
                  "rows_per_s": end[2] / end[0], "last_row_after_s": last_row_after,
                  "p50": bp.pct(lat, .5), "p99": bp.pct(lat, .99)}
        if mode == "on":
            total = answered + warm
            result["stored"], result["once"] = wait_rows(ch, table, total)
            result["expected"] = total
        rows[mode] = result
    print(f"### Scale: {args.streams} concurrent streams through {args.proxies} proxies, "
          f"{args.seconds} s\n")
    print("| ledger | calls | calls/s | rows/s landed (in the window) | last row after the "
          "last answer | call P50 ms | call P99 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for mode, label in (("on", "one ClickHouse (sink on)"), ("off", "a file per proxy (sink off)")):
        r = rows[mode]
        print(f"| {label} | {r['calls']:,} | {r['calls_per_s']:,.0f} | {r['rows_per_s']:,.0f} | "
              f"{r['last_row_after_s']:.2f} s | {r['p50']:.3f} | {r['p99']:.3f} |")
    r = rows["on"]
    print(f"\nIn ClickHouse at the end: {r['once']:,} rows counted once and {r['stored']:,} "
          f"stored, of {r['expected']:,} calls (warm-up calls included).\n")


# ---------------------------------------------------------------- usage

def write_rows(path, n):
    models = ["gpt-4.1-mini", "claude-sonnet-4-5", "gpt-4.1", "claude-haiku-4-5"]
    hosts = ["machine-a", "machine-b", "machine-c", "machine-d"]
    start_ms = 1_796_000_000_000
    with open(path, "w") as f:
        for i in range(n):
            ms = start_ms + i * 2_000 + (i * 37) % 1000
            t = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"
            failed = i % 97 == 0
            inp = 2000 + (i * 131) % 6000
            row = {
                "time": t, "command": "proxy", "provider": "openai" if i % 2 else "anthropic",
                "model": models[i % 4], "brief": ["clinic", "front-desk", None][i % 3],
                "brief_dir": None, "item": None,
                "prefix_hash": f"{(i % 50) * 2654435761 % (1 << 64):064x}",
                "input_tokens": None if failed else inp,
                "cached_input_tokens": None if failed or i % 9 == 0 else inp * 3 // 4,
                "cache_write_tokens": None if failed else (200 if i % 13 == 0 else 0),
                "output_tokens": None if failed else 5 + i % 40,
                "latency_ms": 300 + i % 900, "attempts": 1,
                "status": "http_500" if failed else "ok",
                "error": "upstream error" if failed else None,
                "session": f"agent-{i % 200}",
                "drifted_parts": None if i % 200 < 4 else ([] if i % 7 else ["messages"]),
                "target_brief": None, "target_brief_dir": None, "host": hosts[i % 4],
            }
            f.write(json.dumps(row, separators=(",", ":")) + "\n")


def timed(cmd, env, repeat=3):
    best, out = None, None
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        took = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"{cmd[1:4]} exited {done.returncode}: {done.stderr[-500:]}")
        best = took if best is None else min(best, took)
        out = done.stdout
    return best, out


def usage_section(args, binary, ch, work):
    table = "fleet.big"
    init_table(binary, ch, work, table)
    path = os.path.join(work, "big.jsonl")
    log(f"usage: writing {args.usage_rows:,} rows")
    write_rows(path, args.usage_rows)
    size = os.path.getsize(path)
    env = brief_env(work)
    log("usage: brief ledger push")
    push_s, _ = timed([binary, "ledger", "push", path, ch.url(table), "--json"], env, repeat=1)
    once = ch.count(f"SELECT count() FROM {table} FINAL")
    ch.query(f"OPTIMIZE TABLE {table} FINAL")
    results = {}
    for label, ledger in (("JSONL file", path), ("ClickHouse", ch.url(table))):
        log(f"usage: over the {label}")
        took, out = timed([binary, "usage", "--ledger", ledger, "--by", "model", "--json"], env)
        report = json.loads(out)
        report.pop("ledger", None)
        results[label] = (took, report)
    equal = results["JSONL file"][1] == results["ClickHouse"][1]
    file_s, ch_s = results["JSONL file"][0], results["ClickHouse"][0]
    print(f"### `brief usage --by model --json` over {args.usage_rows:,} rows\n")
    print("| ledger | wall s (best of 3) | ratio |")
    print("| --- | ---: | ---: |")
    print(f"| JSONL file ({size / 1e6:,.0f} MB) | {file_s:.2f} | 1.00 |")
    print(f"| ClickHouse {ch.version} (`FINAL`, SQL sums) | {ch_s:.2f} | {ch_s / file_s:.2f} |")
    print(f"\nReports equal: {'yes' if equal else 'NO'}. `brief ledger push` of the file: "
          f"{push_s:.1f} s ({args.usage_rows / push_s:,.0f} rows/s), {once:,} rows counted "
          f"once.\n")
    os.remove(path)


# ---------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brief", default="target/release/brief")
    parser.add_argument("-n", type=int, default=2000, help="calls per path for latency")
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--proxies", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--usage-rows", type=int, default=1_000_000)
    parser.add_argument("--sections", default="latency,scale,usage")
    args = parser.parse_args()
    binary = os.path.abspath(args.brief)
    sections = args.sections.split(",")
    work = tempfile.mkdtemp(prefix="brief-bench-fleet-")
    ch = ClickHouse(work)
    upstream, children = bp.start_upstream()
    body = bp.request_body(False)
    try:
        print(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, "
              f"load average {os.getloadavg()[0]:.1f} at the start; ClickHouse {ch.version}; "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n")
        if "latency" in sections:
            latency_section(args, binary, ch, upstream, work, body)
        if "scale" in sections:
            scale_section(args, binary, ch, upstream, work, body)
        if "usage" in sections:
            usage_section(args, binary, ch, work)
        print(f"Load average at the end: {os.getloadavg()[0]:.1f}.")
    finally:
        for pid in children:
            os.kill(pid, signal.SIGTERM)
        ch.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
