#!/usr/bin/env python3
"""Runs the default campaign on a GPU host and records it: config, evaluations, wall time, the curve of best score
against evaluations, the champion's per-shape times and memory-floor fractions, its source, kevo show and kevo
lineage output, and the campaign folder as a tarball. Usage (after `source tools/unpack.sh`):
python3 bench/campaign.py OUTDIR [extra kevo evolve args]
"""
import datetime, glob, json, os, subprocess, sys, tarfile, time

def main():
    out = sys.argv[1]
    kevo = os.environ["KEVO"]
    os.makedirs(out, exist_ok=True)
    cmd = [kevo, "evolve", "--lines", *sys.argv[2:]]
    t0 = time.monotonic()
    run = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    open(os.path.join(out, "campaign-progress.txt"), "w").write(run.stdout + run.stderr)
    folder = run.stdout.splitlines()[0].split(" ", 1)[1].strip()
    events = [json.loads(l) for l in open(os.path.join(folder, "events.jsonl"))]
    champion = json.load(open(os.path.join(folder, "champion.json")))
    state = json.load(open(os.path.join(folder, "state.json")))
    curve, best, n = [], None, 0
    for e in events:
        if e["type"] == "mutant" and not e.get("cached"):
            n += 1
            if e["verdict"] == "pass" and (best is None or e["score"] > best):
                best = e["score"]
                curve.append({"evaluation": n, "time": e["time"], "best": best, "id": e["id"]})
    show = subprocess.run([kevo, "show", folder], capture_output=True, text=True).stdout
    lineage = subprocess.run([kevo, "lineage", folder], capture_output=True, text=True).stdout
    open(os.path.join(out, "campaign-show.txt"), "w").write(show)
    open(os.path.join(out, "campaign-lineage.txt"), "w").write(lineage)
    open(os.path.join(out, "champion-default-h100.cu"), "w").write(open(os.path.join(folder, "champion.cu")).read())
    with tarfile.open(os.path.join(out, "campaign-folder.tar.gz"), "w:gz") as tar:
        tar.add(folder, arcname=os.path.basename(folder))
    res = champion["result"]
    focus = {s["shape"]: s["floorFraction"] for s in res["shapes"] if s["shape"] in ("1x1000000", "1x10000000", "8x128256")}
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    record = {
        "what": "default campaign (kevo evolve) on one GPU",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "command": "python3 bench/campaign.py " + " ".join(sys.argv[1:]) + "  (runs: " + " ".join(cmd[1:]) + ")",
        "exitCode": run.returncode, "nvidiaSmi": smi,
        "device": run.stdout.splitlines()[1] if len(run.stdout.splitlines()) > 1 else None,
        "frozenCampaignYaml": open(os.path.join(folder, "campaign.yaml")).read(),
        "processWallSeconds": round(wall, 1), "campaignMinutes": state["elapsedMillis"] / 60000,
        "generations": state["generation"], "evaluations": state["evaluations"],
        "mutants": len(glob.glob(os.path.join(folder, "*.cu"))) - 2,
        "bestScoreCurve": curve,
        "champion": {"id": champion["id"], "score": res["score"], "floorFractionGeomean": res["floorFraction"],
                     "targets": {"floorGeomean>=0.90": res["floorFraction"] >= 0.90,
                                 "floor>=0.80 on 1x1000000, 1x10000000, 8x128256": all(v >= 0.80 for v in focus.values())},
                     "focusShapes": focus,
                     "shapes": [{"shape": s["shape"], "timeUs": s["candidate"]["medianMs"] * 1000,
                                 "baselineUs": s["baseline"]["medianMs"] * 1000, "copyUs": s["copy"]["medianMs"] * 1000,
                                 "copyBy": s.get("copyBy"), "speedup": s["speedup"], "floorFraction": s["floorFraction"]}
                                for s in res["shapes"]],
                     "source": "champion-default-h100.cu"},
    }
    json.dump(record, open(os.path.join(out, "campaign-default-h100.json"), "w"), indent=2)
    print(show)
    print(lineage)
    print(json.dumps(record["champion"]["targets"]), "floor geomean", res["floorFraction"], focus)

if __name__ == "__main__":
    main()
