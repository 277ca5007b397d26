#!/usr/bin/env bash
# A language model in the loop, then knob tuning: a scripted model (bench/llm-server.py on loopback) answers once with a
# file that declares knobs (bench/llm-answers-knobs/improve.md), kevo judges it; then that file is the only seed of
# a campaign in which the built-in agent tunes its knobs, with no more model calls and no genomes of its own.
# Prints, last, the model's file untuned against the best tuned one, per shape.
# Run from the repository root on the GPU host: bench/llm-knobs-h100.sh [MINUTES]   (tuning time, default 2)
# OUT: where results go (default /tmp/llm-knobs). Needs the bundle (tools/unpack.sh) unless $KEVO is set.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/llm-knobs}
minutes=${1:-2}
mkdir -p "$OUT/seeds-model" "$OUT/seeds-tune"
if [[ -z "${KEVO:-}" ]]; then
  source tools/unpack.sh
fi
cp seeds/online.cu "$OUT/seeds-model/"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 bench/llm-server.py --port "$port" --answers bench/llm-answers-knobs --requests "$OUT/requests" \
  > "$OUT/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null' EXIT
for _ in $(seq 1 50); do
  grep -q "scripted model server" "$OUT/server.log" 2>/dev/null && break
  sleep 0.1
done
sed -e "s|@PORT@|$port|" -e "s|@OUT@|$OUT|" bench/llm-knobs.yaml > "$OUT/llm-knobs.yaml"
$KEVO evolve --config "$OUT/llm-knobs.yaml" --lines > "$OUT/evolve-model.txt" 2>&1
echo "phase 1 (model) exit $?" | tee -a "$OUT/evolve-model.txt"
model_dir=$(ls -d "$OUT"/mutations/llm-knobs-2* 2>/dev/null | tail -1)
answer=$(grep -l '"agent" : "scripted"' "$model_dir"/g0001-*.json 2>/dev/null | head -1)
if [[ -z "$answer" ]]; then
  echo "no model-born mutant under $model_dir" >&2
  exit 1
fi
id=$(basename "$answer" .json)
cp "$model_dir/$id.cu" "$OUT/seeds-tune/model_answer.cu"
$KEVO lineage "$model_dir" --id "$id" | tee "$OUT/lineage-model.txt"

sed -e "s|@OUT@|$OUT|" -e "s|@MINUTES@|$minutes|" bench/llm-knobs-tune.yaml > "$OUT/llm-knobs-tune.yaml"
$KEVO evolve --config "$OUT/llm-knobs-tune.yaml" --lines > "$OUT/evolve-tune.txt" 2>&1
echo "phase 2 (tuning) exit $?" | tee -a "$OUT/evolve-tune.txt"
dir=$(ls -d "$OUT"/mutations/llm-knobs-tune-* 2>/dev/null | tail -1)
$KEVO show "$dir" 2>&1 | tee "$OUT/show.txt"
$KEVO lineage "$dir" 2>&1 | tee "$OUT/lineage.txt"
python3 - "$model_dir" "$id" "$dir" "$OUT" <<'PY'
import json, os, sys
model_dir, model_id, d, out = sys.argv[1:5]
model = json.load(open(os.path.join(model_dir, model_id + ".json")))
seed = json.load(open(os.path.join(d, "seed-model_answer.json")))
state = json.load(open(os.path.join(d, "state.json")))
champion = json.load(open(os.path.join(d, state["bestId"] + ".json"))) if state.get("bestId") else seed
def knobs(path):
    src = open(path).read()
    return {k: v["value"] for k, v in json.loads(src[src.index("/*@kevo") + 7:src.index("*/")]).get("knobs", {}).items()}
before, after = knobs(os.path.join(d, "seed-model_answer.cu")), knobs(os.path.join(d, champion["id"] + ".cu"))
calls = sum(1 for f in os.listdir(d) if f.endswith(".prompt.md"))
result = {"modelMutant": model_id, "modelUsage": model.get("model"), "modelVerdict": model["result"]["verdict"],
          "untuned": {"score": seed["result"].get("score"), "floor": seed["result"].get("floorFraction")},
          "tuned": {"id": champion["id"], "score": champion["result"].get("score"),
                    "floor": champion["result"].get("floorFraction"), "knobs": after},
          "knobMoves": [f"{k} {before[k]}->{after[k]}" for k in before if after.get(k) != before[k]],
          "modelCallsWhileTuning": calls, "evaluations": state.get("evaluations")}
json.dump(result, open(os.path.join(out, "llm-knobs-h100.json"), "w"), indent=2)
print()
print("model's file %s: %s; tuned %s with no model calls (%d prompts saved while tuning)" % (
    model_id, model["result"]["verdict"], champion["id"], calls))
print("knob moves: " + (", ".join(result["knobMoves"]) or "none"))
shapes = {s["shape"]: s for s in seed["result"].get("shapes") or []}
print("%-12s %12s %7s %12s %7s %8s" % ("shape", "untuned(us)", "floor", "tuned(us)", "floor", "gain"))
for s in champion["result"].get("shapes") or []:
    b = shapes.get(s["shape"], {})
    tb = b.get("candidate", {}).get("medianMs") if b.get("candidate") else None
    ta = s.get("candidate", {}).get("medianMs") if s.get("candidate") else None
    print("%-12s %12s %7s %12s %7s %8s" % (s["shape"], "%.1f" % (tb * 1000) if tb else "-",
          "%.2f" % b["floorFraction"] if b.get("floorFraction") is not None else "-",
          "%.1f" % (ta * 1000) if ta else "-",
          "%.2f" % s["floorFraction"] if s.get("floorFraction") is not None else "-",
          "%.2fx" % (tb / ta) if tb and ta else "-"))
print("score %.3fx -> %.3fx, floor %.3f -> %.3f" % (seed["result"].get("score") or 0, champion["result"].get("score") or 0,
      seed["result"].get("floorFraction") or 0, champion["result"].get("floorFraction") or 0))
PY
