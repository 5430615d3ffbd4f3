"""The official MCP Python SDK lists and calls every tool of `brief mcp` over stdio."""

import asyncio
import json
import os
import subprocess
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import ROOT, brief_bin

# The fixed order clients cache their prompt with; it is part of the contract.
TOOLS = ["retrieve", "compose", "guard", "session_status", "gate", "purge", "compact_context",
         "subagent", "compress", "digest", "ccr_put",
         "session_run", "resume", "cancel"]
SESSION_TOOLS = TOOLS[3:8]


def server(tmp_path, args=(), env=None):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY",
                          "ANTHROPIC_BASE_URL")}
    env = dict(clean, BRIEF_CCR_PATH=str(tmp_path / "ccr.sqlite"),
               BRIEF_LEDGER=str(tmp_path / "usage.jsonl"), **(env or {}))
    return StdioServerParameters(command=brief_bin(), args=["mcp", *args], env=env,
                                 cwd=str(tmp_path))


def run(coroutine):
    return asyncio.run(coroutine)


async def with_session(tmp_path, body, args=(), env=None):
    async with stdio_client(server(tmp_path, args, env)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)


def put_original(tmp_path, text):
    out = subprocess.run(
        [brief_bin(), "ccr", "put", "--strategy", "tool_output_head_tail", "--source", "pytest"],
        input=text, capture_output=True, text=True, check=True,
        env=dict(os.environ, BRIEF_CCR_PATH=str(tmp_path / "ccr.sqlite")))
    return out.stdout.strip()


def test_the_tool_list_is_complete_fixed_and_schemad(tmp_path):
    async def body(session):
        first = await session.list_tools()
        second = await session.list_tools()
        return first.tools, second.tools

    first, second = run(with_session(tmp_path, body))
    names = [tool.name for tool in first]
    assert names == [t for t in TOOLS if t in names], "tools come in the fixed order"
    assert names[:3] == TOOLS[:3]
    assert [t.model_dump() for t in first] == [t.model_dump() for t in second]
    for tool in first:
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["required"], tool.name
        assert tool.description


def test_retrieve_answers_found_unknown_and_bad_hashes(tmp_path):
    original = "line one\nline two of a long tool output\n"
    digest = put_original(tmp_path, original)

    async def body(session):
        found = await session.call_tool("retrieve", {"hash": digest.upper()})
        unknown = await session.call_tool("retrieve", {"hash": "0" * 24})
        bad = await session.call_tool("retrieve", {"hash": "not-a-hash"})
        missing = await session.call_tool("retrieve", {})
        after = await session.call_tool("retrieve", {"hash": digest})
        return found, unknown, bad, missing, after

    found, unknown, bad, missing, after = run(with_session(tmp_path, body))
    assert not found.is_error
    assert found.structured_content["status"] == "found"
    assert found.structured_content["original"] == original
    assert found.structured_content["strategy"] == "tool_output_head_tail"
    assert unknown.structured_content["status"] == "unknown"
    assert bad.is_error and "not a CCR hash" in bad.content[0].text
    assert missing.is_error and "hash" in missing.content[0].text
    assert after.structured_content["status"] == "found", "the server survived bad calls"


def test_compose_and_guard_call_the_library(tmp_path):
    brief = str(ROOT / "fixtures" / "briefs" / "clinic")

    async def body(session):
        text = await session.call_tool(
            "compose", {"brief": brief, "vars": {"patient": "Ada", "last_visit": "May"}})
        body_ = await session.call_tool(
            "compose", {"brief": brief, "format": "anthropic",
                        "vars": {"patient": "Ada", "last_visit": "May"}})
        missing_var = await session.call_tool("compose", {"brief": brief})
        bad_format = await session.call_tool(
            "compose", {"brief": brief, "format": "yaml", "vars": {}})
        guarded = await session.call_tool(
            "guard", {"original": "Refunds within 30 days at https://a.example/refunds",
                      "proposal": "Refunds within 14 days."})
        return text, body_, missing_var, bad_format, guarded

    text, body_, missing_var, bad_format, guarded = run(with_session(tmp_path, body))
    composed = subprocess.run(
        [brief_bin(), "compose", brief, "--var", "patient=Ada", "--var", "last_visit=May"],
        capture_output=True, text=True, check=True).stdout
    assert text.structured_content["body"] == composed.rstrip("\n")
    assert len(text.structured_content["prefix_hash"]) == 64
    assert body_.structured_content["body"].startswith("{")
    assert missing_var.is_error and "patient" in missing_var.content[0].text
    assert bad_format.is_error and "format" in bad_format.content[0].text
    assert guarded.structured_content["status"] == "flagged"
    dropped = {d["value"] for d in guarded.structured_content["dropped"]}
    assert "https://a.example/refunds" in dropped



def test_a_tools_document_is_what_the_command_prints_with_json(tmp_path):
    """Through the official client: the structured content of `retrieve` and `compose`,
    printed as the command prints JSON, is byte for byte the document `brief ccr get --json`
    and `brief compose --json` print; the text is only its status and summary (the document
    is sent once)."""
    brief = str(ROOT / "fixtures" / "briefs" / "clinic")
    hash_ = put_original(tmp_path, "a build log, whole")

    async def body(session):
        found = await session.call_tool("retrieve", {"hash": hash_})
        composed = await session.call_tool(
            "compose", {"brief": brief, "format": "openai", "tokens": True,
                        "vars": {"patient": "Ada", "last_visit": "May"}})
        return found, composed

    found, composed = run(with_session(tmp_path, body))
    env = dict(os.environ, BRIEF_CCR_PATH=str(tmp_path / "ccr.sqlite"))
    got = subprocess.run([brief_bin(), "ccr", "get", hash_, "--json"],
                         capture_output=True, text=True, check=True, env=env).stdout
    printed = subprocess.run(
        [brief_bin(), "compose", brief, "--format", "openai", "--json",
         "--var", "patient=Ada", "--var", "last_visit=May"],
        capture_output=True, text=True, check=True).stdout
    def pretty(value):
        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"

    assert pretty(found.structured_content) == got
    assert pretty(composed.structured_content) == printed
    for answer in (found, composed):
        document = answer.structured_content
        assert answer.content[0].text == f"{document['status']}: {document['summary']}"
    assert found.structured_content["original"] == "a build log, whole"

def new_session(directory):
    brief = str(ROOT / "fixtures" / "briefs" / "clinic")
    cli = [brief_bin(), "--color", "never", "session"]
    subprocess.run(cli + ["new", str(directory), "--brief", brief, "--var", "patient=Ada",
                          "--var", "last_visit=May", "--context-limit", "200000"], check=True, capture_output=True)
    for text in ("I need a booking on Tuesday.", "Actually make it Wednesday at 10:00."):
        subprocess.run(cli + ["append", str(directory), "--user", text],
                       check=True, capture_output=True)


def test_session_tools_manage_a_real_session(tmp_path, upstream):
    directory = tmp_path / "s1"
    new_session(directory)

    async def body(session):
        s = str(directory)
        status = await session.call_tool("session_status", {"session": s})
        fits = await session.call_tool("gate", {"session": s, "estimate": 10, "kind": "tool"})
        blocked = await session.call_tool("gate", {"session": s, "estimate": 10_000_000})
        bad_kind = await session.call_tool("gate", {"session": s, "estimate": 1, "kind": "x"})
        purged = await session.call_tool(
            "purge", {"session": s, "ids": ["msg_1"], "summary": "Booking moved to Wednesday."})
        bad_id = await session.call_tool("purge", {"session": s, "ids": ["msg_99"]})
        missing = await session.call_tool("session_status", {"session": str(tmp_path / "none")})
        after = await session.call_tool("session_status", {"session": s})
        # The loopback model answers prose, never a CompactedState: refused twice, nothing changed.
        compact = await session.call_tool(
            "compact_context", {"session": s, "resume_instruction": "Book Wednesday 10:00.",
                                "provider": "openai", "model": "m", "base_url": upstream[0] + "/v1"})
        return status, fits, blocked, bad_kind, purged, bad_id, missing, after, compact

    status, fits, blocked, bad_kind, purged, bad_id, missing, after, compact = run(
        with_session(tmp_path, body, args=["--allow-base-url", upstream[0] + "/v1"]))
    assert compact.is_error and "CompactedState" in compact.content[0].text
    assert len(upstream[1]) == 2, "one call and one retry with the violations"
    assert status.structured_content["status"] == "ok"
    assert status.structured_content["tier2_tokens"] > 0
    assert fits.structured_content["status"] == "ok"
    assert fits.structured_content["operation_id"] == "op_1"
    assert blocked.structured_content["status"] == "context_budget_exceeded"
    assert blocked.structured_content["required_action"] == "purge_or_compact"
    assert bad_kind.is_error
    assert purged.structured_content["removed_ids"] == ["msg_1"]
    assert "ccr" in purged.structured_content
    assert bad_id.is_error and "msg_99" in bad_id.content[0].text
    assert missing.is_error
    assert blocked.structured_content["pending_operation_id"] in \
        after.structured_content["pending_operations"]


def test_compact_context_never_sends_the_key_to_a_caller_named_base_url(tmp_path, upstream):
    """Issue 21, defect 1: a tool call naming its own host got the server's key. Now the
    caller's base_url is refused before any request unless the operator allowed it."""
    directory = tmp_path / "s1"
    new_session(directory)
    key = "sk-test-mcp-server-SECRET-33d1"
    named = upstream[0] + "/v1"
    arguments = {"session": str(directory), "resume_instruction": "Go on.",
                 "provider": "openai", "model": "m", "base_url": named}

    async def body(session):
        return await session.call_tool("compact_context", arguments)

    refused = run(with_session(tmp_path, body, env={"OPENAI_API_KEY": key}))
    assert refused.is_error
    assert "refused" in refused.content[0].text
    assert "--allow-base-url" in refused.content[0].text
    assert key not in refused.content[0].text
    assert upstream[1] == [], "no request reached the caller-named host"

    allowed = run(with_session(tmp_path, body, args=["--allow-base-url", named],
                               env={"OPENAI_API_KEY": key}))
    # The stand-in answers prose, not a CompactedState: the call is made, then refused.
    assert allowed.is_error and "CompactedState" in allowed.content[0].text
    assert len(upstream[1]) == 2
    assert all(r["headers"]["authorization"] == f"Bearer {key}" for r in upstream[1])


def test_a_request_over_16_mib_is_answered_with_an_error_and_the_server_stays_up(tmp_path):
    """Issue 21: a message over the 16 MiB limit used to be dropped unanswered (the client
    waited forever); now its id gets a JSON-RPC error and the next call is served."""
    from mcp.shared.exceptions import MCPError

    async def body(session):
        huge = "x" * (17 * 1024 * 1024)
        try:
            await asyncio.wait_for(
                session.call_tool("guard", {"original": huge, "proposal": "x"}), timeout=60)
        except MCPError as err:
            refused = err.error
        else:
            raise AssertionError("an oversized request was answered as if it were whole")
        tools = await session.list_tools()
        return refused, [tool.name for tool in tools.tools]

    refused, names = run(with_session(tmp_path, body))
    assert refused.code == -32600
    assert "16 MiB" in refused.message
    assert names == TOOLS


def test_the_new_tools_match_the_command_line(tmp_path):
    brief = str(ROOT / "fixtures" / "briefs" / "clinic")
    directory = tmp_path / "s2"
    cli = [brief_bin(), "--color", "never", "session"]
    subprocess.run(cli + ["new", str(directory), "--brief", brief, "--context-limit", "200000"],
                   check=True, capture_output=True)
    subprocess.run(cli + ["append", str(directory), "--user", "hello"], check=True,
                   capture_output=True)

    async def body(session):
        composed = await session.call_tool(
            "compose", {"brief": brief, "format": "openai",
                        "vars": {"patient": "Ada", "last_visit": "May"}})
        put = await session.call_tool(
            "ccr_put", {"original": "the whole tool output", "compressed": "its head",
                        "strategy": "tool_output_head_tail"})
        got = await session.call_tool("retrieve", {"hash": put.structured_content["hash"]})
        blocked = await session.call_tool(
            "gate", {"session": "s2", "estimate": 10_000_000, "kind": "subagent"})
        resumed = await session.call_tool("gate", {"session": "s2", "resume": "op_1"})
        missing = await session.call_tool("compose", {"brief": "no-such-brief"})
        return composed, put, got, blocked, resumed, missing

    composed, put, got, blocked, resumed, missing = run(with_session(tmp_path, body))
    cli_body = subprocess.run(
        [brief_bin(), "compose", brief, "--format", "openai", "--var", "patient=Ada",
         "--var", "last_visit=May"], capture_output=True, text=True, check=True).stdout
    assert composed.structured_content["body"] == cli_body.rstrip("\n"), "the bytes sent"
    assert put.structured_content["status"] == "stored"
    assert got.structured_content["original"] == "the whole tool output"
    assert blocked.structured_content["status"] == "context_budget_exceeded"
    assert resumed.structured_content["pending_operation_id"] == "op_1"
    # Relative paths are resolved against the directory the server started in.
    assert missing.is_error and str(tmp_path / "no-such-brief") in missing.content[0].text
