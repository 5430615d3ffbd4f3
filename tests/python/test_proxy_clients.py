"""The official OpenAI and Anthropic SDKs call through `brief proxy`, streaming and not:
what they send reaches the upstream unchanged, what they get back parses as usual, and
every call is one ledger row with its cache figures."""

import json
import subprocess
import threading
import time
import urllib.request

import anthropic
import httpx2 as httpx
import openai
import pytest

from conftest import ANTHROPIC_USAGE, OPENAI_USAGE, brief_bin

KEY = "sk-test-python-SECRET-0123456789abcdef"
SYSTEM = "You are a careful assistant. Answer briefly."


def capturing_client(sent):
    return httpx.Client(event_hooks={"request": [lambda request: sent.append(request)]})


def test_openai_sdk_through_the_proxy_streaming_and_not(proxy, upstream):
    _, received = upstream
    sent = []
    client = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=KEY, max_retries=0,
                           http_client=capturing_client(sent))
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hi"}]
    answer = client.chat.completions.create(model="gpt-test", messages=messages)
    assert answer.choices[0].message.content == "Hello there"
    assert answer.usage.prompt_tokens_details.cached_tokens == 1920

    stream = client.chat.completions.create(
        model="gpt-test", messages=messages, stream=True,
        stream_options={"include_usage": True})
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Hello there"
    assert chunks[-1].usage.prompt_tokens == 2048

    assert len(received) == 2
    for request, got in zip(sent, received):
        sent_body = request.read()
        assert got["body"] == sent_body, "the body reached the upstream byte for byte"
        assert got["headers"]["authorization"] == f"Bearer {KEY}"
        assert got["path"] == "/v1/chat/completions"

    code, _ = proxy.stop()
    assert code == 0
    rows = proxy.rows()
    assert [r["command"] for r in rows] == ["proxy", "proxy"]
    for row in rows:
        assert row["provider"] == "openai"
        assert row["status"] == "ok"
        assert row["input_tokens"] == OPENAI_USAGE["prompt_tokens"]
        assert row["cached_input_tokens"] == 1920
        assert len(row["prefix_hash"]) == 64
    assert rows[0]["drifted_parts"] is None
    assert rows[1]["drifted_parts"] == []
    assert KEY not in proxy.ledger.read_text()


def test_anthropic_sdk_through_the_proxy_streaming_and_not(proxy, upstream):
    _, received = upstream
    client = anthropic.Anthropic(base_url=proxy.url, api_key=KEY, max_retries=0)
    system = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    messages = [{"role": "user", "content": "Hi"}]
    answer = client.messages.create(model="claude-test", max_tokens=16, system=system,
                                    messages=messages)
    assert answer.content[0].text == "Hello there"
    assert answer.usage.cache_read_input_tokens == 1936

    with client.messages.stream(model="claude-test", max_tokens=16, system=system,
                                messages=messages) as stream:
        text = stream.get_final_text()
        final = stream.get_final_message()
    assert text == "Hello there"
    assert final.usage.output_tokens == 5

    # The credential header, whichever this SDK version uses, arrives unchanged.
    for request in received:
        headers = request["headers"]
        assert KEY in (headers.get("x-api-key"), headers.get("authorization", "")[7:])
    rows = proxy.rows(2)
    assert len(rows) == 2
    total = sum(ANTHROPIC_USAGE[k] for k in
                ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    for row in rows:
        assert row["provider"] == "anthropic"
        assert row["status"] == "ok"
        assert row["input_tokens"] == total
        assert row["cached_input_tokens"] == 1936
        assert row["cache_write_tokens"] == 100
        assert row["output_tokens"] == 5

    stats = json.load(urllib.request.urlopen(f"{proxy.url}/stats"))
    assert stats["status"] == "ok"
    assert stats["totals"]["calls"] == 2
    assert stats["per_model"]["claude-test"]["cache_write_tokens"] == 200
    metrics = urllib.request.urlopen(f"{proxy.url}/metrics").read().decode()
    assert 'brief_proxy_cached_input_tokens_total{provider="anthropic",model="claude-test"' in metrics

    usage = subprocess.run([brief_bin(), "usage", "--json", "--ledger", str(proxy.ledger)],
                           capture_output=True, text=True, check=True)
    assert json.loads(usage.stdout)["status"]


def test_a_session_header_groups_calls_and_drift_is_recorded(proxy):
    client = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=KEY, max_retries=0,
                           default_headers={"X-Brief-Session": "py-agent"})
    for system in (SYSTEM, SYSTEM, SYSTEM + " Today is 2026-11-30."):
        client.chat.completions.create(
            model="gpt-test",
            messages=[{"role": "system", "content": system}, {"role": "user", "content": "Hi"}])
    rows = proxy.rows(3)
    assert [r["session"] for r in rows] == ["py-agent"] * 3
    assert [r["drifted_parts"] for r in rows] == [None, [], ["system"]]


def test_an_unreachable_upstream_raises_the_sdks_own_error(tmp_path):
    import socket

    from conftest import Proxy
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    proxy = Proxy(dead, tmp_path / "usage.jsonl")
    try:
        client = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=KEY, max_retries=0)
        with pytest.raises(openai.InternalServerError) as raised:
            client.chat.completions.create(model="gpt-test",
                                           messages=[{"role": "user", "content": "Hi"}])
        assert raised.value.status_code == 502
        assert "brief proxy" in str(raised.value)
        claude = anthropic.Anthropic(base_url=proxy.url, api_key=KEY, max_retries=0)
        with pytest.raises(anthropic.APIStatusError) as raised:
            claude.messages.create(model="claude-test", max_tokens=5,
                                   messages=[{"role": "user", "content": "Hi"}])
        assert raised.value.status_code == 502
        assert raised.value.body["error"]["type"] == "api_error"
    finally:
        proxy.stop()
    assert [r["status"] for r in proxy.rows(2)] == ["connect", "connect"]


def test_past_the_connection_cap_both_sdks_get_a_503_they_read_and_retry(upstream, tmp_path):
    """Issue 21: past --max-connections a new connection is answered 503 at once, in a
    shape both SDKs turn into their own status error; with retries on, they get through
    once a connection is free."""
    import socket

    from conftest import Proxy
    proxy = Proxy(upstream[0], tmp_path / "usage.jsonl", ["--max-connections", "1"])
    host, port = proxy.url[len("http://"):].split(":")
    held = socket.create_connection((host, int(port)))
    held.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
    try:
        time.sleep(0.1)
        client = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=KEY, max_retries=0)
        with pytest.raises(openai.APIStatusError) as raised:
            client.chat.completions.create(model="gpt-test",
                                           messages=[{"role": "user", "content": "Hi"}])
        assert raised.value.status_code == 503
        assert "--max-connections" in str(raised.value)
        claude = anthropic.Anthropic(base_url=proxy.url, api_key=KEY, max_retries=0)
        with pytest.raises(anthropic.APIStatusError) as raised:
            claude.messages.create(model="claude-test", max_tokens=5,
                                   messages=[{"role": "user", "content": "Hi"}])
        assert raised.value.status_code == 503
        assert raised.value.body["error"]["type"] == "overloaded_error"
        # The held connection goes away while the SDK backs off; its retry gets through.
        threading.Timer(0.2, held.close).start()
        patient = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=KEY, max_retries=4)
        answer = patient.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "Hi"}])
        assert answer.choices[0].message.content == "Hello there"
    finally:
        held.close()
        code, _ = proxy.stop()
    assert code == 0
    assert [r["status"] for r in proxy.rows(1)] == ["ok"]
