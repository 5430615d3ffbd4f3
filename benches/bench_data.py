"""Inputs for benches/run.py: briefs, request bodies, guard pairs and a session log, all
generated from a fixed seed (or from the corpus when there is one), so reruns compare like
with like. Nothing here is timed."""

import glob
import gzip
import json
import os
import random
import shutil
import subprocess

WORDS = ("order refund parcel customer window carrier label invoice policy answer reply "
         "review store credit express standard account warranty return exchange the a of "
         "to and within days never always escalate confirm before after").split()


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{model}, {os.cpu_count()} CPUs, {mem:.0f} GiB"


def corpus_texts(path):
    """The corpus files' texts, or [] when there is no corpus."""
    if not os.path.isdir(path):
        return []
    texts = []
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if os.path.isfile(full):
            with open(full, encoding="utf-8") as f:
                texts.append(f.read())
    return texts


def generated_texts(count=19, size=15_000):
    rng = random.Random(7)
    texts = []
    for _ in range(count):
        paras = []
        while sum(len(p) for p in paras) < size:
            paras.append(paragraph(rng, 40))
        texts.append("\n\n".join(paras) + "\n")
    return texts


def unique_text(path, texts, size):
    """A text of about `size` bytes in which no line repeats: numbered sentences of words
    drawn at random from `texts` (their words, punctuation and code as written), so that a
    counter cannot win by meeting the same item twice. Returns the file's size."""
    if os.path.exists(path) and os.path.getsize(path) >= size:
        return os.path.getsize(path)
    rng = random.Random(size)
    vocabulary = sorted({w for t in texts for w in t.split()}) or WORDS
    tmp = path + ".tmp"
    written = 0
    with open(tmp, "w", encoding="utf-8") as f:
        n = 0
        while written < size:
            n += 1
            words = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(8, 40)))
            line = f"{n}. {words}\n" + ("\n" if n % 5 == 0 else "")
            f.write(line)
            written += len(line.encode("utf-8"))
    os.replace(tmp, path)
    return os.path.getsize(path)


def paragraph(rng, words):
    text = " ".join(rng.choice(WORDS) for _ in range(words)).capitalize()
    return text + f", order {rng.randint(1000, 99999)} for ${rng.randint(1, 999)}.00."


def write_manifest(d, name, ids, tokenizer="o200k_base"):
    with open(os.path.join(d, "brief.yaml"), "w") as f:
        f.write(f"name: {name}\ntokenizer: {tokenizer}\nitems:\n")
        f.writelines(f"  - {i}\n" for i in ids)


def fresh(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "items"))


def corpus_brief(d, texts, copies, tokenizer):
    """One item per text per copy; returns the bytes of the item bodies."""
    fresh(d)
    ids, size = [], 0
    for c in range(copies):
        for t, text in enumerate(texts):
            # A `{{name}}` in a static item is an error by design; the bench wants the text.
            body = text.replace("{{", "{ {").replace("{%", "{ %")
            item = f"c{c:03d}-t{t:02d}"
            ids.append(item)
            with open(os.path.join(d, "items", item + ".md"), "w", encoding="utf-8") as f:
                f.write("---\ntype: instruction\n---\n" + body)
            size += len(body.encode("utf-8"))
    write_manifest(d, "corpus", ids, tokenizer)
    return size


def scale_brief(d, n, item_bytes=850):
    """A brief of n items; reuses one already generated with the same n."""
    marker = os.path.join(d, ".generated")
    if os.path.exists(marker):
        with open(marker) as f:
            return int(f.read())
    fresh(d)
    rng = random.Random(n)
    kinds = ["instruction", "constant", "rule", "sample", "identity"]
    ids, size = [], 0
    for i in range(n):
        item = f"item{i:06d}"
        ids.append(item)
        paras = []
        while sum(len(p) for p in paras) < item_bytes:
            paras.append(paragraph(rng, 20))
        body = "\n\n".join(paras) + "\n"
        with open(os.path.join(d, "items", item + ".md"), "w") as f:
            f.write(f"---\ntype: {kinds[i % 5]}\n---\n" + body)
        size += len(body) + 30
    write_manifest(d, f"scale{n}", ids)
    with open(marker, "w") as f:
        f.write(str(size))
    return size


def scale_prompt(d, path):
    """The bodies of the brief in `d` as one Markdown prompt, one `##` section per item."""
    if os.path.exists(path):
        return path
    names = sorted(n for n in os.listdir(os.path.join(d, "items")) if n.endswith(".md"))
    with open(path, "w") as out:
        for name in names:
            with open(os.path.join(d, "items", name)) as f:
                body = f.read().split("---\n", 2)[2]
            out.write(f"## {name[:-3]}\n\n{body}\n")
    return path


def align_bodies(path, count):
    """`count` OpenAI chat bodies of ~26 KB, one per line; returns the file's size."""
    if os.path.exists(path):
        return os.path.getsize(path)
    rng = random.Random(count)
    tools = [{"type": "function", "function": {
        "name": f"tool_{i}", "description": paragraph(rng, 30),
        "parameters": {"type": "object", "properties": {
            f"arg_{j}": {"type": "string", "description": paragraph(rng, 12)} for j in range(4)},
            "required": ["arg_0"]}}} for i in range(8)]
    system = "\n\n".join(paragraph(rng, 60) for _ in range(20))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for wake in range(count):
            # One deliberate drift every 1,000 wakes: a system prompt edited in place.
            prompt = system if wake % 1000 != 999 else system.replace("order", "orders", 1)
            messages = [{"role": "system", "content": prompt}]
            for turn in range(24):
                role = "user" if turn % 2 == 0 else "assistant"
                messages.append({"role": role, "content": paragraph(rng, 80)})
            f.write(json.dumps({"model": "gpt-4o", "tools": tools, "messages": messages}))
            f.write("\n")
    os.rename(tmp, path)
    return os.path.getsize(path)


def headroom_available():
    """True, or why not (the pip error recorded by scripts/bench.sh)."""
    try:
        import headroom.transforms.cache_aligner  # noqa: F401
        return True
    except Exception as err:  # any import failure means: not measured
        note = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target",
                            "bench", "headroom-pip.log")
        if os.path.exists(note):
            with open(note) as f:
                return f.read().strip().splitlines()[-1]
        return f"import failed: {err}"


def guard_pair(d, texts, copies):
    """(original, proposal) files: the joined texts ×copies, and the same without every
    fourth paragraph."""
    os.makedirs(d, exist_ok=True)
    original = "\n\n".join(texts) * copies
    paras = original.split("\n\n")
    proposal = "\n\n".join(p for i, p in enumerate(paras) if i % 4 != 3)
    paths = (os.path.join(d, "original.md"), os.path.join(d, "proposal.md"))
    for path, text in zip(paths, (original, proposal)):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return paths


def session(binary, d, n):
    """A session of n user/assistant entries, written as `session append` writes them (one
    `append` event per entry; tokens counted exactly with tiktoken, as briefkit counts them).
    Writing 10,000 entries through the CLI would time fsync, not briefkit."""
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    shutil.rmtree(d, ignore_errors=True)
    brief = os.path.join(os.path.dirname(d), "session-brief")
    shutil.rmtree(brief, ignore_errors=True)
    os.makedirs(os.path.join(brief, "items"))
    with open(os.path.join(brief, "items", "identity.md"), "w") as f:
        f.write("---\ntype: identity\n---\nYou are the support agent of a small shop.\n")
    write_manifest(brief, "session-bench", ["identity"])
    subprocess.run([binary, "-q", "session", "new", "--brief", brief, "--context-limit",
                    "10000000", d], check=True)
    rng = random.Random(n)
    with open(os.path.join(d, "log.jsonl"), "a") as f:
        for i in range(1, n + 1):
            kind = "user" if i % 2 else "assistant"
            text = paragraph(rng, 25)
            entry = {"id": f"msg_{i}", "kind": kind, "text": text,
                     "tokens": len(enc.encode_ordinary(f"[msg_{i}] {text}"))}
            event = {"event": "append", "at": "2026-12-01T00:00:00.000Z", "entries": [entry]}
            f.write(json.dumps(event, separators=(",", ":")) + "\n")


def vocabulary_sizes(root):
    """(name, bytes) of the serialised vocabularies that bpe-openai compiles in."""
    out = []
    for name in ("o200k_base", "cl100k_base"):
        found = glob.glob(os.path.join(root, "target", "release", "build", "bpe-openai-*",
                                       "out", f"bpe_{name}.dict"))
        if found:
            out.append((name, os.path.getsize(max(found, key=os.path.getmtime))))
    return out


def tiktoken_cache(cache_dir):
    """Fills TIKTOKEN_CACHE_DIR from the vocabulary files the bpe-openai crate ships, so that
    tiktoken runs offline. tiktoken names a cached file by the sha1 of the URL it would
    download, and checks the file's sha256 against the official one: so rather than
    computing names, let tiktoken itself ask for each file once (its `read_file` answered from
    the crate's copy) and write its cache as it always does."""
    os.environ["TIKTOKEN_CACHE_DIR"] = cache_dir
    pattern = os.path.join(os.path.expanduser("~"), ".cargo", "registry", "src", "*",
                           "bpe-openai-0.3.*", "data")
    data = sorted(glob.glob(pattern))
    if not data:
        raise SystemExit("bpe-openai's data files not found under ~/.cargo/registry: "
                         "run `cargo fetch` first")
    import tiktoken
    import tiktoken.load

    original = tiktoken.load.read_file

    def from_crate(blobpath):
        name = os.path.basename(blobpath)
        local = os.path.join(data[-1], name + ".gz")
        if os.path.exists(local):
            with gzip.open(local, "rb") as f:
                return f.read()
        return original(blobpath)

    tiktoken.load.read_file = from_crate
    try:
        for name in ("o200k_base", "cl100k_base"):
            tiktoken.get_encoding(name).encode_ordinary("warm")
    finally:
        tiktoken.load.read_file = original
