"""Context switches and CPU time per call in `brief proxy`, by thread, for paced calls: the
cost of waking the proxy's threads that no latency percentile on a loaded machine shows
steadily. Counts are the kernel's (/proc/PID/task/*/status, /proc/PID/task/*/stat), read
before and after N calls, each after an idle gap.

    python benches/proxy_switches.py --brief target/release/brief [-n 300] [--pace 50]
        [--wire chat] [--stream]
"""

import argparse
import json
import os
import sys
import time
import random

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
import bench_proxy as bp  # noqa: E402
import proxy_wires as pw  # noqa: E402



def schedstat_ns(pid, tid):
    """Time the thread has run, in ns (schedstat's first field: finer than stat's ticks)."""
    with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
        return int(f.read().split()[0])


def threads(pid):
    """thread name -> (voluntary, involuntary switches, CPU seconds), names made unique."""
    out = {}
    for tid in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                fields = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        name = fields["Name"].strip()
        key = name
        i = 1
        while key in out:
            i += 1
            key = f"{name}#{i}"
        out[key] = (int(fields["voluntary_ctxt_switches"]),
                    int(fields["nonvoluntary_ctxt_switches"]),
                    schedstat_ns(pid, tid) / 1e9)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--brief", default="target/release/brief")
    parser.add_argument("-n", type=int, default=300)
    parser.add_argument("--pace", type=float, default=50, help="ms before each call")
    parser.add_argument("--wire", default="chat")
    parser.add_argument("--stream", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = __import__("tempfile").mkdtemp(prefix="brief-bench-switches-")
    upstream, children = pw.start_upstream()
    try:
        process, port = pw.start_brief(args.brief, upstream, work)
        try:
            path, stream_path, make, _, _ = pw.WIRES[args.wire]
            body = json.dumps(make(args.stream)).encode()
            conn = bp.Conn(port, stream_path if args.stream else path)
            for _ in range(30):
                conn.call(body)
            time.sleep(0.5)
            before = threads(process.pid)
            for _ in range(args.n):
                time.sleep(args.pace / 1000 * random.uniform(0.9, 1.1))
                conn.call(body)
            time.sleep(0.5)
            after = threads(process.pid)
        finally:
            bp.stop(process)
    finally:
        for pid in children:
            os.kill(pid, 15)
            os.waitpid(pid, 0)
    rows = []
    for name, (v, i, cpu) in after.items():
        v0, i0, cpu0 = before.get(name, (0, 0, 0.0))
        rows.append((name, (v - v0) / args.n, (i - i0) / args.n, (cpu - cpu0) / args.n * 1e3))
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{args.n} calls, {args.wire}{' streamed' if args.stream else ''}, "
          f"paced {args.pace:g} ms")
    print("| thread | voluntary switches / call | involuntary / call | CPU ms / call |")
    print("| --- | ---: | ---: | ---: |")
    for name, v, i, cpu in rows:
        if v or i or cpu:
            print(f"| {name} | {v:.2f} | {i:.2f} | {cpu:.3f} |")
    print(f"| **all** | {sum(r[1] for r in rows):.2f} | {sum(r[2] for r in rows):.2f} "
          f"| {sum(r[3] for r in rows):.3f} |")


if __name__ == "__main__":
    sys.exit(main())
