#!/usr/bin/env python3
"""Benchmarks for the offline core: cold compose/check of the example brief, and check and
stats over a generated workspace of 50 briefs x 200 items (about 10 MB).

Usage: cargo build --release && python3 benches/foundation.py [--runs N]
Prints a Markdown table for BENCHMARKS.md. Times are wall-clock per process (cold start
included); peak memory is the maximum resident set size reported by the kernel.
"""
import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "brief")
WORDS = ("order refund parcel customer window carrier label invoice policy answer reply "
         "review store credit express standard account warranty return exchange").split()


def paragraph(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def generate(root, briefs=50, items=200, item_bytes=850):
    rng = random.Random(42)
    paths = []
    for b in range(briefs):
        d = os.path.join(root, f"brief{b:02d}")
        os.makedirs(os.path.join(d, "items"))
        ids = [f"item{i:03d}" for i in range(items)]
        with open(os.path.join(d, "brief.yaml"), "w") as f:
            f.write(f"name: brief{b:02d}\nitems: [{', '.join(ids)}]\n"
                    # A budget below the byte size forces an exact token count: the
                    # honest worst case for check.
                    "budget: { context_limit: 1000000, max_brief_tokens: 100000 }\n")
        for i, item_id in enumerate(ids):
            kind = ["identity", "instruction", "rule", "sample", "constant"][i % 5]
            body = []
            while sum(len(p) for p in body) < item_bytes:
                body.append(paragraph(rng, 20))
            with open(os.path.join(d, "items", item_id + ".md"), "w") as f:
                f.write(f"---\ntype: {kind}\n---\n" + "\n\n".join(body) + "\n")
        subprocess.run([BIN, "-q", "lock", d], check=True)
        paths.append(d)
    return paths


def timed(cmd, runs):
    times, peak = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
        peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return statistics.median(times), min(times), peak


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    example = os.path.join(ROOT, "briefs", "support")
    vars_ = ["--var", "date=2026-11-30", "--var", "customer_name=Ada", "--var", "plan=Pro"]
    tmp = tempfile.mkdtemp()
    try:
        shutil.copytree(example, os.path.join(tmp, "support"))
        ex = os.path.join(tmp, "support")
        subprocess.run([BIN, "-q", "lock", ex], check=True)
        rows = [
            ("compose example (text, no token figure)", [BIN, "compose", ex] + vars_),
            ("compose example --format openai", [BIN, "compose", ex, "--format", "openai"] + vars_),
            ("check example (counts tokens only when the budget needs it)", [BIN, "check", ex]),
            ("lock example (prints the prefix tokens)", [BIN, "lock", ex]),
            ("stats example (token figures)", [BIN, "stats", ex]),
        ]
        ws = os.path.join(tmp, "ws")
        os.makedirs(ws)
        paths = generate(ws)
        size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(ws) for f in fs)
        rows.append((f"check 50 briefs x 200 items ({size / 1e6:.1f} MB)", [BIN, "check"] + paths))
        rows.append(("stats 1 brief of 200 items", [BIN, "stats", paths[0]]))
        print("| command | median | min | peak RSS |")
        print("| --- | --- | --- | --- |")
        for name, cmd in rows:
            # Peak RSS from getrusage is cumulative over children, so measure each row
            # in a fresh interpreter-free way: /usr/bin/time reports it per process.
            med, low, _ = timed(cmd, args.runs if "50 briefs" not in name else max(3, args.runs // 3))
            out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True).stderr.strip().splitlines()[-1]
            print(f"| `{name}` | {med * 1000:.0f} ms | {low * 1000:.0f} ms | {int(out) / 1024:.0f} MB |")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
