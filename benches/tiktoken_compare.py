"""Counts a file with Python tiktoken, for comparison with `cargo bench --bench tokens`.

Usage: python3 benches/tiktoken_compare.py [FILE|DIR]   (default: $BRIEF_CORPUS, else
../shared/corpus/briefs; for a directory the largest file is used, as the Rust bench does).
Needs `pip install tiktoken`. tiktoken downloads its vocabularies on first use; offline, point
TIKTOKEN_CACHE_DIR at a directory holding the official .tiktoken files under tiktoken's cache
names (tiktoken verifies their sha256, so a wrong file is refused).
Prints, per encoding, the `encode_ordinary` token count, the load time, and the throughput
both of counting alone (best of 20) and including the load.
"""

import os
import sys
import time


def pick(path):
    if os.path.isdir(path):
        files = [os.path.join(path, n) for n in sorted(os.listdir(path))]
        files = [f for f in files if os.path.isfile(f)]
        if not files:
            return None
        return max(files, key=os.path.getsize)
    return path


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    target = args[0] if args else os.environ.get("BRIEF_CORPUS", "../shared/corpus/briefs")
    path = pick(target) if os.path.exists(target) else None
    if path is None:
        print(f"tiktoken_compare: {target} not found or empty, skipped")
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    size = len(text.encode("utf-8"))
    print(f"file: {path} ({size} bytes)")
    start = time.perf_counter()
    import tiktoken

    import_s = time.perf_counter() - start
    print(f"import tiktoken {tiktoken.__version__}: {import_s * 1e3:.1f} ms")
    for name in ("o200k_base", "cl100k_base"):
        start = time.perf_counter()
        enc = tiktoken.get_encoding(name)
        enc.encode_ordinary("x")
        load = time.perf_counter() - start
        start = time.perf_counter()
        tokens = len(enc.encode_ordinary(text))
        first = time.perf_counter() - start
        best = first
        for _ in range(20):
            start = time.perf_counter()
            assert len(enc.encode_ordinary(text)) == tokens
            best = min(best, time.perf_counter() - start)
        print(
            f"{name}: tokens={tokens} load={load * 1e3:.1f} ms "
            f"count_best_of_20={best * 1e3:.2f} ms throughput={size / 1e6 / best:.1f} MB/s "
            f"with_load={size / 1e6 / (load + first):.2f} MB/s"
        )


if __name__ == "__main__":
    main()
