"""The issue's "done when", end to end: an agent that changes nothing but its base URL
(the SDKs read ANTHROPIC_BASE_URL / OPENAI_BASE_URL themselves; no session header, no
custom client) shows its real cache hits, cache writes and prefix drift in `brief usage`
and on `/metrics`.

The upstream here keeps a real prompt cache of its own: the first call with a given tools +
system prefix writes it, later calls with the same prefix read it, and a prefix that
changed is a new write. Nothing in the expected figures is a constant the upstream echoes."""

import json
import re
import subprocess
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import anthropic
import openai
import pytest

from conftest import Proxy, brief_bin

TOOLS = [{"name": "lookup", "description": "Look a record up by its id.",
          "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}}}]
SYSTEM = "You answer questions about the clinic's appointment book. " * 40


def tokens(value):
    return len(json.dumps(value, sort_keys=True)) // 4


class CachingUpstream(BaseHTTPRequestHandler):
    """Counts tokens as a quarter of the JSON length and caches prefixes it has seen."""
    protocol_version = "HTTP/1.1"
    cache = set()
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if self.path.endswith("/messages"):
            prefix = [request.get("tools"), request.get("system")]
            rest = request["messages"]
        else:
            messages = request["messages"]
            prefix = [request.get("tools"), [m for m in messages if m["role"] == "system"]]
            rest = [m for m in messages if m["role"] != "system"]
        key = json.dumps(prefix, sort_keys=True)
        with CachingUpstream.lock:
            hit = key in CachingUpstream.cache
            CachingUpstream.cache.add(key)
        cached = tokens(prefix)
        if self.path.endswith("/messages"):
            usage = {"input_tokens": tokens(rest),
                     "cache_creation_input_tokens": 0 if hit else cached,
                     "cache_read_input_tokens": cached if hit else 0, "output_tokens": 3}
            answer = {"id": "m", "type": "message", "role": "assistant",
                      "model": request["model"], "content": [{"type": "text", "text": "Noted."}],
                      "stop_reason": "end_turn", "stop_sequence": None, "usage": usage}
        else:
            usage = {"prompt_tokens": cached + tokens(rest), "completion_tokens": 3,
                     "total_tokens": cached + tokens(rest) + 3,
                     "prompt_tokens_details": {"cached_tokens": cached if hit else 0}}
            answer = {"id": "c", "object": "chat.completion", "created": 1,
                      "model": request["model"], "usage": usage,
                      "choices": [{"index": 0, "finish_reason": "stop",
                                   "message": {"role": "assistant", "content": "Noted."}}]}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def caching_proxy(tmp_path):
    CachingUpstream.cache = set()
    server = ThreadingHTTPServer(("127.0.0.1", 0), CachingUpstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    proxy = Proxy(f"http://127.0.0.1:{server.server_address[1]}", tmp_path / "usage.jsonl")
    yield proxy
    if proxy.process.poll() is None:
        proxy.stop()
    server.shutdown()


def metric(text, name, **labels):
    """The value of one series of `name` whose labels include `labels`."""
    total = None
    for line in text.splitlines():
        match = re.fullmatch(rf"{name}\{{(.*)\}} (\S+)", line)
        if match and all(f'{k}="{v}"' in match.group(1) for k, v in labels.items()):
            total = (total or 0) + float(match.group(2))
    return total


def usage(proxy, *args):
    out = subprocess.run([brief_bin(), "usage", "--ledger", str(proxy.ledger), *args],
                         capture_output=True, text=True, check=True)
    return out.stdout


def test_an_agent_that_only_changes_its_base_url_shows_hits_writes_and_drift(
        caching_proxy, monkeypatch):
    proxy = caching_proxy
    monkeypatch.setenv("ANTHROPIC_BASE_URL", proxy.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-agent-key-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{proxy.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-agent-key-0123456789")

    claude = anthropic.Anthropic(max_retries=0)
    conversation = []
    systems = [SYSTEM, SYSTEM, SYSTEM, SYSTEM + "Today is 2026-11-30.", SYSTEM + "Today is 2026-11-30."]
    for turn, system in enumerate(systems):
        conversation.append({"role": "user", "content": f"Question {turn}?"})
        answer = claude.messages.create(model="claude-agent", max_tokens=16, tools=TOOLS,
                                        system=system, messages=conversation)
        conversation.append({"role": "assistant", "content": answer.content[0].text})
    gpt = openai.OpenAI(max_retries=0)
    for _ in range(2):
        gpt.chat.completions.create(model="gpt-agent", messages=[
            {"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hi"}])

    prefix, changed = tokens([TOOLS, SYSTEM]), tokens([TOOLS, systems[3]])
    rows = proxy.rows(7)
    assert len(rows) == 7
    claude_rows, gpt_rows = rows[:5], rows[5:]
    assert [r["cache_write_tokens"] for r in claude_rows] == [prefix, 0, 0, changed, 0]
    assert [r["cached_input_tokens"] for r in claude_rows] == [0, prefix, prefix, 0, changed]
    # The conversation grew every turn; only the system prompt's change is drift.
    assert [r["drifted_parts"] for r in claude_rows] == [None, [], [], ["system"], []]
    assert len({r["session"] for r in claude_rows}) == 1
    assert claude_rows[0]["session"].startswith("auto-")
    assert gpt_rows[0]["session"] != claude_rows[0]["session"]
    assert "agent-key" not in proxy.ledger.read_text()

    # /metrics, while the proxy runs.
    text = urllib.request.urlopen(f"{proxy.url}/metrics").read().decode()
    assert metric(text, "brief_proxy_cache_write_tokens_total", model="claude-agent") == prefix + changed
    assert metric(text, "brief_proxy_cached_input_tokens_total", model="claude-agent") == 2 * prefix + changed
    assert metric(text, "brief_proxy_prefix_drift_total", model="claude-agent") == 1
    assert metric(text, "brief_proxy_prefix_drift_total", model="gpt-agent") == 0
    gpt_prefix = tokens([None, [{"role": "system", "content": SYSTEM}]])
    assert metric(text, "brief_proxy_cached_input_tokens_total", model="gpt-agent") == gpt_prefix

    # `brief usage`, from the ledger.
    report = json.loads(usage(proxy, "--by", "session", "--json"))
    by_session = {g["key"]: g for g in report["groups"]}
    claude_group = by_session[claude_rows[0]["session"]]
    assert claude_group["calls"] == 5
    assert claude_group["cache_write_tokens"] == prefix + changed
    assert claude_group["cached_input_tokens"] == 2 * prefix + changed
    assert (claude_group["drift_compared"], claude_group["drifted"]) == (4, 1)
    assert claude_group["drifted_parts"] == {"system": 1}
    assert by_session[gpt_rows[0]["session"]]["cached_input_tokens"] == gpt_prefix
    assert report["total"]["drifted"] == 1
    human = usage(proxy, "--by", "session")
    assert "Prefix drift: 1 of 5 proxied calls" in human
    assert "DRIFTED" in human
    by_prefix = json.loads(usage(proxy, "--json"))
    # Three prefixes: the agent's first system prompt, its changed one, and the GPT agent's.
    assert len(by_prefix["groups"]) == 3
