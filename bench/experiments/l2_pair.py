#!/usr/bin/env python3
"""Times the evict_last pair of the adversarial corpus side by side.

evaluator/adversarial/l2_plain.cu and l2_evict_last.cu are one kernel that reads each element of x once; the second
loads x under an L2 evict_last policy. If any line it pinned outlived kevo's flush, it would be faster on shapes whose
input sets fit in L2 together. Each of PROCESSES `kevo eval` processes evaluates plain, hinted, plain (the order of
the first two alternating between processes), so every process also gives a plain-vs-plain control: the noise that
a gain must beat. Per shape: the median over processes of the hinted kernel's gain over the mean of the two plain
evaluations, time and speedup over the baseline (measured interleaved with each), and of the control's difference.
Also compares the baseline's medians here with those recorded before the flush changed
(bench/results/seeds-h100.json, the same baseline and suite): a flush that left L2 full of pinned lines would slow
the baseline, which re-reads each row from L2.
Writes OUT.json; prints a table.
Usage (after `source tools/unpack.sh`): python3 bench/experiments/l2_pair.py OUT.json [PROCESSES]
"""
import datetime, json, os, statistics, subprocess, sys, tempfile

PLAIN = "evaluator/adversarial/l2_plain.cu"
HINTED = "evaluator/adversarial/l2_evict_last.cu"


def shapes_by_name(result):
    return {s["shape"]: s for s in result.get("shapes", [])}


def main():
    out = sys.argv[1]
    processes = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    kevo = os.environ["KEVO"]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for p in range(processes):
            order = [PLAIN, HINTED, PLAIN] if p % 2 == 0 else [HINTED, PLAIN, PLAIN]
            rec = os.path.join(tmp, f"pair{p}.json")
            done = subprocess.run([kevo, "eval", *order, "--seed", str(100 + p), "--json", rec],
                                  capture_output=True, text=True)
            record = json.load(open(rec))
            results = record["results"]
            plains = [r for r, f in zip(results, order) if f == PLAIN]
            hinted = [r for r, f in zip(results, order) if f == HINTED][0]
            runs.append({"order": [os.path.basename(f) for f in order], "exitCode": done.returncode,
                         "verdicts": [r["verdict"] for r in results], "plain": plains, "hinted": hinted})
    device = record["device"]
    l2 = device["l2Bytes"]
    sets = record["settings"]["measurement"]["inputSets"]
    rows = []
    for name in shapes_by_name(runs[0]["hinted"]):
        r, c = (int(v) for v in name.split("x"))
        fits = sets * r * c * 4 <= l2
        gains, speedup_gains, controls, plain_us, hinted_us = [], [], [], [], []
        for run in runs:
            h = shapes_by_name(run["hinted"]).get(name, {})
            a, b = (shapes_by_name(x).get(name, {}) for x in run["plain"])
            if not (h.get("candidate") and a.get("candidate") and b.get("candidate")):
                continue
            plain_us.append(a["candidate"]["medianMs"] * 1000)
            hinted_us.append(h["candidate"]["medianMs"] * 1000)
            plain_ms = (a["candidate"]["medianMs"] + b["candidate"]["medianMs"]) / 2
            gains.append(plain_ms / h["candidate"]["medianMs"] - 1)
            speedup_gains.append(h["speedup"] / ((a["speedup"] + b["speedup"]) / 2) - 1)
            controls.append(abs(a["candidate"]["medianMs"] / b["candidate"]["medianMs"] - 1))
        if not gains:
            continue
        noise = max(controls)
        gain = statistics.median(gains)
        rows.append({"shape": name, "inputSetsFitInL2": fits, "processes": len(gains),
                     "hintedGainMedian": gain, "hintedGains": gains,
                     "hintedSpeedupGainMedian": statistics.median(speedup_gains),
                     "plainVsPlainMax": noise,
                     "plainUs": statistics.median(plain_us), "hintedUs": statistics.median(hinted_us),
                     "gainBeyondNoise": gain > max(noise, 0.01)})
    before_path = "bench/results/seeds-h100.json"
    baseline_vs_before = None
    if os.path.exists(before_path):
        before = {s["shape"]: s["baseline"]["medianMs"] for s in json.load(open(before_path))["results"][0]["shapes"]
                  if s.get("baseline")}
        now = {}
        for run in runs:
            for r in [run["hinted"], *run["plain"]]:
                for name, sh in shapes_by_name(r).items():
                    if sh.get("baseline"):
                        now.setdefault(name, []).append(sh["baseline"]["medianMs"])
        ratios = {n: statistics.median(v) / before[n] for n, v in now.items() if n in before}
        if ratios:
            geo = statistics.geometric_mean(ratios.values())
            worst = max(ratios, key=lambda n: abs(ratios[n] - 1))
            baseline_vs_before = {"file": before_path, "geomeanRatio": geo, "worstShape": worst,
                                  "worstRatio": ratios[worst], "ratios": ratios}
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    result = {
        "what": "evict_last pair (l2_plain.cu vs l2_evict_last.cu), alternating processes; gain = plain time / "
                "hinted time - 1, noise = the largest plain-vs-plain difference in any process",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "commit": os.environ.get("KEVO_COMMIT", "unknown"),
        "command": "python3 bench/experiments/l2_pair.py " + " ".join(sys.argv[1:]),
        "kevoVersion": record["kevoVersion"], "device": device, "nvidiaSmi": smi,
        "allPassed": all(v == "pass" for run in runs for v in run["verdicts"]),
        "noGainBeyondNoiseWhereSetsFitInL2": not any(r["gainBeyondNoise"] for r in rows if r["inputSetsFitInL2"]),
        "baselineVsBefore": baseline_vs_before,
        "shapes": rows, "runs": [{k: run[k] for k in ("order", "exitCode", "verdicts")} for run in runs],
    }
    json.dump(result, open(out, "w"), indent=2)
    print(f"{'shape':12} {'fits L2':>7} {'plain us':>9} {'hinted us':>9} {'gain':>7} {'gain/base':>9} {'noise':>6}  beyond")
    for r in rows:
        print(f"{r['shape']:12} {'yes' if r['inputSetsFitInL2'] else 'no':>7} {r['plainUs']:9.1f} {r['hintedUs']:9.1f} "
              f"{100 * r['hintedGainMedian']:+6.1f}% {100 * r['hintedSpeedupGainMedian']:+8.1f}% "
              f"{100 * r['plainVsPlainMax']:5.1f}%  {'GAIN' if r['gainBeyondNoise'] else '-'}")
    print(f"all evaluations passed: {result['allPassed']}; no gain beyond noise where the input sets fit in L2: "
          f"{result['noGainBeyondNoiseWhereSetsFitInL2']}")
    if baseline_vs_before:
        b = baseline_vs_before
        print(f"baseline medians against {b['file']}: geometric mean x{b['geomeanRatio']:.3f}, "
              f"worst {b['worstShape']} x{b['worstRatio']:.3f}")


if __name__ == "__main__":
    main()
