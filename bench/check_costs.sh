#!/usr/bin/env bash
# What each safeguard of the timing phase costs (budget: at most +10% of a candidate's evaluation), on one GPU:
# `kevo eval seeds/online.cu` on the standard suite, RUNS times (default 3) per setting of the internal switch
# kevo.ablate (never for users: it turns safeguards off), the settings interleaved run by run so that clock drift
# hits them alike. Run from the repository root with the bundle carried
# (target/kevo-*-linux-x86_64.tar.gz, built by `mvn package`); results land in $OUT (default bench/results/run):
#   bash bench/check_costs.sh                  -> check-costs-h100.json, check-costs-h100.txt
# Settings: none (everything on), each safeguard off alone (persistreset: the persisting-L2 reset before each shape;
# deadlines: the launch deadlines' messages to the supervisor), overlap (not a safeguard: timing rounds queued behind
# one gate per batch, as before, instead of one per round), safeguards (all seven off), all (and no overlap: about the
# evaluator before these safeguards). SETTINGS="none checks" picks some. About 2.5 minutes on an H100.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results/run}; mkdir -p "$out"
export KEVO_COMMIT=${KEVO_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
source tools/unpack.sh
python3 - "$out" "${RUNS:-3}" "${SETTINGS:-none perturb poison demote checks pinnedflush persistreset deadlines overlap safeguards all}" <<'PY' 2>&1 | tee "$out/check-costs-h100.txt"
import datetime, json, os, statistics, subprocess, sys, tempfile
out, runs, settings = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
kevo = os.environ["KEVO"]
records = {s: [] for s in settings}
with tempfile.TemporaryDirectory() as tmp:
    # A first run fills kevo's cache (trusted cubin, class-data archives, the baseline's remembered check).
    subprocess.run([kevo, "eval", "seeds/online.cu"], capture_output=True)
    for run in range(runs):
        for s in settings:
            rec = os.path.join(tmp, f"{s}-{run}.json")
            env = dict(os.environ)
            spec = {"safeguards": "perturb,poison,demote,checks,pinnedflush,persistreset,deadlines"}.get(s, s)
            if s != "none":
                # The launcher passes KEVO_JAVA_OPTS to the CLI's JVM, which forwards kevo.ablate to its worker.
                env["KEVO_JAVA_OPTS"] = (env.get("KEVO_JAVA_OPTS", "") + f" -Dkevo.ablate={spec}").strip()
            p = subprocess.run([kevo, "eval", "seeds/online.cu", "--json", rec], capture_output=True, text=True, env=env)
            if p.returncode != 0 or not os.path.exists(rec):
                print(f"{s} run {run}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
                continue
            r = json.load(open(rec))["results"][0]
            shapes = r.get("shapes", [])
            records[s].append({
                "verdict": r["verdict"], "candidateSeconds": r["evaluationMs"] / 1000, "phaseMs": r.get("phaseMs"),
                "checkedLaunches": sum(x.get("checkedLaunches") or 0 for x in shapes),
                "flags": {x["shape"]: x["timingFlag"] for x in shapes if x.get("timingFlag")},
                "shapes": [{"shape": x["shape"],
                            "n": [(x.get(k) or {}).get("n") for k in ("candidate", "baseline", "copy")],
                            "candidateUs": 1000 * ((x.get("candidate") or {}).get("medianMs") or 0)} for x in shapes]})
med = lambda xs: statistics.median(xs) if xs else float("nan")
summary = {}
for s in settings:
    rs = records[s]
    summary[s] = {"runs": len(rs),
                  "candidateSeconds": med([r["candidateSeconds"] for r in rs]),
                  "timingMs": med([r["phaseMs"]["timing"] for r in rs if r["phaseMs"]]),
                  "checkMs": med([r["phaseMs"]["check"] for r in rs if r["phaseMs"]]),
                  "checkedLaunches": med([r["checkedLaunches"] for r in rs]),
                  "verdicts": sorted({r["verdict"] for r in rs})}
try:
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
except OSError:
    smi = "no nvidia-smi"
json.dump({"what": "cost of each timing-phase safeguard: kevo eval seeds/online.cu, standard suite, per kevo.ablate",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "commit": os.environ.get("KEVO_COMMIT"),
           "command": f"RUNS={runs} SETTINGS='{' '.join(settings)}' bash bench/check_costs.sh", "nvidiaSmi": smi, "runsPerSetting": runs, "before": {"candidateSeconds": 1.066, "timingMs": 829.3,
           "checkMs": 203.3, "source": "bench/results/evaluator-costs-h100.json (2026-11-23, before the timing safeguards)"},
           "summary": summary, "runs": records}, open(os.path.join(out, "check-costs-h100.json"), "w"), indent=1)

# Per shape: the sample counts of candidate/baseline/copy in the median run of each setting (the rounds a shape
# took are the largest of the three), so a setting that costs rounds rather than time per round shows.
print("== per shape: n candidate/baseline/copy (median run by candidate seconds)")
mid = {}
for s in settings:
    rs = sorted(records[s], key=lambda r: r["candidateSeconds"])
    mid[s] = rs[len(rs) // 2] if rs else None
names = [x["shape"] for x in next((m for m in mid.values() if m), {"shapes": []})["shapes"]]
print(f"{'shape':<11}" + "".join(f"{s:>13}" for s in settings))
for i, name in enumerate(names):
    cells = []
    for s in settings:
        m = mid[s]
        n = m["shapes"][i]["n"] if m and i < len(m["shapes"]) else None
        cells.append("/".join("-" if v is None else str(v) for v in n) if n else "-")
    print(f"{name:<11}" + "".join(f"{c:>13}" for c in cells))
print(f"== summary (commit {os.environ.get('KEVO_COMMIT')}, {smi}); before the timing safeguards: candidate 1.066 s, "
      "timing 829 ms, check 203 ms")
base = summary.get("none")
print(f"{'off':<12} {'runs':>4} {'cand s':>7} {'vs 1.066':>9} {'saves ms':>9} {'timing ms':>10} {'saves ms':>9} "
      f"{'check ms':>9} {'checked':>8}  verdicts")
for s in settings:
    x = summary[s]
    saves = lambda k, f=1: f * (base[k] - x[k]) if base and s != "none" else float("nan")
    print(f"{s:<12} {x['runs']:>4} {x['candidateSeconds']:>7.3f} {100 * (x['candidateSeconds'] / 1.066 - 1):>+8.1f}% "
          f"{saves('candidateSeconds', 1000):>9.1f} {x['timingMs']:>10.1f} {saves('timingMs'):>9.1f} "
          f"{x['checkMs']:>9.1f} {x['checkedLaunches']:>8.0f}  {','.join(x['verdicts'])}")
PY
