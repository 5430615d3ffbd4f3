"""The real agent CLIs through `brief proxy`: Claude Code (Anthropic Messages), Codex CLI
(OpenAI Responses) and Gemini CLI (Gemini `streamGenerateContent`), run non-interactively against a loopback upstream that streams answers
with cached tokens. A recording relay between the CLI and the proxy keeps what the CLI sent,
so the test can say the upstream got those bytes unchanged.

The CLIs are installed at pinned versions by tests/agents/install.sh (`.ci/run` calls it).
When they are missing these tests fail and say how to install them."""

import http.client
import json
import os
import re
import subprocess
import threading
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import ROOT, Proxy, brief_bin

KEY = "sk-ant-agentcli-SECRET-0123456789abcdef"
CODEX_KEY = "sk-proj-agentcli-SECRET-abcdef0123456789"
GEMINI_KEY = "AIzaSyAgentCliSECRET0123456789abcdefgh"
INSTALL = ROOT / "tests" / "agents" / "install.sh"
MESSAGES_USAGE = {
    "input_tokens": 12, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 2000,
    "cache_creation": {"ephemeral_5m_input_tokens": 60, "ephemeral_1h_input_tokens": 40},
    "output_tokens": 1,
}
GEMINI_USAGE = {"promptTokenCount": 2100, "cachedContentTokenCount": 2048,
                "candidatesTokenCount": 2, "totalTokenCount": 2102}
RESPONSES_USAGE = {"input_tokens": 1500, "input_tokens_details": {"cached_tokens": 1024},
                   "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 8},
                   "total_tokens": 1520}


def agent_bin(name):
    """The pinned CLI `name`, installed by tests/agents/install.sh; fails saying how."""
    pins = " ".join(re.findall(r'^(?:CLAUDE_CODE|CODEX|GEMINI_CLI)="([^"]+)"', INSTALL.read_text(), re.M))
    home = Path(os.environ.get("BRIEF_AGENT_CLIS",
                               Path.home() / ".cache" / "briefkit" / "agent-clis"))
    marker = home / ".installed"
    path = home / "node_modules" / ".bin" / name
    installed = marker.read_text().strip() if marker.exists() else ""
    if installed != pins or not path.exists():
        pytest.fail(f"the agent CLIs ({pins}) are not installed in {home}: run "
                    f"`bash tests/agents/install.sh` (needs npm; set BRIEF_AGENT_CLIS to "
                    f"install elsewhere)", pytrace=False)
    return str(path)


def sse(name, data):
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


class AgentUpstream(BaseHTTPRequestHandler):
    """Anthropic Messages and OpenAI Responses, always streamed, with cache figures; a
    scripted `tool_use` when `tool` names a tool the request offers and no result came back
    yet."""
    protocol_version = "HTTP/1.1"
    bodies = []
    tool = None

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        self.send_error(404)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        AgentUpstream.bodies.append({"path": self.path, "body": raw})
        body = json.loads(raw)
        if self.path.split("?")[0] == "/v1/messages":
            frames = self.messages_api(body)
        elif self.path.split("?")[0] == "/v1/responses":
            frames = self.responses_api(body)
        elif ":streamGenerateContent" in self.path:
            frames = self.gemini_stream()
        elif ":generateContent" in self.path:
            return self.gemini_json()
        elif ":countTokens" in self.path:
            return self.json_answer({"totalTokens": 2100})
        else:
            return self.send_error(404)
        data = "".join(frames).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def messages_api(self, body):
        model = body.get("model", "claude")
        last = body["messages"][-1]["content"]
        answered = isinstance(last, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in last)
        offered = [t.get("name") for t in body.get("tools") or []]
        start = {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
                 "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
                 "usage": MESSAGES_USAGE}
        frames = [sse("message_start", {"type": "message_start", "message": start})]
        tool = AgentUpstream.tool
        if tool and tool[0] in offered and not answered:
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": tool[0],
                     "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(tool[1])}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": "pong"}
            stop = "end_turn"
        frames += [
            sse("content_block_start", {"type": "content_block_start", "index": 0,
                                        "content_block": block}),
            sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": delta}),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": stop, "stop_sequence": None},
                                  "usage": {"output_tokens": 7}}),
            sse("message_stop", {"type": "message_stop"}),
        ]
        return frames

    def json_answer(self, value):
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def gemini_stream(self):
        chunk = {"candidates": [{"content": {"role": "model", "parts": [{"text": "pong"}]},
                                 "finishReason": "STOP", "index": 0}],
                 "usageMetadata": GEMINI_USAGE, "modelVersion": "gemini-2.5-pro"}
        return [f"data: {json.dumps(chunk)}\r\n\r\n"]

    def gemini_json(self):
        """Gemini CLI's side calls (its model router, its next-speaker check) ask for JSON;
        one answer satisfies both."""
        text = json.dumps({"reasoning": "simple", "model_choice": "flash",
                           "next_speaker": "user"})
        return self.json_answer({
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 300, "candidatesTokenCount": 20,
                              "totalTokenCount": 320},
            "modelVersion": "gemini-2.5-flash-lite"})

    def responses_api(self, body):
        item = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": "pong", "annotations": []}]}
        base = {"id": "resp_" + uuid.uuid4().hex[:20], "object": "response", "created_at": 1,
                "status": "in_progress", "model": body.get("model"), "output": []}
        events = [
            ("response.created", {"type": "response.created", "response": base}),
            ("response.output_item.done", {"type": "response.output_item.done",
                                           "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": dict(
                base, status="completed", output=[item], usage=RESPONSES_USAGE)}),
        ]
        return [sse(name, dict(data, sequence_number=n)) for n, (name, data) in enumerate(events)]


class Recorder(BaseHTTPRequestHandler):
    """Between the CLI and the proxy: keeps each request body as the CLI sent it and passes
    the exchange on."""
    protocol_version = "HTTP/1.1"
    target = None
    bodies = []

    def log_message(self, *args):
        pass

    def relay(self):
        raw = self.rfile.read(int(self.headers.get("content-length", 0) or 0))
        if self.command == "POST":
            Recorder.bodies.append({"path": self.path, "body": raw})
        connection = http.client.HTTPConnection(Recorder.target, timeout=60)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("host", "connection", "content-length")}
        connection.request(self.command, self.path, body=raw, headers=headers)
        answer = connection.getresponse()
        data = answer.read()
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_POST = do_GET = do_HEAD = relay


def serve(handler):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def chain(tmp_path):
    """CLI -> recorder -> brief proxy -> upstream; yields (recorder URL, proxy)."""
    AgentUpstream.bodies, AgentUpstream.tool, Recorder.bodies = [], None, []
    upstream = serve(AgentUpstream)
    upstream_url = f"http://127.0.0.1:{upstream.server_address[1]}"
    (tmp_path / "ledger").mkdir()
    proxy = Proxy(upstream_url, tmp_path / "ledger" / "usage.jsonl")
    Recorder.target = proxy.url.removeprefix("http://")
    recorder = serve(Recorder)
    yield f"http://127.0.0.1:{recorder.server_address[1]}", proxy
    recorder.shutdown()
    if proxy.process.poll() is None:
        proxy.stop()
    upstream.shutdown()


def git_project(path):
    path.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(path)]
    subprocess.run(git + ["init", "-q"], check=True)
    (path / "README.md").write_text("A project.\n")
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "first"], check=True)
    return path


def claude(tmp_path, base_url, project, prompt, *extra, env=None):
    environment = {
        "PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": KEY, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0", "DISABLE_AUTOUPDATER": "1", **(env or {}),
    }
    done = subprocess.run(
        [agent_bin("claude"), "-p", prompt, "--output-format", "json",
         "--model", "claude-sonnet-4-5", *extra],
        cwd=project, env=environment, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def align(bodies, tmp_path, *args):
    capture = tmp_path / "capture.jsonl"
    capture.write_bytes(b"".join(b["body"] + b"\n" for b in bodies))
    done = subprocess.run([brief_bin(), "align", "--json", *args, str(capture)],
                          capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout), done.returncode, done.stdout + done.stderr


def posts(bodies, path):
    return [b for b in bodies if b["path"].split("?")[0] == path]


def assert_no_key(proxy, stderr, *texts, key=KEY):
    assert key not in proxy.ledger.read_text()
    assert key not in stderr
    for text in texts:
        assert key not in text
    for path in proxy.ledger.parent.rglob("*"):
        assert key.encode() not in path.read_bytes(), path


def test_claude_code_conversations_are_separate_sessions_with_their_cached_tokens(
        chain, tmp_path):
    base_url, proxy = chain
    project = git_project(tmp_path / "project")
    first = claude(tmp_path, base_url, project, "say pong")
    second = claude(tmp_path, base_url, project, "say pong")
    (project / "notes.txt").write_text("untracked\n")
    third = claude(tmp_path, base_url, project, "say pong")
    for answer in (first, second, third):
        assert answer["result"] == "pong", answer
        assert answer["usage"]["cache_read_input_tokens"] == 2000

    sent, received = posts(Recorder.bodies, "/v1/messages"), posts(AgentUpstream.bodies,
                                                                   "/v1/messages")
    assert len(sent) == 3
    assert [b["body"] for b in received] == [b["body"] for b in sent], "byte for byte"

    rows = proxy.rows(3)
    assert len(rows) == 3
    assert [r["session"] for r in rows] == [a["session_id"] for a in (first, second, third)]
    assert len({r["session"] for r in rows}) == 3
    for row in rows:
        assert row["provider"] == "anthropic" and row["status"] == "ok"
        assert row["cached_input_tokens"] == 2000
        assert row["cache_write_tokens"] == 100
        assert (row["cache_write_5m_tokens"], row["cache_write_1h_tokens"]) == (60, 40)
        assert row["drifted_parts"] is None, "the first call of a conversation is not drift"

    report, code, text = align(sent, tmp_path)
    totals = report["totals"]
    assert totals["warnings"] == 0, text
    assert totals["drifted"] == 1, text
    assert report["wakes"][1]["drifted_parts"] == [], text
    drifted = report["wakes"][2]
    assert drifted["first_difference"]["current"] is not None, text
    assert "notes.txt" in drifted["first_difference"]["current"], text
    assert code == 1
    code, stderr = proxy.stop()
    assert code == 0
    assert_no_key(proxy, stderr, text)


def test_codex_cli_calls_appear_in_usage_with_their_cached_tokens(chain, tmp_path):
    base_url, proxy = chain
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "gpt-5-codex"\nmodel_provider = "loop"\n\n'
        "[model_providers.loop]\n"
        f'name = "loop"\nbase_url = "{base_url}/v1"\nenv_key = "LOOP_OPENAI_KEY"\n'
        'wire_api = "responses"\n\n[features]\nplugins = false\n\n[analytics]\nenabled = false\n')
    project = git_project(tmp_path / "project")
    environment = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"),
                   "CODEX_HOME": str(codex_home), "LOOP_OPENAI_KEY": CODEX_KEY}
    for _ in range(2):
        done = subprocess.run(
            [agent_bin("codex"), "exec", "--skip-git-repo-check", "--ephemeral", "say pong"],
            cwd=project, env=environment, capture_output=True, text=True, timeout=120,
            stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "pong" in done.stdout

    sent, received = posts(Recorder.bodies, "/v1/responses"), posts(AgentUpstream.bodies,
                                                                    "/v1/responses")
    assert len(sent) == 2
    assert [b["body"] for b in received] == [b["body"] for b in sent], "byte for byte"
    cache_keys = [json.loads(b["body"])["prompt_cache_key"] for b in sent]

    rows = proxy.rows(2)
    assert len(rows) == 2
    assert [r["session"] for r in rows] == cache_keys
    assert cache_keys[0] != cache_keys[1]
    for row in rows:
        assert row["provider"] == "responses" and row["status"] == "ok"
        assert row["model"] == "gpt-5-codex"
        assert row["input_tokens"] == 1500
        assert row["cached_input_tokens"] == 1024
        assert row["reasoning_tokens"] == 8
        assert row["drifted_parts"] is None
    usage = json.loads(subprocess.run(
        [brief_bin(), "usage", "--json", "--by", "model", "--ledger", str(proxy.ledger)],
        capture_output=True, text=True, check=True).stdout)
    assert usage["groups"][0]["key"] == "responses/gpt-5-codex"
    assert usage["total"]["cached_input_tokens"] == 2 * 1024

    report, code, text = align(sent, tmp_path)
    assert report["totals"]["warnings"] == 0, text
    assert report["wakes"][0]["shape"] == "responses"
    code_stop, stderr = proxy.stop()
    assert code_stop == 0
    assert_no_key(proxy, stderr, text, key=CODEX_KEY)


def test_claude_code_calls_a_brief_mcp_tool_end_to_end(chain, tmp_path):
    base_url, proxy = chain
    store = tmp_path / "ccr.sqlite"
    original = "the whole tool output, kept in the store\n"
    digest = subprocess.run(
        [brief_bin(), "ccr", "put", "--store", str(store), "--source", "pytest"],
        input=original, capture_output=True, text=True, check=True).stdout.strip()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"brief": {
        "type": "stdio", "command": brief_bin(), "args": ["mcp"],
        "env": {"BRIEF_CCR_PATH": str(store)}}}}))
    AgentUpstream.tool = ("mcp__brief__retrieve", {"hash": digest})
    project = git_project(tmp_path / "project")
    answer = claude(tmp_path, base_url, project, "fetch the original",
                    "--mcp-config", str(config), "--strict-mcp-config",
                    "--allowedTools", "mcp__brief__retrieve",
                    env={"ENABLE_TOOL_SEARCH": "false"})
    assert answer["num_turns"] == 2, answer
    assert answer["result"] == "pong"
    received = posts(AgentUpstream.bodies, "/v1/messages")
    assert len(received) == 2
    last = json.loads(received[1]["body"])["messages"][-1]["content"]
    results = [b for b in last if isinstance(b, dict) and b.get("type") == "tool_result"]
    assert results, last
    assert "the whole tool output" in json.dumps(results[0]["content"])

    rows = proxy.rows(2)
    assert len(rows) == 2
    assert rows[0]["session"] == rows[1]["session"] == answer["session_id"]
    assert rows[1]["drifted_parts"] == [], "the conversation only grew"


def gemini(tmp_path, base_url, project, prompt, env=None):
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"},
                     "folderTrust": {"enabled": False}},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
    }))
    environment = {
        "PATH": os.environ["PATH"], "HOME": str(home), "GEMINI_API_KEY": GEMINI_KEY,
        "GOOGLE_GEMINI_BASE_URL": base_url, "GEMINI_CLI_NO_RELAUNCH": "true",
        "NO_BROWSER": "true", "CI": "1", **(env or {}),
    }
    done = subprocess.run(
        [agent_bin("gemini"), "-p", prompt, "--output-format", "json"],
        cwd=project, env=environment, capture_output=True, text=True, timeout=180,
        stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_two_gemini_cli_conversations_are_two_sessions_without_drift(chain, tmp_path):
    # Issue 33: Gemini CLI sends no session id; every conversation with one key and model
    # fell into one session, and each new one was logged as drift.
    base_url, proxy = chain
    project = git_project(tmp_path / "project")
    gemini(tmp_path, base_url, project, "say pong")
    first = len(proxy.rows(1))
    assert first >= 1
    gemini(tmp_path, base_url, project, "now say ping")
    sent = [b for b in Recorder.bodies if "generateContent" in b["path"]
            or "GenerateContent" in b["path"]]
    received = [b for b in AgentUpstream.bodies if "enerateContent" in b["path"]]
    assert [b["body"] for b in received] == [b["body"] for b in sent], "byte for byte"

    rows = proxy.rows(len(sent))
    assert len(rows) == len(sent) > first
    for row in rows:
        assert row["provider"] == "gemini" and row["status"] == "ok", row
        assert row["drifted_parts"] in (None, []), row
    streamed = [r for r in rows if r["input_tokens"] == 2100]
    assert streamed and all(r["cached_input_tokens"] == 2048 for r in streamed)
    one = {r["session"] for r in rows[:first]}
    two = {r["session"] for r in rows[first:]}
    assert one and two and not one & two, (one, two)
    with urllib.request.urlopen(f"{proxy.url}/stats", timeout=10) as answer:
        stats = json.loads(answer.read())
    assert stats["totals"]["drifted"] == 0, stats["totals"]
    code, stderr = proxy.stop()
    assert code == 0
    assert_no_key(proxy, stderr, key=GEMINI_KEY)


def test_a_gemini_cli_session_header_names_the_session(chain, tmp_path):
    base_url, proxy = chain
    project = git_project(tmp_path / "project")
    gemini(tmp_path, base_url, project, "say pong",
           env={"GEMINI_CLI_CUSTOM_HEADERS": "X-Brief-Session: triage-bot"})
    rows = proxy.rows(1)
    assert rows and all(r["session"] == "triage-bot" for r in rows), rows
