#!/usr/bin/env bash
# One real campaign step with a language model in the loop, on a GPU host with no network and no JDK: a scripted
# OpenAI-compatible server (python3's http.server, bench/llm-server.py) answers with recorded answers, and
# `kevo evolve` runs one generation of one island, so that LLM-born mutants are compiled, checked, timed and
# recorded with their prompts: one whole-file answer, and one that does not compile and goes back for a repair.
# Run from the repository root: bench/llm-step.sh   (OUT: where results go, default /tmp/llm-step; ANSWERS: the
# scripted answers, default bench/llm-answers (bench/llm-answers-log_softmax for a log_softmax campaign); CONFIG: the
# campaign, default bench/llm-step.yaml; bench/llm-prompts.yaml is two islands of three children for two
# generations, the set-up in which one generation once sent one prompt four times)
# With --knobs [MINUTES], it goes on into the knob-tuning step (bench/llm-knobs-h100.sh): the scripted model answers
# once with a file that declares knobs, and the built-in agent then tunes it for MINUTES (default 2) with no more
# model calls; the last table is that file untuned against tuned, per shape.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/llm-step}
mkdir -p "$OUT"
if [[ -z "${KEVO:-}" ]]; then
  source tools/unpack.sh
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 bench/llm-server.py --port "$port" --answers "${ANSWERS:-bench/llm-answers}" --requests "$OUT/requests" \
  > "$OUT/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null' EXIT
for _ in $(seq 1 50); do
  grep -q "scripted model server" "$OUT/server.log" 2>/dev/null && break
  sleep 0.1
done
sed -e "s|@PORT@|$port|" -e "s|@OUT@|$OUT|" "${CONFIG:-bench/llm-step.yaml}" > "$OUT/llm-step.yaml"

$KEVO evolve --config "$OUT/llm-step.yaml" --lines 2>&1 | tee "$OUT/evolve.txt"
rc=${PIPESTATUS[0]}
echo "kevo evolve exit $rc" | tee -a "$OUT/evolve.txt"
dir=$(ls -d "$OUT"/mutations/llm-* 2>/dev/null | tail -1)
if [[ -z "$dir" ]]; then
  echo "no campaign folder under $OUT/mutations" >&2
  exit 1
fi
$KEVO show "$dir" > "$OUT/show.txt" 2>&1
$KEVO lineage "$dir" > "$OUT/lineage.txt" 2>&1
mkdir -p "$OUT/mutants"
for prompt in "$dir"/*.prompt.md; do
  [[ -e $prompt ]] || continue
  id=$(basename "$prompt" .prompt.md)
  cp "$dir/$id".* "$OUT/mutants/"
  { echo "== $id"; $KEVO lineage "$dir" --id "$id"; } >> "$OUT/lineage-llm.txt" 2>&1
done
cp "$dir/campaign.yaml" "$dir/events.jsonl" "$dir/state.json" "$OUT/" 2>/dev/null
python3 - "$dir" "$OUT" <<'PY' | tee "$OUT/summary.txt"
import glob, json, os, sys
d, out = sys.argv[1], sys.argv[2]
llm = []
for f in sorted(glob.glob(os.path.join(d, "g*.json"))):
    m = json.load(open(f))
    if m.get("agent") == "scripted":
        llm.append(m)
for m in llm:
    usage = m.get("model") or {}
    r = m["result"]
    print("%-14s %-8s %-16s score %-7s tokens %s/%s cost %s prompt %s" % (
        m["id"], m["operator"], r["verdict"], "%.3f" % r["score"] if r.get("score") else "-",
        usage.get("inputTokens"), usage.get("outputTokens"), usage.get("cost"),
        os.path.exists(os.path.join(d, m["id"] + ".prompt.md"))))
passed = [m for m in llm if m["result"]["verdict"] == "pass" and m["result"].get("shapes")]
timed = [m for m in passed if all(s.get("candidate") for s in m["result"]["shapes"])]
repairs = [m for m in llm if m["operator"] == "repair"]
# No two requests of a generation may ask the same thing: the prompts of each generation's first requests (repairs
# follow a failure of their own) compared as sent.
by_generation = {}
for m in llm:
    if m["operator"] != "repair":
        text = open(os.path.join(d, m["id"] + ".prompt.md")).read()
        by_generation.setdefault(m["id"].split("-")[0], []).append(text)
duplicates = {g: len(ps) - len(set(ps)) for g, ps in by_generation.items()}
ok = bool(timed) and all(os.path.exists(os.path.join(d, m["id"] + ".prompt.md")) for m in llm) \
    and not any(duplicates.values())
print(json.dumps({"llmMutants": len(llm), "passedAndTimed": len(timed), "repairRounds": len(repairs),
                  "repairPassed": sum(1 for m in repairs if m["result"]["verdict"] == "pass"),
                  "promptsPerGeneration": {g: len(ps) for g, ps in by_generation.items()},
                  "identicalPromptsPerGeneration": duplicates, "ok": ok}))
sys.exit(0 if ok else 1)
PY
step=$?
if [[ ${1:-} == --knobs ]]; then
  OUT=$OUT/knobs KEVO=$KEVO bench/llm-knobs-h100.sh "${2:-2}" || exit $?
fi
exit $step
