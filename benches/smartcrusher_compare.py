"""headroom's SmartCrusher on the arrays `cargo bench --bench ccr` wrote, for BENCHMARKS.md.

Usage (headroom is not a dependency of briefkit; install it in a throw-away venv):
    python3 -m venv /tmp/hr-venv && /tmp/hr-venv/bin/pip install headroom-ai
    cargo bench --bench ccr            # writes target/ccr-bench/arrays/*.json
    /tmp/hr-venv/bin/python benches/smartcrusher_compare.py [DIR]

For each array it prints the bytes in and out, the ratio, the best time of 20 runs of
`SmartCrusher.crush(text)` (no query), and the strategy headroom reports, twice: with the
default configuration (which prefers a lossless table rendering when it saves 15 %) and
with `with_compaction=False` (its lossy row selection, the path comparable to a crusher
backed by a store). Time includes parsing the JSON text, as the briefkit figures do.
"""

import glob
import os
import sys
import time

from headroom.transforms.smart_crusher import SmartCrusher


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "target", "ccr-bench", "arrays")
    directory = sys.argv[1] if len(sys.argv) > 1 else default
    files = sorted(glob.glob(os.path.join(directory, "*.json")))
    if not files:
        sys.exit(f"no arrays in {directory}: run `cargo bench --bench ccr` first")
    for label, crusher in [
        ("default", SmartCrusher()),
        ("with_compaction=False", SmartCrusher(with_compaction=False)),
    ]:
        print(f"SmartCrusher, {label}")
        run(crusher, files)


def run(crusher: SmartCrusher, files: list) -> None:
    print(f"{'array':<20} {'bytes':>10} {'crushed':>10} {'ratio':>8} {'time':>10}  strategy")
    for path in files:
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path, encoding="utf-8") as f:
            text = f.read()
        best = float("inf")
        result = None
        for _ in range(20):
            started = time.perf_counter()
            result = crusher.crush(text)
            best = min(best, time.perf_counter() - started)
        out = result.compressed
        print(
            f"{name:<20} {len(text.encode()):>10} {len(out.encode()):>10} "
            f"{100 * len(out.encode()) / len(text.encode()):>7.1f}% {best * 1000:>8.2f}ms  {result.strategy[:48]}"
        )


if __name__ == "__main__":
    main()
