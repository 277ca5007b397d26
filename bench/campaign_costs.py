#!/usr/bin/env python3
"""Where a campaign's wall time went: evaluations judged, the GPU worker's time in them (compile, check, timing),
and the rest (the host's share: proposing, compiling ahead, messages, the generation barrier), and how many of the
candidates drawn ahead were judged as drawn. Reads a campaign folder; prints one JSON object. Usage: python3 bench/campaign_costs.py CAMPAIGN_DIR [OUT.json]
"""
import datetime, glob, json, os, sys


def parse(t):
    return datetime.datetime.fromisoformat(t.replace("Z", "+00:00")[:26] + "+00:00")


def main():
    folder = sys.argv[1]
    events = [json.loads(l) for l in open(os.path.join(folder, "events.jsonl"))]
    start = parse(events[0]["time"])
    judged = [e for e in events if e["type"] == "mutant" and not e.get("cached")]
    end = parse(judged[-1]["time"]) if judged else start
    phases, evals, timed_shapes, verdicts, hashes = {}, [], 0, {}, {}
    for path in glob.glob(os.path.join(folder, "*.json")):
        if os.path.basename(path) in ("champion.json", "state.json", "confirmation.json"):
            continue
        m = json.load(open(path))
        if "id" in m:
            hashes[m["id"] + ".cu"] = m.get("sourceHash")
        r = m.get("result") or {}
        if "evaluationMs" not in r:
            continue
        evals.append(r["evaluationMs"])
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        for k, v in (r.get("phaseMs") or {}).items():
            phases[k] = phases.get(k, 0) + v
        timed_shapes += sum(1 for s in r.get("shapes", []) if s.get("candidate"))
    wall_s = (end - start).total_seconds()
    worker_s = sum(evals) / 1000
    out = {
        "folder": os.path.basename(folder.rstrip("/")),
        "evaluations": len(judged),
        "wallSecondsToLastEvaluation": round(wall_s, 1),
        "evaluationsPerMinute": round(len(judged) / wall_s * 60, 1) if wall_s else None,
        "workerSeconds": round(worker_s, 1),
        "workerShare": round(worker_s / wall_s, 3) if wall_s else None,
        "meanEvaluationMs": round(sum(evals) / len(evals), 1) if evals else None,
        "phaseSeconds": {k: round(v / 1000, 1) for k, v in phases.items()},
        "timedShapes": timed_shapes,
        "verdicts": verdicts,
    }
    # Candidates drawn ahead (compiled before their generation started): how many were then judged as drawn.
    drawn = {}
    for e in events:
        if e["type"] == "drawn-ahead":
            drawn.update(e["sources"])
    if drawn:
        out["drawnAhead"] = {"draws": sum(1 for e in events if e["type"] == "drawn-ahead"),
                             "candidates": len(drawn),
                             "judgedAsDrawn": sum(1 for k, v in drawn.items() if hashes.get(k) == v)}
    text = json.dumps(out, indent=1)
    print(text)
    if len(sys.argv) > 2:
        open(sys.argv[2], "w").write(text + "\n")


if __name__ == "__main__":
    main()
