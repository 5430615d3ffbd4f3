#!/usr/bin/env bash
# The guard as it is against the guard at an older commit, in one process, alternating
# (BENCHMARKS.md, "Guard with the third layer"): builds a scratch crate holding both copies
# of the guard (`crates/briefkit-core/src/guard`; a few minutes, where the whole crate takes far longer) and runs it.
#
#   scripts/guard_compare.sh [OLD_COMMIT] [CORPUS_DIR]     (defaults: a9dc33f, then
#                                    $BRIEF_BENCH_CORPUS or ../shared/corpus/briefs)
#   ROUNDS=5 ONLY=x100 scripts/guard_compare.sh ...         rounds per row; only rows naming TEXT
#   GUARD_BENCH_PAIR=ORIG,PROP [GUARD_OLD=1] scripts/guard_compare.sh   one check of two files,
#                                                           under /usr/bin/time -f %M for peak memory
#
# Uses $CARGO_TARGET_DIR (the crate's dependencies are already built there) and a temporary
# directory it removes. Not part of CI: benchmarks need a quiet machine, not a gate.
set -euo pipefail
cd "$(dirname "$0")/.."
old="${1:-a9dc33f}"
corpus="${2:-${BRIEF_BENCH_CORPUS:-../shared/corpus/briefs}}"
if [ -z "${GUARD_BENCH_PAIR:-}" ] && [ ! -d "$corpus" ]; then
  echo "guard_compare: no corpus at $corpus (pass a directory of .md briefs, or set BRIEF_BENCH_CORPUS)" >&2
  exit 2
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/src/old_guard" "$scratch/benches"
# The guard lives in crates/briefkit-core since the workspace split; older commits hold it in src/.
guard=crates/briefkit-core/src/guard
cp -r "$guard" "$scratch/src/new_guard"
old_guard=src/guard
if git cat-file -e "$old:$guard" 2>/dev/null; then old_guard="$guard"; fi
git archive "$old" "$old_guard" | tar -x -C "$scratch"
cp -r "$scratch/$old_guard/." "$scratch/src/old_guard/" && rm -rf "$scratch/src/guard" "$scratch/crates"
for m in new_guard old_guard; do
  # The sample-message entry points need the rest of the crate; `check` does not.
  # `compare` (an item's file) too, since the guard gained it.
  rm -f "$scratch/src/$m/messages.rs" "$scratch/src/$m/compare.rs"
  sed -i '/^mod messages;/d; /^pub use messages::/d; /^mod compare;/d; /^pub use compare::/d' "$scratch/src/$m/mod.rs"
  grep -rl "crate::guard" "$scratch/src/$m" | xargs -r sed -i "s/crate::guard/crate::$m/g"
done
# The report implements the crate's `Document` trait; the scratch crate has only its shape.
printf '#![allow(warnings)]\npub mod new_guard;\npub mod old_guard;\npub mod document { pub trait Document: serde::Serialize { fn status(&self) -> &str; fn summary(&self) -> String; } }\n' > "$scratch/src/lib.rs"
cp scripts/guard_compare/cmp.rs "$scratch/benches/cmp.rs"
cp Cargo.lock "$scratch/"
cat > "$scratch/Cargo.toml" <<'TOML'
[package]
name = "guardcmp"
version = "0.0.0"
edition = "2024"
publish = false
[dependencies]
regex = "1"
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["preserve_order", "arbitrary_precision", "raw_value"] }
rust-stemmers = "1.2"
memchr = "2"
aho-corasick = "1"
[[bench]]
name = "cmp"
harness = false
[profile.release]
debug = false
lto = "thin"
TOML
[ -d "$corpus" ] && corpus="$(cd "$corpus" && pwd)"
(cd "$scratch" && cargo bench --offline --bench cmp -- "$corpus")
