#!/usr/bin/env bash
# Knobs on the GPU: a campaign from the knobbed seeds with the built-in agent's own genomes off, so every child
# is a seed with other knob values. Prints kevo show and the champion's lineage, then per seed its untuned score
# and floor next to its best tuned descendant's (and that descendant's knob moves), last.
# Run from the repository root on the GPU host: bench/knobs-h100.sh [MINUTES]   (default 2; the recorded run used 8.4)
# OUT: where results go (default /tmp/knobs). Needs the bundle (tools/unpack.sh) unless $KEVO is set.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/knobs}
minutes=${1:-2}
mkdir -p "$OUT"
if [[ -z "${KEVO:-}" ]]; then
  source tools/unpack.sh
fi
sed -e "s|@OUT@|$OUT|" -e "s|@MINUTES@|$minutes|" bench/knobs.yaml > "$OUT/knobs.yaml"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" 2>&1

$KEVO evolve --config "$OUT/knobs.yaml" --lines > "$OUT/evolve.txt" 2>&1
echo "kevo evolve exit $?" | tee -a "$OUT/evolve.txt"
tail -3 "$OUT/evolve.txt"
dir=$(ls -d "$OUT"/mutations/knobs-* 2>/dev/null | tail -1)
if [[ -z "$dir" ]]; then
  echo "no campaign folder under $OUT/mutations" >&2
  exit 1
fi
$KEVO show "$dir" 2>&1 | tee "$OUT/show.txt"
$KEVO lineage "$dir" 2>&1 | tee "$OUT/lineage.txt"
$KEVO lineage "$dir" --format json > "$OUT/lineage.json" 2>&1
$KEVO report "$dir" --out "$OUT/report-knobs.html" > /dev/null 2>&1
python3 - "$dir" "$OUT" "$minutes" <<'PY'
import glob, json, os, re, sys
d, out, minutes = sys.argv[1], sys.argv[2], sys.argv[3]
mutants = {}
for f in glob.glob(os.path.join(d, "*.json")):
    name = os.path.basename(f)
    if name in ("state.json", "champion.json", "confirmation.json"):
        continue
    m = json.load(open(f))
    if "id" in m:
        mutants[m["id"]] = m

def seed_of(m):
    while m.get("parents"):
        m = mutants[m["parents"][0]]
    return m["id"]

def knobs(mid):
    src = open(os.path.join(d, mid + ".cu")).read()
    header = src[src.index("/*@kevo") + 7:src.index("*/")]
    return {k: v["value"] for k, v in json.loads(header).get("knobs", {}).items()}

def passed(m):
    return m["result"]["verdict"] == "pass" and m["result"].get("score")

rows = []
for sid in sorted(i for i in mutants if i.startswith("seed-")):
    seed = mutants[sid]
    family = [m for m in mutants.values() if m["id"] != sid and seed_of(m) == sid and passed(m)]
    best = max(family, key=lambda m: (m["result"]["floorFraction"] or 0, m["result"]["score"]), default=None)
    start = knobs(sid)
    moves = []
    if best:
        end = knobs(best["id"])
        moves = [f"{k} {start[k]}->{end[k]}" for k in start if end.get(k) != start[k]]
    rows.append({
        "seed": sid, "untunedScore": seed["result"].get("score"), "untunedFloor": seed["result"].get("floorFraction"),
        "tuned": best and best["id"], "tunedScore": best and best["result"]["score"],
        "tunedFloor": best and best["result"]["floorFraction"], "children": len(family), "moves": moves,
        "tunedShapes": best and {s["shape"]: s.get("floorFraction") for s in best["result"].get("shapes") or []},
        "untunedShapes": {s["shape"]: s.get("floorFraction") for s in seed["result"].get("shapes") or []},
    })
ops = {}
for m in mutants.values():
    ops[m["operator"]] = ops.get(m["operator"], 0) + 1
state = json.load(open(os.path.join(d, "state.json")))
champion = mutants.get(state.get("bestId") or "")
result = {"campaign": d, "minutes": float(minutes), "operators": ops, "evaluations": state.get("evaluations"),
          "champion": champion and {"id": champion["id"], "score": champion["result"]["score"],
                                    "floor": champion["result"]["floorFraction"], "seed": seed_of(champion),
                                    "knobs": knobs(champion["id"])},
          "seeds": rows}
json.dump(result, open(os.path.join(out, "campaign-knobs-h100.json"), "w"), indent=2)
print()
print("operators:", ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))
if champion:
    print("champion %s (from %s): score %.3fx, floor %.3f" % (champion["id"], seed_of(champion),
          champion["result"]["score"], champion["result"]["floorFraction"]))
if champion:
    seed = mutants[seed_of(champion)]
    before = {s["shape"]: s for s in seed["result"].get("shapes") or []}
    print("per shape, %s untuned -> champion %s (time us, floor):" % (seed["id"], champion["id"]))
    for s in champion["result"]["shapes"]:
        b = before.get(s["shape"], {})
        t = lambda x: "%.1f" % (x["candidate"]["medianMs"] * 1000) if x.get("candidate") else "-"
        fl = lambda x: "%.2f" % x["floorFraction"] if x.get("floorFraction") is not None else "-"
        print("  %-12s %10s %6s -> %10s %6s" % (s["shape"], t(b), fl(b), t(s), fl(s)))
print("%-20s %9s %7s  %-14s %9s %7s  %s" % ("seed", "untuned", "floor", "best tuned", "score", "floor", "knob moves"))
for r in rows:
    f = lambda v, p: ("%." + str(p) + "f") % v if isinstance(v, (int, float)) else "-"
    print("%-20s %8sx %7s  %-14s %8sx %7s  %s" % (r["seed"], f(r["untunedScore"], 3), f(r["untunedFloor"], 3),
          r["tuned"] or "-", f(r["tunedScore"], 3), f(r["tunedFloor"], 3), ", ".join(r["moves"]) or "-"))
PY
