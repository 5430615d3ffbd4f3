#!/usr/bin/env bash
# Installs the agent CLIs the real-client tests drive (tests/python/test_agent_clis.py):
# Claude Code, Codex CLI and Gemini CLI, at the pinned versions below, with npm. Idempotent: when the
# pinned versions are already in place it does nothing, so CI and every checkout share one
# install ($BRIEF_AGENT_CLIS, default ~/.cache/briefkit/agent-clis; ~700 MB, ~30 s).
# Needs node and npm (Debian: apt-get install -y nodejs npm); installs them when missing
# and apt-get is there (CI runs as root).
set -euo pipefail
CLAUDE_CODE="@anthropic-ai/claude-code@2.1.332"
CODEX="@openai/codex@0.171.0"
GEMINI_CLI="@google/gemini-cli@0.61.0"
dir="${BRIEF_AGENT_CLIS:-$HOME/.cache/briefkit/agent-clis}"
want="$CLAUDE_CODE $CODEX $GEMINI_CLI"
if [ "$(cat "$dir/.installed" 2>/dev/null)" = "$want" ] \
  && [ -x "$dir/node_modules/.bin/claude" ] && [ -x "$dir/node_modules/.bin/codex" ] \
  && [ -x "$dir/node_modules/.bin/gemini" ]; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
  else
    echo "npm is needed to install the agent CLIs: apt-get install nodejs npm" >&2
    exit 1
  fi
fi
mkdir -p "$dir"
rm -f "$dir/.installed"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error $want
"$dir/node_modules/.bin/claude" --version >/dev/null
"$dir/node_modules/.bin/codex" --version >/dev/null
"$dir/node_modules/.bin/gemini" --version >/dev/null
echo "$want" > "$dir/.installed"
