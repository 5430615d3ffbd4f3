"""Counts the bodies of a brief's items with Python tiktoken, the way `brief stats` counts
them (each body after its front matter, `encode_ordinary`), for benches/run.py.

Usage: tiktoken_count.py ENCODING ITEMS_DIR  -> {"tokens": N, "count_seconds": S} on stdout.
TIKTOKEN_CACHE_DIR must hold the vocabularies (scripts/bench.sh fills it offline).
"""

import json
import os
import sys
import time

import tiktoken


def body(raw):
    # `---\n<yaml>\n---\n<body>`: the body starts after the closing fence's line.
    if raw.startswith("---\n"):
        end = raw.find("\n---\n", 3)
        if end >= 0:
            return raw[end + 5:]
    return raw


def main():
    encoding, items = sys.argv[1], sys.argv[2]
    enc = tiktoken.get_encoding(encoding)
    texts = []
    for name in sorted(os.listdir(items)):
        with open(os.path.join(items, name), encoding="utf-8") as f:
            texts.append(body(f.read()))
    start = time.perf_counter()
    tokens = sum(len(enc.encode_ordinary(t)) for t in texts)
    print(json.dumps({"tokens": tokens, "count_seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main()
