#!/usr/bin/env bash
# The official-client tests: the OpenAI and Anthropic Python SDKs through `brief proxy`,
# the MCP Python SDK against `brief mcp`. Makes a virtual environment (target/pyenv, or
# $BRIEF_PYENV) with the pinned requirements, builds the binary, and runs pytest on it.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${BRIEF_PYENV:-target/pyenv}"
python="$(command -v python3.11 || command -v python3)"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt
cargo build --quiet --bin brief
# Where cargo put the binary: CARGO_TARGET_DIR when set (relative to here), else target/.
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
BRIEF_BIN="$target_dir/debug/brief" "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/python "$@"
