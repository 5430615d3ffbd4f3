"""Issue 38's per-call costs, side by side in one run (BENCHMARKS.md, "Instant everywhere,
release build"): the first token count (`brief count` of `hi` beside Python tiktoken's
first count), `session append` at 1k and 100k entries, and the MCP `compose` reply for a
1.04 MB prompt beside the prompt and beside `brief compose --json`.

    TIKTOKEN_CACHE_DIR=... VENV/bin/python benches/instant.py --brief target/release/brief
        [--runs 10] [--entries 1000,100000]

Wall time is fork to exit; CPU is user + system (wait4); peak RSS from /usr/bin/time (as in
benches/run.py, whose helpers this uses). Needs tiktoken (benches/requirements.txt).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_data  # noqa: E402
import run as bench  # noqa: E402


def first_count(binary, runs):
    hi = os.path.join(bench.WORK, "hi.txt")
    with open(hi, "w") as f:
        f.write("hi\n")
    py = [sys.executable, "-c",
          "import sys, tiktoken; "
          "print(len(tiktoken.get_encoding('o200k_base').encode_ordinary(open(sys.argv[1]).read())))",
          hi]
    results = bench.interleaved({
        "`brief --version`": dict(cmd=[binary, "--version"]),
        "`brief count hi.txt`": dict(cmd=[binary, "count", hi]),
        "`echo hi | brief count`": dict(cmd=[binary, "count"], stdin=hi),
        "Python tiktoken, first count of `hi` (import + o200k_base load)": dict(cmd=py),
    }, runs)
    print(f"### First count (best of {runs}; peak RSS the largest seen)\n")
    bench.table(["command", "wall", "CPU", "peak RSS"],
                [[name, *bench.cells(r)] for name, r in results.items()])
    version, count = results["`brief --version`"], results["`brief count hi.txt`"]
    print(f"First count's own cost (count − `--version`): wall "
          f"{bench.ms(bench.best(count) - bench.best(version))}, CPU "
          f"{bench.ms(bench.cpu(count) - bench.cpu(version))}, peak RSS "
          f"{bench.peak(count) - bench.peak(version):+.1f} MB.\n")


def session_append(binary, sizes, runs):
    rows = []
    for n in sizes:
        d = os.path.join(bench.WORK, f"instant-session-{n}")
        bench_data.session(binary, d, n)
        # The first writer rebuilds the derived cache from a log no writer left behind.
        bench.run([binary, "-q", "session", "append", d, "--user", "warm the cache"])
        results = bench.interleaved({
            "append": dict(cmd=[binary, "-q", "session", "append", d, "--user",
                                "one more question"]),
            "status": dict(cmd=[binary, "session", "status", d]),
        }, runs)
        for name, label in (("append", "`session append` one entry (fsync included)"),
                            ("status", "`session status`")):
            rows.append([f"{n:,}", label, *bench.cells(results[name])])
    print(f"### `session append` (best of {runs})\n")
    bench.table(["entries", "command", "wall", "CPU", "peak RSS"], rows)


def mcp_compose(binary, runs):
    d = os.path.join(bench.WORK, "instant-mcp-brief")
    bench_data.fresh(d)
    line = "The clinic opens at eight and closes at six; bookings move by phone only. "
    text = (line * (1_040_000 // len(line) + 1))[:1_040_000]
    with open(os.path.join(d, "items", "handbook.md"), "w") as f:
        f.write("---\ntype: constant\n---\n" + text + "\n")
    with open(os.path.join(d, "items", "identity.md"), "w") as f:
        f.write("---\ntype: identity\n---\nYou are the clinic's assistant.\n")
    bench_data.write_manifest(d, "mcp-bench", ["identity", "handbook"])
    composed = subprocess.run([binary, "compose", d], capture_output=True, check=True).stdout
    prompt = len(composed)
    cli = bench.interleaved({"cli": dict(cmd=[binary, "compose", "--json", d])}, runs)["cli"]
    replies, seconds = [], []
    for _ in range(runs):
        server = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

        def send(obj):
            server.stdin.write(json.dumps(obj).encode() + b"\n")
            server.stdin.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}})
        server.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        started = time.perf_counter()
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "compose", "arguments": {"brief": d}}})
        reply = server.stdout.readline()
        seconds.append(time.perf_counter() - started)
        server.stdin.close()
        server.wait()
        answer = json.loads(reply)
        if "error" in answer or answer["result"].get("isError"):
            sys.exit(f"MCP compose failed: {reply[:500]!r}")
        replies.append(len(reply))
    print(f"### MCP `compose` of a {prompt / 1e6:.2f} MB prompt (best of {runs})\n")
    bench.table(["what", "bytes or time", "ratio"], [
        ["the prompt (`brief compose`, text)", f"{prompt:,} bytes", "1.00"],
        ["MCP `tools/call compose` reply (one JSON-RPC line)", f"{min(replies):,} bytes",
         f"**{min(replies) / prompt:.3f}×**"],
        ["MCP call, request sent to reply read (server already started)",
         bench.ms(min(seconds)), f"{min(seconds) / bench.best(cli):.2f}× the CLI"],
        ["`brief compose --json` (the CLI: process start to exit)", bench.ms(bench.best(cli)),
         "1.00"],
    ])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brief", default=bench.BIN)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--entries", default="1000,100000")
    args = parser.parse_args()
    binary = os.path.abspath(args.brief)
    os.makedirs(bench.WORK, exist_ok=True)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load "
          f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}; "
          f"`{os.path.basename(binary)}` {os.path.getsize(binary) / 1e6:.1f} MB\n")
    first_count(binary, args.runs)
    session_append(binary, [int(n) for n in args.entries.split(",")], args.runs)
    mcp_compose(binary, min(args.runs, 5))
    shutil.rmtree(os.path.join(bench.WORK, "instant-mcp-brief"), ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
