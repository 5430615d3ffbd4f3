"""The wires agents speak besides Chat Completions, from their official clients through
`brief proxy`: the OpenAI SDK's `responses.create` (streamed and not) and Gemini's REST API
(`generateContent`, `streamGenerateContent` as SSE), each metered with its cached tokens,
its key kept at its origin."""

import json

import httpx2 as httpx
import openai

from conftest import GEMINI_USAGE, RESPONSES_USAGE, brief_bin

KEY = "sk-test-python-responses-SECRET-0123456789"
GEMINI_KEY = "AIzaSyPythonTestSECRETabcdefghijklmnop"


def test_openai_sdk_responses_through_the_proxy_streaming_and_not(proxy, upstream):
    _, received = upstream
    sent = []
    client = openai.OpenAI(
        base_url=f"{proxy.url}/v1", api_key=KEY, max_retries=0,
        http_client=httpx.Client(event_hooks={"request": [lambda r: sent.append(r)]}))
    answer = client.responses.create(model="gpt-5-test", instructions="Be brief.",
                                      input="Hi", prompt_cache_key="conv-7")
    assert answer.output_text == "Hello there"
    assert answer.usage.input_tokens_details.cached_tokens == 1920
    with client.responses.stream(model="gpt-5-test", instructions="Be brief.", input="Hi",
                                 prompt_cache_key="conv-7") as stream:
        text = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
        final = stream.get_final_response()
    assert text == "Hello there"
    assert final.usage.output_tokens_details.reasoning_tokens == 2

    assert len(received) == 2
    for request, got in zip(sent, received):
        assert got["body"] == request.read(), "the body reached the upstream byte for byte"
        assert got["path"] == "/v1/responses"

    code, stderr = proxy.stop()
    assert code == 0
    rows = proxy.rows()
    assert len(rows) == 2
    for row in rows:
        assert row["provider"] == "responses"
        assert row["status"] == "ok"
        assert row["input_tokens"] == RESPONSES_USAGE["input_tokens"]
        assert row["cached_input_tokens"] == 1920
        assert row["reasoning_tokens"] == 2
        assert row["session"] == "conv-7"
    assert rows[1]["drifted_parts"] == []
    assert KEY not in proxy.ledger.read_text() and KEY not in stderr

    import subprocess
    usage = json.loads(subprocess.run(
        [brief_bin(), "usage", "--json", "--by", "model", "--ledger", str(proxy.ledger)],
        capture_output=True, text=True, check=True).stdout)
    assert usage["total"]["cached_input_tokens"] == 2 * 1920
    assert usage["groups"][0]["key"] == "responses/gpt-5-test"


def test_gemini_rest_calls_through_the_proxy_are_metered_and_the_key_stays(proxy, upstream):
    _, received = upstream
    body = {"systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
    with httpx.Client(base_url=proxy.url, timeout=20) as client:
        whole = client.post("/v1beta/models/gemini-test:generateContent", json=body,
                            headers={"x-goog-api-key": GEMINI_KEY})
        assert whole.status_code == 200
        assert whole.json()["usageMetadata"] == GEMINI_USAGE
        text = ""
        with client.stream("POST", "/v1beta/models/gemini-test:streamGenerateContent",
                           params={"alt": "sse", "key": GEMINI_KEY}, json=body) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    chunk = json.loads(line[len("data: "):])
                    text += chunk["candidates"][0]["content"]["parts"][0]["text"]
        assert text == "Hello there"
    assert [r["path"].split("?")[0] for r in received] == [
        "/v1beta/models/gemini-test:generateContent",
        "/v1beta/models/gemini-test:streamGenerateContent"]
    assert received[0]["headers"]["x-goog-api-key"] == GEMINI_KEY

    code, stderr = proxy.stop()
    assert code == 0
    rows = proxy.rows()
    assert len(rows) == 2
    for row in rows:
        assert row["provider"] == "gemini"
        assert row["model"] == "gemini-test"
        assert row["status"] == "ok"
        assert row["input_tokens"] == 2048
        assert row["cached_input_tokens"] == 1920
        assert row["output_tokens"] == 5
    ledger = proxy.ledger.read_text()
    assert GEMINI_KEY not in ledger and GEMINI_KEY not in stderr
