#!/usr/bin/env bash
# The evaluator's hardening evidence on one H100 (about 6 minutes): run from the repository root with the bundle carried
# (target/kevo-*-linux-x86_64.tar.gz, built by `mvn package`); results land in $OUT (default bench/results/run).
#   KEVO_COMMIT=$(git rev-parse HEAD) bash bench/hardening-h100.sh      (the commit is recorded in every JSON)
# (a) the whole adversarial corpus through one supervisor      -> adversarial-h100.json
# (b) whether the persisting-L2 limit kevo sets is per context    -> persisting-limit-h100.json
#     the evict_last pair timed side by side, 4 processes        -> l2-pair-h100.json
# (c) what a hang costs, detection to the replacement's launches -> hang-cost-h100.json
# (d) the evaluator's costs on the standard suite, against the committed bench/results/evaluator-costs-h100.json
#                                                                -> evaluator-costs-h100.json
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results/run}; mkdir -p "$out"
export KEVO_COMMIT=${KEVO_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
source tools/unpack.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/gpu.txt"
t0=$SECONDS
echo "== (a) adversarial corpus"
python3 bench/adversarial.py "$out/adversarial-h100.json" 2>&1 | tee "$out/adversarial-h100.txt"
python3 bench/adversarial_table.py "$out/adversarial-h100.json" > "$out/adversarial-table.md"  # docs/reliability.md's table
echo "== (b) persisting-L2 limit: one context's, or the GPU's?"
python3 bench/experiments/persisting_limit_probe.py "$out/persisting-limit-h100.json" 2>&1 | tee "$out/persisting-limit-h100.txt"
echo "== (b) evict_last pair"
python3 bench/experiments/l2_pair.py "$out/l2-pair-h100.json" 4 2>&1 | tee "$out/l2-pair-h100.txt"
echo "== (c) hang cost"
python3 bench/hang_cost.py "$out/hang-cost-h100.json" 2 2>&1 | tee "$out/hang-cost-h100.txt"
echo "== (d) evaluator costs"
python3 bench/evaluator_costs.py "$out/evaluator-costs-h100.json" 5 bench/results/evaluator-costs-h100.json \
  > "$out/evaluator-costs-h100.txt" 2>&1; tail -30 "$out/evaluator-costs-h100.txt"
echo "== summary ($((SECONDS - t0)) s, commit $KEVO_COMMIT)"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(name):
    p = os.path.join(out, name)
    return json.load(open(p)) if os.path.exists(p) else None
a, l2, hang, cost, limit = (load(n) for n in ("adversarial-h100.json", "l2-pair-h100.json", "hang-cost-h100.json",
                                              "evaluator-costs-h100.json", "persisting-limit-h100.json"))
rows = []
if a:
    bad = [r["file"] + " " + r["verdict"] for r in a["corpus"] if r["verdict"] != r["expected"]]
    rows.append(("corpus: every file its expected verdict", a["allAsExpected"], f"{len(a['corpus'])} files"
                 + (", wrong: " + "; ".join(bad) if bad else "")))
    rows.append(("corpus: good seed passes after every file", a["goodSeedAlwaysPassed"], ""))
    for f in ("lazy_every_other_even.cu", "lazy_every_other_odd.cu", "l2_plain.cu", "l2_evict_last.cu"):
        r = next((r for r in a["corpus"] if r["file"] == f), None)
        if r:
            rows.append((f"  {f}", r["verdict"] == r["expected"], r["verdict"]))
if l2:
    fit = [s for s in l2["shapes"] if s["inputSetsFitInL2"]]
    worst = max(fit, key=lambda s: s["hintedGainMedian"]) if fit else None
    rows.append(("evict_last pair: no gain beyond noise (sets fit in L2)", l2["noGainBeyondNoiseWhereSetsFitInL2"],
                 f"largest gain {100 * worst['hintedGainMedian']:+.1f}% on {worst['shape']} (noise "
                 f"{100 * worst['plainVsPlainMax']:.1f}%)" if worst else ""))
if l2 and l2.get("baselineVsBefore"):
    b = l2["baselineVsBefore"]
    rows.append(("baseline timings unchanged by the new flush (within 5%)", abs(b["geomeanRatio"] - 1) <= 0.05,
                 f"geomean x{b['geomeanRatio']:.3f} vs seeds-h100.json, worst {b['worstShape']} x{b['worstRatio']:.3f}"))
if limit:
    rows.append(("persisting-L2 limit is per context", limit["perContext"],
                 f"set here {limit['afterSetHere'][1]}, read elsewhere {limit['readInOtherProcess'][1]}"))
if hang:
    c = hang["costSecondsMax"]
    rows.append(("hang costs at most 10 s", c is not None and c <= 10,
                 f"max {c:.1f} s over {len(hang['runs'])} runs" if c is not None else "no cost parsed"))
if cost and "againstBefore" in cost:
    ch = cost["againstBefore"]["candidateSecondsMedian"]["change"]
    wall = cost["againstBefore"]["afterJvmStartSecondsMedian"]["change"]
    rows.append(("evaluation time within +10% of before", ch <= 0.10 and wall <= 0.10,
                 f"candidate {100 * ch:+.1f}%, whole run after JVM start {100 * wall:+.1f}%"))
print(f"{'check':58} {'ok':4} detail")
for name, ok, detail in rows:
    print(f"{name:58} {'yes' if ok else 'NO':4} {detail}")
PY
