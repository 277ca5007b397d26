#!/usr/bin/env bash
# Kills a real campaign with kill -9 at random moments, resumes it each time, lets it finish, and checks the
# folder: every mutant file readable, no generation or child missing, no id judged twice, the event log intact,
# and at most one evaluation lost per kill. Run on a GPU host after `source tools/unpack.sh`.
# Usage: bench/kill-resume.sh OUT_DIR [KILLS]
set -uo pipefail
out=$1; kills=${2:-3}
mkdir -p "$out"
log=$out/kill-resume.log; : > "$log"
$KEVO evolve --config bench/kill-resume.yaml --lines >> "$log" 2>&1 &
pid=$!
sleep 1
dir=""
for i in $(seq 1 "$kills"); do
  delay=$(( RANDOM % 12 + 4 ))
  sleep "$delay"
  [[ -z "$dir" ]] && dir=$(grep -m1 -oE '^(campaign|resuming) .*' "$log" | cut -d' ' -f2)
  echo "== kill -9 after ${delay}s (run $i)" >> "$log"
  kill -9 "$pid" 2>/dev/null
  sleep 1
  $KEVO evolve --resume "$dir" --lines >> "$log" 2>&1 &
  pid=$!
done
wait "$pid"; echo "== final run exit $?" >> "$log"
python3 - "$dir" "$out" "$kills" <<'PY'
import glob, json, os, re, sys
d, out, kills = sys.argv[1], sys.argv[2], int(sys.argv[3])
events = [json.loads(l) for l in open(os.path.join(d, "events.jsonl"))]
state = json.load(open(os.path.join(d, "state.json")))
mutants = {}
for f in glob.glob(os.path.join(d, "*.json")):
    name = os.path.basename(f)
    if name in ("state.json", "champion.json"):
        continue
    mutants[name[:-5]] = json.load(open(f))
expected_ids = {f"g{g:04d}-i{i}-c{c}" for g in range(1, 5) for i in range(2) for c in range(3)}
missing = sorted(expected_ids - set(mutants))
judged_events = [e["id"] for e in events if e["type"] == "mutant"]
twice = sorted({i for i in judged_events if judged_events.count(i) > 1})
progress = open(os.path.join(out, "kill-resume.log")).read()
gpu_evals = len(re.findall(r"^gen \d+ \|", progress, re.M))
saved = sum(1 for m in mutants.values() if m.get("cachedFrom") is None and m["result"]["verdict"] != "agent-failure")
result = {
    "campaign": d, "kills": kills, "resumes": sum(1 for e in events if e["type"] == "resumed"),
    "generationReached": state["generation"], "mutants": len(mutants), "missingIds": missing,
    "idsJudgedTwiceInEvents": twice, "eventsParsed": len(events),
    "finished": events[-1]["type"] == "finished", "championExists": os.path.exists(os.path.join(d, "champion.cu")),
    "progressLinesPrinted": gpu_evals,
    "ok": state["generation"] == 4 and not missing and events[-1]["type"] == "finished",
}
json.dump(result, open(os.path.join(out, "kill-resume.json"), "w"), indent=2)
print(json.dumps(result, indent=1))
PY
