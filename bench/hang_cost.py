#!/usr/bin/env python3
"""What a hung kernel costs: evaluator/adversarial/hang_one_shape.cu spins forever on 32x50257
only, then seeds/online.cu is evaluated by the replacement worker. Per run, from kevo's own record:

- deadline: what the worker told its supervisor the hung launch may take (from the baseline's time on the shape);
- detected: seconds from that announcement until the supervisor killed the worker (deadline + polling);
- kill: milliseconds the kill took (the process gone);
- replacement: milliseconds until the next worker was ready, which includes its first launches (the baseline timed
  on every shape at start), so the GPU was usable again;
- cost = detected + kill + replacement: GPU time lost to the hang, against a phase limit of 120 s before.

It also records the whole hostile evaluation's wall time (compile and the honest shapes' checks before the hang).
Writes OUT.json; prints a table.
Usage (after `source tools/unpack.sh`): python3 bench/hang_cost.py OUT.json [RUNS]
"""
import datetime, json, os, re, statistics, subprocess, sys, tempfile, time

HANG = "evaluator/adversarial/hang_one_shape.cu"
GOOD = "seeds/online.cu"
DETAIL = re.compile(r"ran past its deadline of ([\d.]+) s .*worker killed after ([\d.]+) s and replaced "
                    r"\(kill took (\d+) ms\)")


def main():
    out = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    kevo = os.environ["KEVO"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            rec = os.path.join(tmp, f"hang{i}.json")
            t0 = time.monotonic()
            done = subprocess.run([kevo, "eval", HANG, GOOD, "--seed", str(40 + i), "--json", rec],
                                  capture_output=True, text=True)
            wall = time.monotonic() - t0
            record = json.load(open(rec))
            hang, good = record["results"]
            m = DETAIL.search(hang.get("detail") or "")
            row = {"run": i, "exitCode": done.returncode, "hangVerdict": hang["verdict"], "hangDetail": hang.get("detail"),
                   "goodVerdictAfter": good["verdict"], "replacementReadyMs": good.get("workerStartMs"),
                   "processWallSeconds": wall, "firstWorkerStartupMs": record.get("workerStartupMs")}
            if m:
                row.update({"deadlineSeconds": float(m.group(1)), "detectedSeconds": float(m.group(2)),
                            "killMs": float(m.group(3))})
                if row["replacementReadyMs"] is not None:
                    row["costSeconds"] = row["detectedSeconds"] + (row["killMs"] + row["replacementReadyMs"]) / 1000
            rows.append(row)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    costs = [r["costSeconds"] for r in rows if "costSeconds" in r]
    result = {
        "what": "cost of a hung kernel: deadline detection + kill + replacement worker ready (its first launches done)",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "commit": os.environ.get("KEVO_COMMIT", "unknown"),
        "command": "python3 bench/hang_cost.py " + " ".join(sys.argv[1:]),
        "kevoVersion": record["kevoVersion"], "device": record["device"], "nvidiaSmi": smi,
        "limits": record["settings"]["limits"],
        "costSecondsMax": max(costs) if costs else None,
        "costSecondsMedian": statistics.median(costs) if costs else None,
        "targetSeconds": 10,
        "runs": rows,
    }
    json.dump(result, open(out, "w"), indent=2)
    print(f"{'run':>3} {'verdict':16} {'deadline s':>10} {'detected s':>10} {'kill ms':>8} {'replace ms':>10} "
          f"{'cost s':>7} {'good after':>10}")
    for r in rows:
        print(f"{r['run']:>3} {r['hangVerdict']:16} {r.get('deadlineSeconds', float('nan')):10.2f} "
              f"{r.get('detectedSeconds', float('nan')):10.2f} {r.get('killMs', float('nan')):8.0f} "
              f"{r['replacementReadyMs'] or float('nan'):10.0f} {r.get('costSeconds', float('nan')):7.2f} "
              f"{r['goodVerdictAfter']:>10}")


if __name__ == "__main__":
    main()
