#!/usr/bin/env python3
"""briefkit against its alternatives, side by side in one run (issue 16's benchmark suite).

Run it through `scripts/bench.sh` (builds the release binary, makes the venv under
target/bench-venv from benches/requirements.txt, then runs this file). Sections:

  tokens   `brief stats` against Python tiktoken on the same item bodies (counts must match)
  count    `brief count` against Python tiktoken on one text in which no line repeats
  align    `brief align` against headroom's CacheAligner on the same JSON-lines bodies
  guard    `brief guard` against `grep` (finding the facts in both texts: the floor)
  scale    compose, check, lock and stats of one brief of 1k, 10k and 100k items, and `cat`
           of the same files as the baseline
  session  append, render, status and gate on 1k, 10k and 100k-entry sessions (--entries)
  binary   release binary size, the vocabularies' share, cold start of `brief compose`

Every process is timed whole (start-up included) from fork to exit; peak RSS is the
maximum resident set size of that one process (`/usr/bin/time -f %M`). Commands compared with each other run
interleaved (A, B, A, B, ...) so that load from other users of a shared machine hits both
sides alike: read the ratios, not the absolute times. Prints Markdown to stdout.
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BRIEF_BIN", os.path.join(ROOT, "target", "release", "brief"))
# BRIEF_BENCH_WORK: where the generated data goes (default target/bench).
WORK = os.environ.get("BRIEF_BENCH_WORK", os.path.join(ROOT, "target", "bench"))
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_data  # noqa: E402  (generators, next to this file)


# ---------------------------------------------------------------- measuring


class Run:
    def __init__(self, seconds, cpu, rss_kb, code, stdout):
        self.seconds, self.cpu, self.rss_kb = seconds, cpu, rss_kb
        self.code, self.stdout = code, stdout


def run(cmd, cwd=None, env=None, stdin=None, capture=False, shell=False):
    """Runs one process: wall time from fork to exit, CPU time (user + system, from wait4)
    and peak RSS. The RSS comes from /usr/bin/time: a forked child's own ru_maxrss starts at
    the size of this interpreter, which would hide a small process's figure."""
    rss_file = os.path.join(WORK, ".rss")
    out_file = os.path.join(WORK, ".stdout")
    err_file = os.path.join(WORK, ".stderr")
    if shell:
        cmd = ["sh", "-c", cmd]
    with open(stdin or os.devnull, "rb") as i, open(out_file if capture else os.devnull,
                                                     "wb") as o, open(err_file, "wb") as e:
        start = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file, *cmd], cwd=cwd,
                                env=env, stdin=i, stdout=o, stderr=e)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        with open(err_file, "rb") as f:
            err = f.read().decode(errors="replace")
        sys.exit(f"failed ({proc.returncode}): {cmd}\n{err[-2000:]}")
    with open(rss_file) as f:
        rss_kb = int(f.read().split()[-1])
    data = b""
    if capture:
        with open(out_file, "rb") as f:
            data = f.read()
    return Run(seconds, usage.ru_utime + usage.ru_stime, rss_kb, proc.returncode, data)


def interleaved(commands, runs):
    """{name: [Run]} with the commands' runs interleaved."""
    results = {name: [] for name in commands}
    for _ in range(runs):
        for name, spec in commands.items():
            results[name].append(run(**spec))
    return results


def best(runs):
    return min(r.seconds for r in runs)


def median(runs):
    xs = sorted(r.seconds for r in runs)
    return xs[len(xs) // 2]


def cpu(runs):
    return min(r.cpu for r in runs)


def peak(runs):
    return max(r.rss_kb for r in runs) / 1024


def ms(seconds):
    return f"{seconds * 1000:,.0f} ms" if seconds >= 0.1 else f"{seconds * 1000:.1f} ms"


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join("---" if i == 0 else "---:" for i in range(len(header))) + " |")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    print()


def brief(*args, **kw):
    return dict(cmd=[BIN, *args], **kw)


# ---------------------------------------------------------------- sections


def cells(runs):
    """Best wall, best CPU (user + system), peak RSS."""
    return [ms(best(runs)), ms(cpu(runs)), f"{peak(runs):.0f} MB"]


def section_tokens(args):
    corpus = bench_data.corpus_texts(args.corpus)
    source = (f"the corpus ({len(corpus)} files) ×{args.copies}" if corpus
              else f"generated English text ×{args.copies} (no corpus at {args.corpus})")
    corpus = corpus or bench_data.generated_texts()
    print(f"## tokens: `brief stats` against Python tiktoken\n\nText: {source}, one item per "
          "file, in one brief; tiktoken counts the same item bodies with `encode_ordinary` "
          "in a fresh interpreter (import, vocabulary load, reading the files and counting, "
          "all included); `brief stats` also compacts every item, proves each compaction "
          "and builds the prefix. The token totals must be equal or the run stops.\n")
    rows, size = [], 0
    for encoding in ("o200k_base", "cl100k_base"):
        d = os.path.join(WORK, f"tokens-{encoding}")
        size = bench_data.corpus_brief(d, corpus, args.copies, encoding)
        py = [sys.executable, os.path.join(HERE, "tiktoken_count.py"), encoding,
              os.path.join(d, "items")]
        results = interleaved({
            "brief": brief("stats", d, "--json", capture=True),
            "tiktoken": dict(cmd=py, capture=True),
        }, args.runs)
        stats = json.loads(results["brief"][0].stdout)
        ours = sum(item["tokens"] for item in stats["items"])
        theirs = json.loads(results["tiktoken"][0].stdout)
        if ours != theirs["tokens"]:
            sys.exit(f"token counts differ ({encoding}): brief {ours}, tiktoken {theirs['tokens']}")
        b, t = best(results["brief"]), best(results["tiktoken"])
        count = min(json.loads(r.stdout)["count_seconds"] for r in results["tiktoken"])
        rows.append([f"`brief stats` ({encoding})", f"{ours:,}", *cells(results["brief"]),
                     f"{size / 1e6 / b:.1f}", f"**{t / b:.2f}**"])
        rows.append([f"Python tiktoken ({encoding})", f"{theirs['tokens']:,}",
                     *cells(results["tiktoken"]), f"{size / 1e6 / t:.1f}",
                     f"(its `encode_ordinary` alone: {ms(count)}, "
                     f"{size / 1e6 / count:.1f} MB/s)"])
    print(f"{size / 1e6:.1f} MB of item bodies; best of {args.runs}; counts equal.\n")
    table(["process", "tokens", "wall", "CPU", "peak RSS", "MB/s (wall)",
           "tiktoken wall ÷ brief wall"], rows)


def section_count(args):
    corpus = bench_data.corpus_texts(args.corpus)
    path = os.path.join(WORK, f"count-{args.count_mb}mb.txt")
    size = bench_data.unique_text(path, corpus or bench_data.generated_texts(),
                                  args.count_mb * 1_000_000)
    source = "the corpus's words" if corpus else "generated words"
    print(f"## count: `brief count` against Python tiktoken\n\nText: one file of "
          f"{size / 1e6:.1f} MB in which no line repeats (numbered sentences of {source} "
          "drawn at random). tiktoken counts it with `encode_ordinary` in a fresh interpreter "
          "(import, vocabulary load, reading the file and counting, all included); its "
          "`encode_ordinary` alone is timed inside that process, the bare tokenizer. The "
          "token totals must be equal or the run stops.\n")
    rows = []
    for encoding in ("o200k_base", "cl100k_base"):
        py = [sys.executable, os.path.join(HERE, "tiktoken_count_file.py"), encoding, path]
        results = interleaved({
            "brief": brief("count", "--json", "--tokenizer", encoding, path, capture=True),
            "tiktoken": dict(cmd=py, capture=True),
        }, args.runs)
        ours = json.loads(results["brief"][0].stdout)["tokens"]
        theirs = json.loads(results["tiktoken"][0].stdout)
        if ours != theirs["tokens"]:
            sys.exit(f"token counts differ ({encoding}): brief {ours}, tiktoken {theirs['tokens']}")
        b, t = best(results["brief"]), best(results["tiktoken"])
        bare = min(json.loads(r.stdout)["count_seconds"] for r in results["tiktoken"])
        rows.append([f"`brief count` ({encoding})", f"{ours:,}", *cells(results["brief"]),
                     f"{size / 1e6 / b:.1f}", f"**{t / b:.2f}**", f"**{bare / b:.2f}**"])
        rows.append([f"Python tiktoken ({encoding})", f"{theirs['tokens']:,}",
                     *cells(results["tiktoken"]), f"{size / 1e6 / t:.1f}", "1.00",
                     f"(`encode_ordinary` alone: {ms(bare)}, {size / 1e6 / bare:.1f} MB/s)"])
    print(f"Best of {args.runs}; counts equal.\n")
    table(["process", "tokens", "wall", "CPU", "peak RSS", "MB/s (wall)",
           "tiktoken wall ÷ brief wall", "tiktoken `encode_ordinary` alone ÷ brief wall"], rows)


def section_align(args):
    path = os.path.join(WORK, f"align-{args.bodies}.jsonl")
    size = bench_data.align_bodies(path, args.bodies)
    print(f"## align: `brief align` against headroom's CacheAligner\n\n{args.bodies:,} OpenAI "
          f"chat bodies in one JSON-lines file ({size / 1e6:.0f} MB: the same tools and "
          "system in every body, but an edited system prompt every 1,000th; a conversation "
          "of its own in each). headroom-ai's `CacheAligner.apply` is called per body in one "
          "process reading the same file line by line (it looks at the system prompt only). "
          "`brief` writes its full JSON report to /dev/null.\n")
    head = os.path.join(HERE, "headroom_align.py")
    commands = {
        "brief --wakes": brief("align", "--wakes", "--json", path),
        "brief": brief("align", "--json", path),
    }
    headroom = bench_data.headroom_available()
    if headroom is True:
        commands["headroom"] = dict(cmd=[sys.executable, head, path])
    results = interleaved(commands, args.align_runs)
    rows = []
    base = best(results["headroom"]) if "headroom" in results else None
    for name, label in (("brief --wakes", "`brief align --wakes --json` (stable prefix)"),
                        ("brief", "`brief align --json` (prefix and conversation)"),
                        ("headroom", "headroom `CacheAligner`")):
        if name not in results:
            continue
        t = best(results[name])
        ratio = f"{base / t:.2f}" if base else "-"
        rows.append([label, *cells(results[name]), f"{size / 1e6 / t:.0f}", ratio])
    table(["process", "wall", "CPU", "peak RSS", "MB/s (wall)", "headroom wall ÷ this wall"],
          rows)
    if headroom is not True:
        print(f"headroom-ai is not installed here, so its side was not measured: {headroom}\n")


def section_guard(args):
    corpus = bench_data.corpus_texts(args.corpus) or bench_data.generated_texts()
    print("## guard: `brief guard` against `grep`\n\nOriginal: the corpus joined into one "
          "text, ×1 and ×10; proposal: the same with every fourth paragraph removed. The "
          "floor is one `grep -oE` pass over both files for numbers, prices, versions, URLs "
          "and code spans: finding candidate facts, comparing nothing.\n")
    rows = []
    for copies in (1, 10):
        original, proposal = bench_data.guard_pair(os.path.join(WORK, f"guard-{copies}"),
                                                   corpus, copies)
        size = os.path.getsize(original) + os.path.getsize(proposal)
        pattern = r"[$€£]?[0-9][0-9.,:/%-]*|https?://[^ )>\"]+|`[^`]+`"
        results = interleaved({
            "brief": brief("guard", original, proposal),
            # Into a file: GNU grep stops at the first match when its output is /dev/null.
            "grep": dict(cmd=["sh", "-c", f"grep -oE '{pattern}' \"$0\" \"$1\" > \"$2\"",
                              original, proposal, os.path.join(WORK, ".grep-out")]),
        }, args.runs)
        b, g = best(results["brief"]), best(results["grep"])
        rows.append([f"×{copies} ({size / 1e6:.2f} MB)", *cells(results["brief"]),
                     f"{size / 1e6 / b:.1f}", *cells(results["grep"])[:2],
                     f"{size / 1e6 / g:.1f}", f"{b / g:.1f}"])
    table(["both texts", "guard wall", "guard CPU", "guard RSS", "guard MB/s", "grep wall",
           "grep CPU", "grep MB/s", "guard ÷ grep"], rows)


def section_scale(args):
    print("## scale: one brief of 1k, 10k and 100k items\n\nItems of ~850 bytes of "
          "generated English, every fifth a rule (so `brief.lock` holds a fifth of the "
          "text); `cat` reads the same files (`find items -type f -exec cat {} +`). "
          "`check` runs on the lock that `lock` wrote, and must pass. `compose` compacts "
          "every item and proves each compaction; `--no-compact` is loading and composing "
          "alone. `import` splits one Markdown file of the same bodies, each under its own "
          "`##` heading, into a new brief (writing every item file, then loading and "
          "composing it to prove nothing was lost).\n")
    rows, per_item = [], {}
    for n in args.scale:
        d = os.path.join(WORK, f"scale-{n}")
        size = bench_data.scale_brief(d, n)
        runs = max(1, args.runs if n <= 10_000 else args.runs // 3)
        source = bench_data.scale_prompt(d, os.path.join(WORK, f"scale-{n}.md"))
        imports = os.path.join(WORK, f"imports-{n}")
        shutil.rmtree(imports, ignore_errors=True)
        os.makedirs(imports)
        run([BIN, "-q", "lock", d])
        if run([BIN, "check", d]).code != 0:
            sys.exit(f"check refused what lock wrote for {n} items")
        results = interleaved({
            "cat": dict(cmd="find items -type f -exec cat {} + > /dev/null", cwd=d, shell=True),
            "compose": brief("compose", d),
            "compose --no-compact": brief("compose", "--no-compact", d),
            "check": brief("check", d),
            "stats": brief("stats", d),
            "lock": brief("-q", "lock", d),
            # A fresh directory per run (exec: the shell's own start-up is not timed twice);
            # removed after the series.
            "import": dict(cmd=f"o=$(mktemp -d -p {imports}) && exec {BIN} -q import "
                           f"{source} $o/b > /dev/null", shell=True),
        }, runs)
        shutil.rmtree(imports, ignore_errors=True)
        cat = best(results["cat"])
        lock_size = os.path.getsize(os.path.join(d, "brief.lock"))
        for name in ("cat", "compose", "compose --no-compact", "check", "lock", "stats",
                     "import"):
            t = best(results[name])
            per_item.setdefault(name, []).append(t / n)
            ratio = "1" if name == "cat" else f"{t / cat:.2f}"
            rows.append([f"{n:,}", name, *cells(results[name]), f"{t / n * 1e6:.0f} µs", ratio])
        print(f"- {n:,} items ({size / 1e6:.1f} MB): brief.lock {lock_size / 1e6:.1f} MB, "
              f"`check` passed; best of {runs}")
    print()
    table(["items", "command", "wall", "CPU", "peak RSS", "wall per item", "÷ cat"], rows)
    if len(args.scale) > 1:
        growth = []
        for name, xs in per_item.items():
            growth.append([name] + [f"{x / xs[0]:.2f}" for x in xs])
        print("Wall time per item relative to the smallest brief (1.00 everywhere = linear):\n")
        table(["command"] + [f"{n:,}" for n in args.scale], growth)


def section_session(args):
    sizes = args.entries
    print(f"## session: {', '.join(f'{n:,}' for n in sizes)}-entry sessions\n\nEach log is written "
          "by the bench (`bench_data.session`: user and assistant entries, one `append` event "
          "each as `session append` writes them, tokens counted with tiktoken) so that the "
          "setup does not time one fsync per entry. Readers rebuild the derived cache "
          "(`.cache.json`) from a log that a writer did not leave behind, and every writer "
          "(append, gate, purge) brings it up to date: so the first rows are a reader and a "
          "writer before any writer, the others run after one `append`. Targets (issue 25): "
          "append O(1) and under 10 ms at 100k entries, status and gate flat, render linear "
          "and under 50 ms at 10k entries.\n")
    rows = []
    per_size = {}
    for n in sizes:
        d = os.path.join(WORK, f"session-{n}")
        bench_data.session(BIN, d, n)
        first = run([BIN, "session", "status", d, "--json"], capture=True)
        status = json.loads(first.stdout)
        append = run([BIN, "session", "append", d, "--user", "the first question after the log"])
        rows.append([f"{n:,}", "status, before any writer (rebuilds the figures from the log)",
                     ms(first.seconds), ms(first.cpu), f"{first.rss_kb / 1024:.0f} MB"])
        rows.append([f"{n:,}", "append, first after the log was written (same rebuild)",
                     ms(append.seconds), ms(append.cpu), f"{append.rss_kb / 1024:.0f} MB"])
        results = interleaved({
            "status": brief("session", "status", d),
            "gate": brief("session", "gate", d, "--estimate", "100"),
            "render": brief("session", "render", d),
            "append": brief("session", "append", d, "--user", "one more question"),
        }, args.runs)
        for name, label in (("status", "status"), ("gate", "gate --estimate 100"),
                            ("render", "render (the request body)"),
                            ("append", "append one entry (fsync included)")):
            rows.append([f"{n:,}", label, *cells(results[name])])
            per_size.setdefault(label, []).append(best(results[name]))
        print(f"{n:,} entries: {status['live_entries']:,} live, Tier 2 "
              f"{status['tier2_tokens']:,} tokens.\n")
    print(f"Best of {args.runs}:\n")
    table(["entries", "command", "wall", "CPU", "peak RSS"], rows)
    if len(sizes) > 1:
        print("Wall time relative to the smallest session (flat: 1.00; linear: the size ratio):\n")
        table(["command"] + [f"{n:,}" for n in sizes],
              [[label] + [f"{x / xs[0]:.2f}" for x in xs] for label, xs in per_size.items()])


def section_binary(args):
    size = os.path.getsize(BIN)
    print("## binary\n")
    vocab = bench_data.vocabulary_sizes(ROOT)
    rows = [["`target/release/brief` (stripped, thin LTO, default features)",
             f"{size / 1e6:.1f} MB", "100 %"]]
    for name, bytes_ in vocab:
        rows.append([f"of which vocabulary {name} (serialised by bpe-openai's build script)",
                     f"{bytes_ / 1e6:.1f} MB", f"{bytes_ / size * 100:.0f} %"])
    other = os.environ.get("BRIEF_BIN_O200K_ONLY")
    if other and os.path.exists(other):
        small = os.path.getsize(other)
        rows.append(["`--no-default-features` (no `cl100k` feature: o200k_base only)",
                     f"{small / 1e6:.1f} MB", f"{small / size * 100:.0f} %"])
    table(["binary", "size", "share"], rows)
    example = os.path.join(WORK, "support")
    shutil.rmtree(example, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "briefs", "support"), example)
    vars_ = ["--var", "date=2026-12-01", "--var", "customer_name=Ada", "--var", "plan=Pro"]
    results = interleaved({
        "--version": brief("--version"),
        "compose (the example brief)": brief("compose", example, *vars_),
        "stats (the example brief: loads o200k_base)": brief("stats", example),
    }, max(args.runs, 10))
    rows = [[f"`brief {name}`", *cells(runs)] for name, runs in results.items()]
    print("Start-up: a fresh process each time, the binary's pages in the page cache (as for "
          f"any command run twice); best of {max(args.runs, 10)}:\n")
    table(["command", "wall", "CPU", "peak RSS"], rows)


SECTIONS = {"tokens": section_tokens, "count": section_count, "align": section_align, "guard": section_guard,
            "scale": section_scale, "session": section_session, "binary": section_binary}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sections", nargs="*", choices=[[]] + list(SECTIONS),
                        help="sections to run (default: all)")
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--corpus", default=os.environ.get(
        "BRIEF_CORPUS", os.path.join(ROOT, "..", "..", "shared", "corpus", "briefs")))
    parser.add_argument("--copies", type=int, default=100, help="corpus copies for tokens")
    parser.add_argument("--count-mb", type=int, default=30, help="MB of text for count")
    parser.add_argument("--bodies", type=int, default=10_000, help="bodies for align")
    parser.add_argument("--align-runs", type=int, default=3)
    parser.add_argument("--scale", default="1000,10000,100000")
    parser.add_argument("--entries", default="1000,10000,100000",
                        help="session sizes, comma-separated")
    args = parser.parse_args()
    args.scale = [int(x) for x in args.scale.split(",")]
    args.entries = [int(x) for x in str(args.entries).split(",")]
    if not os.path.exists(BIN):
        sys.exit(f"{BIN} not found: run scripts/bench.sh (it builds the release binary)")
    os.makedirs(WORK, exist_ok=True)
    version = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print(f"# briefkit side by side\n\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"{version} at {commit}; {bench_data.machine()}; Python {platform.python_version()}; "
          f"load average at start {os.getloadavg()[0]:.1f}.\n")
    for name in args.sections or list(SECTIONS):
        SECTIONS[name](args)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
