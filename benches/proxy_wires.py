"""What `brief proxy` adds to a model call on each wire it meters (OpenAI Chat Completions,
OpenAI Responses, Anthropic Messages, Gemini generateContent), streamed and not, with the
calls back to back and paced as agents pace them (an idle gap before every call), beside a
minimal byte relay (crates/briefkit-proxy/examples/byte_relay.rs: the floor any relay in
front of the same upstream costs) and LiteLLM's proxy, all in one run.

Usage (BENCHMARKS.md, "Proxy: per wire, paced"):
    cargo build --release --bin brief
    cargo build --release -p briefkit-proxy --example byte_relay
    python benches/proxy_wires.py --brief target/release/brief \
        --relay target/release/examples/byte_relay [--litellm VENV/bin/litellm] \
        [--paces 0,2,50] [-n 400] [--json]

The upstream (two Python processes on one loopback socket) answers each wire in its own
shape with a fixed agent-sized answer; a streamed answer sends its first event at once and
the rest 2 ms later, so the time to the first byte shows a relay that held bytes back.
Every path gets the same agent-shaped request (8 tools, a long system prompt, 13 turns)
in that wire's form. Method as in tests/python/bench_proxy.py: one keep-alive connection
per path; direct, brief and the byte relay called in turn (direct, brief, relay, direct,
...) so the machine's other load falls on all alike; "added" is a path's figure minus the
direct calls'. LiteLLM runs alone afterwards, interleaved with direct calls the same way
(its background work would otherwise fall on brief's calls). Nothing leaves 127.0.0.1.
"""

import argparse
import json
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
import bench_proxy as bp  # noqa: E402  (the client, percentiles, process helpers)

GAP = 0.002
SYSTEM = "You are the clinic's scheduling assistant. Keep answers short. " * 120
TOOL_TEXT = "Reads one record of the appointment book. " * 6
TURNS = [(f"Question {t} about the week. " * 10, f"Answer {t}. " * 20) for t in range(6)]
LAST = "And the next free slot?"
SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}}


def sse(obj, event=None):
    head = f"event: {event}\n".encode() if event else b""
    return head + b"data: " + json.dumps(obj).encode() + b"\n\n"


# ---------------------------------------------------------------- the wires

def chat_body(stream):
    return json.loads(bp.request_body(stream))


def responses_body(stream):
    items = []
    for q, a in TURNS:
        items += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
    items.append({"role": "user", "content": LAST})
    body = {"model": "bench-model", "instructions": SYSTEM, "input": items,
            "tools": [{"type": "function", "name": f"tool_{i}", "description": TOOL_TEXT,
                       "parameters": SCHEMA} for i in range(8)]}
    if stream:
        body["stream"] = True
    return body


def anthropic_body(stream):
    messages = []
    for q, a in TURNS:
        messages += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
    messages.append({"role": "user", "content": LAST})
    body = {"model": "claude-bench", "max_tokens": 1024, "system": SYSTEM, "messages": messages,
            "tools": [{"name": f"tool_{i}", "description": TOOL_TEXT, "input_schema": SCHEMA}
                      for i in range(8)]}
    if stream:
        body["stream"] = True
    return body


def gemini_body(_stream):
    contents = []
    for q, a in TURNS:
        contents += [{"role": "user", "parts": [{"text": q}]},
                     {"role": "model", "parts": [{"text": a}]}]
    contents.append({"role": "user", "parts": [{"text": LAST}]})
    return {"systemInstruction": {"parts": [{"text": SYSTEM}]}, "contents": contents,
            "tools": [{"functionDeclarations": [
                {"name": f"tool_{i}", "description": TOOL_TEXT, "parameters": SCHEMA}
                for i in range(8)]}]}


RESPONSES_USAGE = {"input_tokens": 4096, "input_tokens_details": {"cached_tokens": 3968},
                   "output_tokens": 2, "output_tokens_details": {"reasoning_tokens": 0},
                   "total_tokens": 4098}
RESPONSE = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
            "model": "bench-model", "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": [], "output": [
                {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                 "content": [{"type": "output_text", "text": "ok", "annotations": []}]}],
            "usage": RESPONSES_USAGE}
ANTHROPIC_USAGE = {"input_tokens": 128, "cache_read_input_tokens": 3968,
                   "cache_creation_input_tokens": 0, "output_tokens": 2}
GEMINI_USAGE = {"promptTokenCount": 4096, "cachedContentTokenCount": 3968,
                "candidatesTokenCount": 2, "totalTokenCount": 4098}
GEMINI_CHUNK = {"candidates": [{"content": {"role": "model", "parts": [{"text": "o"}]}}],
                "modelVersion": "gemini-bench"}
GEMINI_LAST = {"candidates": [{"content": {"role": "model", "parts": [{"text": "k"}]},
                               "finishReason": "STOP"}],
               "usageMetadata": GEMINI_USAGE, "modelVersion": "gemini-bench"}

# wire: (path, streamed path, body maker, answer, (first event, rest of the stream))
WIRES = {
    "chat": ("/v1/chat/completions", "/v1/chat/completions", chat_body, bp.ANSWER,
             (bp.STREAM_FIRST, bp.STREAM_REST)),
    "responses": (
        "/v1/responses", "/v1/responses", responses_body,
        json.dumps(RESPONSE).encode(),
        (sse({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress",
                                                       "model": "bench-model"}},
             "response.created"),
         sse({"type": "response.output_text.delta", "item_id": "m", "output_index": 0,
              "delta": "ok"}, "response.output_text.delta")
         + sse({"type": "response.completed", "response": RESPONSE}, "response.completed"))),
    "anthropic": (
        "/v1/messages", "/v1/messages", anthropic_body,
        json.dumps({"id": "msg_1", "type": "message", "role": "assistant",
                    "model": "claude-bench", "content": [{"type": "text", "text": "ok"}],
                    "stop_reason": "end_turn", "usage": ANTHROPIC_USAGE}).encode(),
        (sse({"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-bench",
            "content": [], "usage": dict(ANTHROPIC_USAGE, output_tokens=1)}}, "message_start"),
         sse({"type": "content_block_start", "index": 0,
              "content_block": {"type": "text", "text": ""}}, "content_block_start")
         + sse({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "ok"}}, "content_block_delta")
         + sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
         + sse({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 2}}, "message_delta")
         + sse({"type": "message_stop"}, "message_stop"))),
    "gemini": (
        "/v1beta/models/gemini-bench:generateContent",
        "/v1beta/models/gemini-bench:streamGenerateContent?alt=sse", gemini_body,
        json.dumps(dict(GEMINI_LAST, candidates=[
            {"content": {"role": "model", "parts": [{"text": "ok"}]},
             "finishReason": "STOP"}])).encode(),
        (b"data: " + json.dumps(GEMINI_CHUNK).encode() + b"\r\n\r\n",
         b"data: " + json.dumps(GEMINI_LAST).encode() + b"\r\n\r\n")),
}


def wire_of(path):
    if path.startswith(b"/v1/responses"):
        return "responses"
    if path.startswith(b"/v1/messages"):
        return "anthropic"
    if b":generateContent" in path or b":streamGenerateContent" in path:
        return "gemini"
    return "chat"


def streamed(path, body):
    return (b":streamGenerateContent" in path or b'"stream": true' in body
            or b'"stream":true' in body)


def answer_request(conn, path, body):
    _, _, _, whole, (first, rest) = WIRES[wire_of(path)]
    bp.send_answer(conn, streamed(path, body), whole, first, rest, GAP)


def serve(conn):
    bp.serve_requests(conn, answer_request)


def start_upstream(processes=2):
    return bp.start_upstream(processes, serve)


# ---------------------------------------------------------------- the paths

def first_line_port(process):
    return int(process.stdout.readline().strip().rsplit(":", 1)[1])


def start_brief(binary, upstream, work):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")}
    base = f"http://127.0.0.1:{upstream}"
    process = subprocess.Popen(
        [binary, "proxy", "--listen", "127.0.0.1:0", "--ledger",
         os.path.join(work, "usage.jsonl"), "--openai-upstream", base + "/v1",
         "--anthropic-upstream", base, "--gemini-upstream", base],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    return process, first_line_port(process)


def start_relay(binary, upstream):
    process = subprocess.Popen([binary, f"127.0.0.1:{upstream}"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    return process, first_line_port(process)


def start_litellm(binary, upstream, work):
    port = bp.free_port()
    config = os.path.join(work, "litellm.yaml")
    base = f"http://127.0.0.1:{upstream}"
    with open(config, "w") as f:
        f.write("model_list:\n"
                "  - model_name: bench-model\n    litellm_params:\n"
                f"      model: openai/bench-model\n      api_base: {base}/v1\n"
                "      api_key: sk-bench-0123456789\n"
                "  - model_name: claude-bench\n    litellm_params:\n"
                f"      model: anthropic/claude-bench\n      api_base: {base}\n"
                "      api_key: sk-bench-0123456789\n"
                "litellm_settings:\n  telemetry: false\n")
    env = dict(os.environ, LITELLM_LOG="ERROR", LITELLM_TELEMETRY="False",
               LITELLM_MASTER_KEY="sk-bench-0123456789")
    for var in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        env.pop(var, None)
    log = open(os.path.join(work, f"litellm-{port}.log"), "w")
    process = subprocess.Popen([binary, "--config", config, "--host", "127.0.0.1",
                                "--port", str(port), "--num_workers", "1"],
                               stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        bp.wait_for(port, "/health/liveliness", timeout=240)
    except RuntimeError:
        process.kill()
        raise
    return process, port


# ---------------------------------------------------------------- the measurement

def latency(ports, path, body, n, pace):
    """Per path name: P50/P99 ms of the whole answer and of its first body byte; the paths
    called in turn, each call after an idle gap of `pace` seconds (none when 0)."""
    conns = {name: bp.Conn(port, path) for name, port in ports.items()}
    for conn in conns.values():
        for _ in range(30):
            conn.call(body)
    samples = {name: ([], []) for name in conns}
    names = list(conns)
    for i in range(n):
        for name in names[i % len(names):] + names[:i % len(names)]:
            if pace:
                time.sleep(pace * random.uniform(0.9, 1.1))
            total, first = conns[name].call(body)
            samples[name][0].append(total)
            samples[name][1].append(first)
    for conn in conns.values():
        if conn.sock:
            conn.sock.close()
    return {name: {"p50": bp.pct(t, .5), "p99": bp.pct(t, .99), "first_p50": bp.pct(f, .5),
                   "first_p99": bp.pct(f, .99)} for name, (t, f) in samples.items()}


def added(row, direct):
    return {k: row[k] - direct[k] for k in ("p50", "p99", "first_p50", "first_p99")}


def run_cases(ports, wires, paces, n, results, label_of, notes=None):
    for pace in paces:
        for wire in wires:
            path, stream_path, make, _, _ = WIRES[wire]
            for stream in (False, True):
                body = json.dumps(make(stream)).encode()
                try:
                    got = latency(ports, stream_path if stream else path, body,
                                  n if pace < 0.02 else max(n // 2, 100), pace)
                except (RuntimeError, OSError) as err:
                    if notes is None:
                        raise
                    notes.append(f"{'/'.join(ports)} {wire} stream={stream}: {str(err)[:300]}")
                    continue
                for name, row in got.items():
                    if name == "direct":
                        continue
                    key = (label_of(name), pace, wire, stream)
                    results[key] = {"path": row, "direct": got["direct"],
                                    "added": added(row, got["direct"])}
                print(f"pace {pace * 1000:.0f} ms {wire} stream={stream}: "
                      + ", ".join(f"{k} {v['p50']:.3f}/{v['p99']:.3f}" for k, v in got.items()),
                      file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brief", default="target/release/brief")
    parser.add_argument("--relay", default="target/release/examples/byte_relay")
    parser.add_argument("--litellm", default="target/litellm-venv/bin/litellm")
    parser.add_argument("--paces", default="0,2,50", help="idle gaps before each call, ms")
    parser.add_argument("--wires", default="chat,responses,anthropic,gemini")
    parser.add_argument("--litellm-wires", default="chat,responses,anthropic")
    parser.add_argument("-n", type=int, default=400, help="calls per path and case")
    parser.add_argument("--litellm-n", type=int, default=150)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    paces = [float(p) / 1000 for p in args.paces.split(",")]
    wires = args.wires.split(",")
    work = tempfile.mkdtemp(prefix="brief-bench-wires-")
    upstream, children = start_upstream()
    results, notes = {}, []
    load = os.getloadavg()
    try:
        brief, brief_port = start_brief(args.brief, upstream, work)
        ports = {"direct": upstream, "brief": brief_port}
        relay = None
        if os.path.exists(args.relay):
            relay, ports["relay"] = start_relay(args.relay, upstream)
        else:
            notes.append(f"byte relay not found at {args.relay}")
        try:
            run_cases(ports, wires, paces, args.n, results, lambda name: name)
        finally:
            bp.stop(brief)
            if relay:
                relay.kill()
                relay.wait()
        if os.path.exists(args.litellm):
            try:
                litellm, litellm_port = start_litellm(args.litellm, upstream, work)
            except RuntimeError as err:
                notes.append(f"LiteLLM did not start: {err}")
            else:
                try:
                    run_cases({"direct": upstream, "litellm": litellm_port},
                              args.litellm_wires.split(","), paces, args.litellm_n, results,
                              lambda name: name, notes)
                finally:
                    bp.stop(litellm)
        else:
            notes.append(f"LiteLLM not found at {args.litellm}")
    finally:
        for pid in children:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        "load_before": [round(v, 1) for v in load],
        "load_after": [round(v, 1) for v in os.getloadavg()],
        "brief": bp.version(args.brief, "--version"),
        "litellm": (bp.version(args.litellm, "--version") if os.path.exists(args.litellm)
                    else None),
        "n": args.n, "litellm_n": args.litellm_n, "notes": notes,
    }
    if args.json:
        print(json.dumps({"meta": meta, "results": [
            {"path": k[0], "pace_ms": k[1] * 1000, "wire": k[2], "stream": k[3], **v}
            for k, v in results.items()]}, indent=2))
        return
    print(f"{meta['date']}; {meta['machine']}; load {meta['load_before']} before, "
          f"{meta['load_after']} after; {meta['brief']}; LiteLLM {meta['litellm']}")
    for note in notes:
        print(f"note: {note}")
    print()
    print("| pace | wire | call | added by brief P50 / P99 ms | first byte P50 / P99 ms "
          "| byte relay P50 / P99 ms | LiteLLM P50 / P99 ms | direct P50 / P99 ms |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for pace in paces:
        for wire in wires:
            for stream in (False, True):
                b = results.get(("brief", pace, wire, stream))
                if not b:
                    continue
                r = results.get(("relay", pace, wire, stream))
                lite = results.get(("litellm", pace, wire, stream))
                def fmt(a, first=False):
                    k = "first_" if first else ""
                    return f"{a[k + 'p50']:+.3f} / {a[k + 'p99']:+.3f}"
                print(f"| {'back to back' if not pace else f'{pace * 1000:.0f} ms'} | {wire} "
                      f"| {'streamed' if stream else 'whole'} | {fmt(b['added'])} "
                      f"| {fmt(b['added'], True)} "
                      f"| {fmt(r['added']) if r else '—'} "
                      f"| {fmt(lite['added']) if lite else '—'} "
                      f"| {b['direct']['p50']:.3f} / {b['direct']['p99']:.3f} |")


if __name__ == "__main__":
    sys.exit(main())
