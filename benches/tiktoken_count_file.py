"""Counts whole files with Python tiktoken, the way `brief count` counts them
(`encode_ordinary` of each file's text), for benches/run.py's `count` section.

Usage: tiktoken_count_file.py ENCODING FILE...  ->  {"tokens": N, "count_seconds": S}
TIKTOKEN_CACHE_DIR must hold the vocabularies (scripts/bench.sh fills it offline).
"""

import json
import sys
import time

import tiktoken


def main():
    encoding, files = sys.argv[1], sys.argv[2:]
    enc = tiktoken.get_encoding(encoding)
    texts = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            texts.append(f.read())
    start = time.perf_counter()
    tokens = sum(len(enc.encode_ordinary(t)) for t in texts)
    print(json.dumps({"tokens": tokens, "count_seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main()
