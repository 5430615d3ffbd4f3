"""Fixtures for the official-client tests: the real `brief` binary, a provider upstream on
loopback speaking both wire formats, and a running `brief proxy` in front of it."""

import json
import os
import signal
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

OPENAI_USAGE = {
    "prompt_tokens": 2048,
    "completion_tokens": 5,
    "total_tokens": 2053,
    "prompt_tokens_details": {"cached_tokens": 1920},
}
RESPONSES_USAGE = {
    "input_tokens": 2048,
    "input_tokens_details": {"cached_tokens": 1920},
    "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 2},
    "total_tokens": 2053,
}
GEMINI_USAGE = {
    "promptTokenCount": 2048,
    "cachedContentTokenCount": 1920,
    "candidatesTokenCount": 3,
    "thoughtsTokenCount": 2,
    "totalTokenCount": 2053,
}
ANTHROPIC_USAGE = {
    "input_tokens": 12,
    "cache_creation_input_tokens": 100,
    "cache_read_input_tokens": 1936,
    "output_tokens": 5,
}


def brief_bin():
    return os.environ.get("BRIEF_BIN", str(ROOT / "target" / "debug" / "brief"))


def openai_chunks(model):
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": model}
    for piece in ["Hel", "lo ", "there"]:
        yield dict(base, choices=[{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
    yield dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}])
    yield dict(base, choices=[], usage=OPENAI_USAGE)


def anthropic_events(model):
    message = {"id": "m1", "type": "message", "role": "assistant", "model": model, "content": [],
               "stop_reason": None, "stop_sequence": None,
               "usage": dict(ANTHROPIC_USAGE, output_tokens=1)}
    yield "message_start", {"type": "message_start", "message": message}
    yield "content_block_start", {"type": "content_block_start", "index": 0,
                                  "content_block": {"type": "text", "text": ""}}
    for piece in ["Hel", "lo ", "there"]:
        yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                                      "delta": {"type": "text_delta", "text": piece}}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield "message_delta", {"type": "message_delta",
                             "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                             "usage": {"output_tokens": 5}}
    yield "message_stop", {"type": "message_stop"}


def responses_events(model):
    """A Responses stream as the API sends it: created, the item, text deltas, completed."""
    item = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "Hello there", "annotations": []}]}
    base = {"id": "resp_1", "object": "response", "created_at": 1, "status": "in_progress",
            "model": model, "output": []}
    events = [("response.created", {"type": "response.created", "response": base}),
              ("response.output_item.added", {"type": "response.output_item.added",
                                              "output_index": 0,
                                              "item": dict(item, status="in_progress", content=[])}),
              ("response.content_part.added", {"type": "response.content_part.added",
                                               "item_id": "msg_1", "output_index": 0,
                                               "content_index": 0,
                                               "part": {"type": "output_text", "text": "",
                                                        "annotations": []}})]
    for piece in ["Hel", "lo ", "there"]:
        events.append(("response.output_text.delta", {
            "type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
            "content_index": 0, "delta": piece}))
    events.append(("response.output_item.done", {"type": "response.output_item.done",
                                                 "output_index": 0, "item": item}))
    events.append(("response.completed", {"type": "response.completed", "response": dict(
        base, status="completed", output=[item], usage=RESPONSES_USAGE)}))
    for number, (_, data) in enumerate(events):
        data["sequence_number"] = number
    return events, dict(base, status="completed", output=[item], usage=RESPONSES_USAGE)


def gemini_chunks(model):
    for piece in ["Hel", "lo ", "there"]:
        yield {"candidates": [{"content": {"role": "model", "parts": [{"text": piece}]},
                               "index": 0}], "modelVersion": model}
    yield {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
                           "finishReason": "STOP", "index": 0}],
           "usageMetadata": GEMINI_USAGE, "modelVersion": model}


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    requests = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        Upstream.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
        request = json.loads(body)
        model = request.get("model", "m")
        anthropic = self.path.endswith("/messages")
        if self.path.startswith("/v1beta/models/"):
            return self.gemini()
        if self.path.startswith("/v1/responses"):
            return self.responses_api(request, model)
        if request.get("stream"):
            if anthropic:
                frames = [f"event: {name}\ndata: {json.dumps(data)}\n\n"
                          for name, data in anthropic_events(model)]
            else:
                frames = [f"data: {json.dumps(c)}\n\n" for c in openai_chunks(model)]
                frames.append("data: [DONE]\n\n")
            return self.chunked(frames)
        if anthropic:
            answer = {"id": "m1", "type": "message", "role": "assistant", "model": model,
                      "content": [{"type": "text", "text": "Hello there"}],
                      "stop_reason": "end_turn", "stop_sequence": None, "usage": ANTHROPIC_USAGE}
        else:
            answer = {"id": "c1", "object": "chat.completion", "created": 1, "model": model,
                      "choices": [{"index": 0, "finish_reason": "stop",
                                   "message": {"role": "assistant", "content": "Hello there"}}],
                      "usage": OPENAI_USAGE}
        return self.whole(answer)


    def chunked(self, frames):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for frame in frames:
            data = frame.encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def whole(self, answer):
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def responses_api(self, request, model):
        events, final = responses_events(model)
        if request.get("stream"):
            self.chunked([f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events])
        else:
            self.whole(final)

    def gemini(self):
        model = self.path.split("/models/", 1)[1].split(":", 1)[0]
        chunks = list(gemini_chunks(model))
        if ":streamGenerateContent" in self.path and "alt=sse" in self.path:
            self.chunked([f"data: {json.dumps(c)}\r\n\r\n" for c in chunks])
        elif ":streamGenerateContent" in self.path:
            self.whole(chunks)
        else:
            answer = chunks[-1]
            answer["candidates"][0]["content"]["parts"][0]["text"] = "Hello there"
            self.whole(answer)


@pytest.fixture
def upstream():
    Upstream.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", Upstream.requests
    server.shutdown()


class Proxy:
    def __init__(self, upstream_url, ledger, extra=()):
        self.ledger = ledger
        env = {k: v for k, v in os.environ.items()
               if k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")}
        self.process = subprocess.Popen(
            [brief_bin(), "--color", "never", "proxy", "--listen", "127.0.0.1:0",
             "--openai-upstream", f"{upstream_url}/v1", "--anthropic-upstream", upstream_url,
             "--gemini-upstream", upstream_url,
             "--ledger", str(ledger), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.url

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=20)
        stderr = self.process.stderr.read()
        return code, stderr

    def rows(self, expected=0):
        """The ledger rows; waits (bounded) until there are `expected` of them, since a
        row is written just after its answer's last byte went out."""
        for _ in range(200):
            lines = self.ledger.read_text().splitlines() if self.ledger.exists() else []
            if len(lines) >= expected:
                break
            time.sleep(0.01)
        return [json.loads(line) for line in lines]


@pytest.fixture
def proxy(upstream, tmp_path):
    running = Proxy(upstream[0], tmp_path / "usage.jsonl")
    yield running
    if running.process.poll() is None:
        running.stop()
