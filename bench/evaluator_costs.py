#!/usr/bin/env python3
"""Measures the evaluator's own costs on a GPU host and writes them as JSON with their provenance.

NVRTC compile time per candidate (from kevo eval's records: every seed, compiled fresh each run) and the
wall time of a full `kevo eval` of one candidate on the standard suite, counted from process start (JVM
start included) and from after JVM start (kevo's own record: CUDA and NVRTC start-up, the baseline's check
and the candidate's compile, check and timing).
With BEFORE.json (an earlier run of this script, by default bench/results/evaluator-costs-h100.json as committed)
it also writes how much the candidate's evaluation and the whole run changed against it: the cost of what was added
to the evaluator in between (the timing safeguards: timed launches checked at random, the flush that demotes evict_last lines,
launch deadlines; budget 10%).
Usage (after `source tools/unpack.sh`): python3 bench/evaluator_costs.py OUT.json [RUNS] [BEFORE.json]
"""
import datetime, glob, json, os, statistics, subprocess, sys, tempfile, time

def main():
    out, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    before_path = sys.argv[3] if len(sys.argv) > 3 else "bench/results/evaluator-costs-h100.json"
    before = json.load(open(before_path)) if os.path.exists(before_path) else None
    kevo = os.environ["KEVO"]
    compile_ms, walls, evals, parts = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        # The first eval on a host fills kevo's cache (trusted cubin, class-data archives): timed on its own.
        cold_rec = os.path.join(tmp, "cold.json")
        t0 = time.monotonic()
        subprocess.run([kevo, "eval", "seeds/online.cu", "--json", cold_rec], check=True, capture_output=True,
                       env={**os.environ, "KEVO_CACHE": os.path.join(tmp, "empty-cache")})
        cold = {"processWallSeconds": time.monotonic() - t0,
                "afterJvmStartSeconds": json.load(open(cold_rec))["wallSeconds"]}
        for i in range(runs):
            rec = os.path.join(tmp, f"seeds{i}.json")
            subprocess.run([kevo, "eval", "--suite", "quick", *sorted(glob.glob("seeds/*.cu")), "--json", rec],
                           check=True, capture_output=True)
            compile_ms += [r["compileMs"] for r in json.load(open(rec))["results"]]
        for i in range(runs):
            rec = os.path.join(tmp, f"one{i}.json")
            t0 = time.monotonic()
            subprocess.run([kevo, "eval", "seeds/online.cu", "--json", rec], check=True, capture_output=True)
            walls.append(time.monotonic() - t0)
            one = json.load(open(rec))
            evals.append(one["wallSeconds"])
            shapes = one["results"][0].get("shapes", [])
            parts.append({"workerStartupSeconds": one["workerStartupMs"] / 1000,
                          "candidateSeconds": one["results"][0]["evaluationMs"] / 1000,
                          "candidatePhaseMs": one["results"][0].get("phaseMs"),
                          "timedLaunchesChecked": sum(s.get("checkedLaunches") or 0 for s in shapes),
                          "timingFlags": {s["shape"]: s["timingFlag"] for s in shapes if s.get("timingFlag")},
                          "verdict": one["results"][0]["verdict"]})
        record = json.load(open(rec))
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    result = {
        "what": "kevo evaluator costs",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "command": "python3 bench/evaluator_costs.py " + " ".join(sys.argv[1:]),
        "kevoVersion": record["kevoVersion"], "device": record["device"], "nvidiaSmi": smi,
        "nvrtcVersion": record["nvrtcVersion"],
        "compileMs": {"samples": len(compile_ms), "median": statistics.median(compile_ms),
                      "min": min(compile_ms), "max": max(compile_ms), "targetMedian": 300},
        "fullEvalOneCandidateStandardSuite": {
            "candidate": "seeds/online.cu", "runs": runs,
            "processWallSecondsMedian": statistics.median(walls), "processWallSeconds": walls,
            "afterJvmStartSecondsMedian": statistics.median(evals), "afterJvmStartSeconds": evals,
            "breakdown": parts,
            "firstRunWithEmptyCache": cold,
            "targetSeconds": 2},
    }
    result["commit"] = os.environ.get("KEVO_COMMIT", "unknown")
    if before is not None:
        b, a = before["fullEvalOneCandidateStandardSuite"], result["fullEvalOneCandidateStandardSuite"]
        cand = lambda r: statistics.median(p["candidateSeconds"] for p in r["breakdown"])
        phase = lambda r, k: statistics.median(p["candidatePhaseMs"][k] for p in r["breakdown"])
        result["againstBefore"] = {
            "before": {"file": before_path, "date": before.get("date"), "commit": before.get("commit")},
            "candidateSecondsMedian": {"before": cand(b), "after": cand(a), "change": cand(a) / cand(b) - 1},
            "afterJvmStartSecondsMedian": {"before": b["afterJvmStartSecondsMedian"],
                                           "after": a["afterJvmStartSecondsMedian"],
                                           "change": a["afterJvmStartSecondsMedian"] / b["afterJvmStartSecondsMedian"] - 1},
            "phaseMsMedian": {k: {"before": phase(b, k), "after": phase(a, k)} for k in ("compile", "check", "timing")},
            "budget": 0.10,
        }
    json.dump(result, open(out, "w"), indent=2)
    print(json.dumps({k: result[k] for k in ("compileMs", "fullEvalOneCandidateStandardSuite", "againstBefore")
                      if k in result}, indent=1))

if __name__ == "__main__":
    main()
