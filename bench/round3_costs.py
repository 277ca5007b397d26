#!/usr/bin/env python3
"""What hardening round 3's checks cost a candidate's evaluation (budget: at most +10% without the sanitizer), and
what the sanitizer pass costs apart, on one GPU.

Settings, run interleaved RUNS times each (default 3), `kevo eval` of two seeds on the standard suite:
- after: config/eval.yaml as shipped: ten input cases, the fresh shapes, the repeated launch (determinism);
- before: the same without them: the eight cases of before round 3, `beyond_suite.fresh: []`, and the repeated launch
  switched off (kevo.ablate=repeat, bench only). The checked-launch bound costs nothing measurable (a comparison of
  numbers already taken), and the generator's second stream is in both.
The candidate's own evaluation time (evaluationMs: compile, check, timing; no JVM or worker start) is compared.
Then `kevo eval --sanitize` of one seed, timed as a whole process, for the sanitizer's cost.
Usage (after `source tools/unpack.sh`): python3 bench/round3_costs.py OUT.json [RUNS]
"""
import datetime, json, os, shutil, statistics, subprocess, sys, tempfile, time

SEEDS = ["seeds/online.cu", "seeds/register_rows.cu"]
BEFORE = """cases: [normal-1, normal-4, normal-20, uniform-500-1000, uniform-neg, masked, constant, dominant]
beyond_suite:
  fresh: []
"""

def main():
    out, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    kevo = os.environ["KEVO"]
    rows = {"after": [], "before": []}
    with tempfile.TemporaryDirectory() as tmp:
        before_cfg = os.path.join(tmp, "before.yaml")
        open(before_cfg, "w").write(BEFORE)
        subprocess.run([kevo, "eval", SEEDS[0]], capture_output=True)  # fills kevo's cache first
        for run in range(runs):
            for setting in ("after", "before"):
                rec = os.path.join(tmp, f"{setting}-{run}.json")
                env = dict(os.environ)
                cmd = [kevo, "eval", *SEEDS, "--json", rec]
                if setting == "before":
                    cmd[2:2] = ["--eval-config", before_cfg]
                    env["KEVO_JAVA_OPTS"] = (env.get("KEVO_JAVA_OPTS", "") + " -Dkevo.ablate=repeat").strip()
                p = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if p.returncode != 0:
                    print(f"{setting} {run}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
                    continue
                for r in json.load(open(rec))["results"]:
                    rows[setting].append({"file": r["name"], "verdict": r["verdict"], "evaluationMs": r["evaluationMs"],
                                          "phaseMs": r.get("phaseMs")})
        t0 = time.monotonic()
        srec = os.path.join(tmp, "sanitize.json")
        # A copy: --sanitize records its outcome beside the file it judges.
        copy = shutil.copy(SEEDS[0], tmp)
        p = subprocess.run([kevo, "eval", "--sanitize", copy, "--json", srec], capture_output=True, text=True)
        sanitize = {"processSeconds": time.monotonic() - t0, "exitCode": p.returncode,
                    "result": json.load(open(srec))["results"][0].get("sanitized") if os.path.exists(srec) else None}
        t0 = time.monotonic()
        subprocess.run([kevo, "eval", SEEDS[0]], capture_output=True)
        sanitize["sameEvalWithoutSanitizeSeconds"] = time.monotonic() - t0
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    summary = {}
    for f in SEEDS:
        name = os.path.basename(f)
        a = med([r["evaluationMs"] for r in rows["after"] if r["file"] == name])
        b = med([r["evaluationMs"] for r in rows["before"] if r["file"] == name])
        summary[name] = {"afterMs": a, "beforeMs": b, "change": a / b - 1,
                         "checkMsAfter": med([r["phaseMs"]["check"] for r in rows["after"] if r["file"] == name]),
                         "checkMsBefore": med([r["phaseMs"]["check"] for r in rows["before"] if r["file"] == name])}
        print(f"{name}: {b:.0f} ms before, {a:.0f} ms after: {100 * (a / b - 1):+.1f}%")
    print("sanitize:", json.dumps(sanitize)[:400])
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    json.dump({"what": "cost of hardening round 3's checks per candidate evaluation, and of the sanitizer pass",
               "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
               "command": "python3 bench/round3_costs.py " + " ".join(sys.argv[1:]),
               "commit": os.environ.get("KEVO_COMMIT", "unknown"), "nvidiaSmi": smi, "runs": runs,
               "before": BEFORE + "kevo.ablate=repeat", "summary": summary, "sanitize": sanitize, "rows": rows},
              open(out, "w"), indent=1)

main()
