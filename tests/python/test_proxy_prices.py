"""One price for one ledger (issue 33), with the official SDKs: a proxy given `--price-*`
records them in every row, so `brief usage --json`, its HTML report and the proxy's
`/stats` show one cost; and an Anthropic `system` sent as a string, then as its one text
block, is one prefix, not drift."""

import json
import re
import subprocess
import urllib.request

import anthropic
import openai

from conftest import Proxy, brief_bin

KEY = "sk-test-python-prices-0123456789abcdef"
SYSTEM = "You book visits for a small clinic. Keep answers short."
PRICES = ["--price-input", "2.5", "--price-cached", "0.25", "--price-output", "10"]


def test_usage_stats_and_the_html_report_show_the_prices_the_proxy_was_given(upstream, tmp_path):
    proxy = Proxy(upstream[0], tmp_path / "usage.jsonl", extra=PRICES)
    try:
        # Models the built-in list prices differently from the flags.
        chat = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=KEY, max_retries=0)
        chat.chat.completions.create(
            model="gpt-4.1-mini",
            messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hi"}])
        chat.responses.create(model="gpt-5", instructions=SYSTEM, input="Hi")
        claude = anthropic.Anthropic(base_url=proxy.url, api_key=KEY, max_retries=0,
                                     default_headers={"X-Brief-Session": "desk"})
        claude.messages.create(model="claude-sonnet-4-5", max_tokens=16, system=SYSTEM,
                               messages=[{"role": "user", "content": "Hi"}])
        claude.messages.create(
            model="claude-sonnet-4-5", max_tokens=16,
            system=[{"type": "text", "text": SYSTEM}],
            messages=[{"role": "user", "content": "Hi"},
                      {"role": "assistant", "content": "Hello there"},
                      {"role": "user", "content": "Tuesday?"}])
        rows = proxy.rows(4)
        stats = json.load(urllib.request.urlopen(f"{proxy.url}/stats"))
    finally:
        code, _ = proxy.stop()
    assert code == 0
    assert len(rows) == 4
    for row in rows:
        assert row["status"] == "ok"
        assert (row["price_input_per_mtok"], row["price_cached_per_mtok"],
                row["price_output_per_mtok"]) == (2.5, 0.25, 10.0)
    # The system string and its one text block: one prefix, no drift.
    desk = [r for r in rows if r["session"] == "desk"]
    assert len(desk) == 2
    assert desk[0]["prefix_hash"] == desk[1]["prefix_hash"]
    assert desk[1]["drifted_parts"] == []

    page = tmp_path / "report.html"
    usage = subprocess.run(
        [brief_bin(), "usage", "--json", "--ledger", str(proxy.ledger), "--html", str(page)],
        capture_output=True, text=True, check=True)
    total = json.loads(usage.stdout)["total"]
    assert total["priced_calls"] == 4
    assert total["cost"] == stats["totals"]["cost"]
    assert total["savings"] == stats["totals"]["savings"]
    by_hand = 0.0
    for row in rows:
        cached = row["cached_input_tokens"] or 0
        written = row["cache_write_tokens"] or 0
        # Anthropic's cache writes at its known 1.25x of the input price.
        by_hand += ((row["input_tokens"] - cached - written) * 2.5 + cached * 0.25
                    + written * 2.5 * 1.25 + row["output_tokens"] * 10.0) / 1e6
    assert abs(total["cost"] - by_hand) < 1e-6
    shown = re.search(r'id="card-cost-value">([^<]*)<', page.read_text()).group(1)
    assert shown == f"{total['cost']:.4f}"
