#!/usr/bin/env bash
# Reruns issue 16's side-by-side benchmarks (benches/run.py) in one go and prints Markdown.
#
#   scripts/bench.sh [SECTION...] [--runs N] [--scale 1000,10000,100000] [--entries 1000,10000,100000] ...
#   scripts/bench.sh --sizes ...   also builds a `--no-default-features` (o200k_base only)
#                                  binary once, to report what cl100k_base costs
#
# Builds the release binary, makes a venv under target/bench-venv from
# benches/requirements.txt (tiktoken, headroom-ai; a failed install of headroom-ai is
# recorded and its column left out, never faked), fills TIKTOKEN_CACHE_DIR from the
# vocabulary files the bpe-openai crate ships (no download), and writes the report to stdout
# and to target/bench/report.md. Not part of CI: benchmarks need a quiet machine, not a gate.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=0
args=()
for arg in "$@"; do
  if [ "$arg" = "--sizes" ]; then sizes=1; else args+=("$arg"); fi
done

mkdir -p target/bench
if [ "$sizes" = 1 ]; then
  cargo build --release --no-default-features
  cp target/release/brief target/bench/brief-o200k-only
fi
cargo build --release

venv=target/bench-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
if ! "$venv/bin/pip" install -q -r benches/requirements.txt 2> target/bench/pip.log; then
  # headroom-ai is optional: keep tiktoken, record why headroom is missing.
  "$venv/bin/pip" install -q "$(grep '^tiktoken' benches/requirements.txt)"
  grep -v '^\s*$' target/bench/pip.log | tail -1 > target/bench/headroom-pip.log
fi

export TIKTOKEN_CACHE_DIR="$PWD/target/bench/tiktoken-cache"
"$venv/bin/python" -c "import sys; sys.path.insert(0, 'benches'); import bench_data; bench_data.tiktoken_cache('$TIKTOKEN_CACHE_DIR')"
if [ -x target/bench/brief-o200k-only ]; then
  export BRIEF_BIN_O200K_ONLY="$PWD/target/bench/brief-o200k-only"
fi
"$venv/bin/python" benches/run.py "${args[@]}" | tee target/bench/report.md
