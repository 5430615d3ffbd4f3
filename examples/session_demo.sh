#!/usr/bin/env bash
# shellcheck disable=SC2016
# A long session driven from the shell against a scripted loopback model (examples/
# scripted_model.rs): turns, a tool call answered from the shell, a gate that blocks and
# resumes, an operator purge and a model purge, a compaction (an invalid state retried
# once), and `brief align --volatile-tail 1` over the renders. README's capture is its
# output. Run from the repository root:  examples/session_demo.sh [WORKDIR]
set -euo pipefail
root="$(pwd)"
cargo build --quiet --bin brief --example scripted_model
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
brief="$target/debug/brief"
work="${1:-$(mktemp -d)}"
mkdir -p "$work" && cd "$work"
rm -rf demo wake*.json

state='{"project_summary":"Support chat with Ada about orders NW-20417 and NW-20388.","established_context":["NW-20417 shipped 2026-11-17 by UPS, in transit","NW-20388 was delivered 2026-11-20"],"key_decisions":["no address change: the parcel is already with UPS"],"completed_tasks":["tracked NW-20417","tracked NW-20388"],"current_tasks":["start a return for the tent"],"blockers":[],"affected_files":[]}'
jq -n --arg state "$state" '[
  {"tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "NW-20417", "include_tracking": true}}]},
  {"text": "NW-20417 shipped on 2026-11-17 with UPS and is in transit."},
  {"text": "I will look that one up.", "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "NW-20388"}}]},
  {"text": "NW-20388 was delivered on 2026-11-20.", "tool_calls": [{"name": "purge", "arguments": {"ids": ["tool_call_8", "tool_res_9"], "summary": "lookup_order NW-20388: delivered 2026-11-20."}}]},
  {"tool_calls": [{"name": "compact_context", "arguments": {"resume_instruction": "Ada wants to return the tent from NW-20388: start the return."}}]},
  {"text": "{\"project_summary\": \"Support chat\"}"},
  {"text": $state},
  {"text": "Let us start the return for the tent from NW-20388."}
]' > script.json
for i in $(seq 1 60); do
  echo "Checkpoint $i: parcel NW-20417 scanned at UPS hub $((100 + i)), status in transit, no exception reported."
done > tracking.txt

"$target/debug/examples/scripted_model" script.json > model.url &
model=$!
trap 'kill $model' EXIT
for _ in $(seq 1 50); do [ -s model.url ] && break; sleep 0.1; done
url="$(head -1 model.url)"
export BRIEF_LEDGER="$work/ledger.jsonl" BRIEF_CCR_PATH="$work/ccr.sqlite"
rm -f "$BRIEF_LEDGER" "$BRIEF_CCR_PATH"

# Prints a command as typed: arguments with spaces or quotes in single quotes.
show() {
  local out="\$" arg
  for arg in "$@"; do
    case "$arg" in
      "$brief") arg=brief ;;
      *[\ \"\'\?\{\>]*) arg="'$arg'" ;;
    esac
    out="$out $arg"
  done
  printf '%s\n' "$out" | sed "s#$root/##"
}
run() { show "$@"; "$@" 2>&1 || echo "[exit $?]"; }
turn() {
  show brief session turn demo \$MODEL "$@"
  "$brief" session turn demo --provider openai --model scripted --base-url "$url/v1" "$@" 2>&1 || echo "[exit $?]"
}
wake=0
render() {
  wake=$((wake + 1))
  printf '$ brief session render demo > wake%s.json\n' "$wake"
  "$brief" session render demo > "wake$wake.json"
}

run "$brief" session new demo --brief "$root/briefs/support" --framework-tools --context-limit 4000 --reserve 500 --overhead 100 --margin 100 --var date=2026-11-30 --var customer_name=Ada --var plan=Pro
turn --user "Where is my order NW-20417? It was due last week."
run "$brief" session append demo --tool-result tool_call_2 --file tracking.txt
render
turn --max-tokens 150
render
turn --user "Can I still change its delivery address? And where is NW-20388?"
run "$brief" session status demo
run "$brief" session purge demo --ids tool_call_2,tool_res_3 --summary "lookup_order NW-20417: shipped 2026-11-17 by UPS, in transit."
render
turn --resume op_3
run "$brief" session append demo --tool-result tool_call_8 --text '{"order_id":"NW-20388","status":"delivered","delivered_on":"2026-11-20"}'
render
turn
render
turn --user "Thanks. New topic: I want to return the tent from NW-20388."
render
turn
render
run "$brief" session log demo
run "$brief" session show demo tool_res_9
run "$brief" align --volatile-tail 1 wake1.json wake2.json wake3.json wake4.json wake5.json wake6.json wake7.json
run "$brief" usage --by session
