"""headroom's CacheAligner over a JSON-lines file of request bodies, one at a time, for
benches/run.py: the same work `brief align` is timed on (read, parse, hash the stable
prefix, compare with the previous wake, scan for volatile values).

Usage: headroom_align.py BODIES.jsonl  -> {"wakes": N, "changed": M} on stdout.
"""

import json
import logging
import sys

from headroom.tokenizer import Tokenizer
from headroom.tokenizers import EstimatingTokenCounter
from headroom.transforms.cache_aligner import CacheAligner


def main():
    logging.disable(logging.WARNING)
    aligner = CacheAligner()
    tokenizer = Tokenizer(EstimatingTokenCounter())
    wakes = changed = 0
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            body = json.loads(line)
            result = aligner.apply(body["messages"], tokenizer)
            wakes += 1
            changed += bool(result.cache_metrics and result.cache_metrics.prefix_changed)
    print(json.dumps({"wakes": wakes, "changed": changed}))


if __name__ == "__main__":
    main()
