#!/usr/bin/env python3
"""Builds the campaign folder that kevo report's tests read (mutations/default-h100/) from the
recorded default campaign on the H100 (11 MB, 250 mutants, every one passed).

Kept as recorded, byte for byte: campaign.yaml, baseline.cu, champion.cu/json, the seven seeds, the champion's
whole lineage and a few other mutants of every island (cache hits and crossovers among them), chosen so that
every kept mutant's parents and cache source are kept too.

The recorded campaign rejected nothing, so the report's verdict section would have nothing to break down. Eight
rejected mutants are grafted in, in the slots (id, generation, island, time) of pruned ones: their sources are
hostile or broken kernels and their results are the evaluator's own, from `kevo eval --json` on the same H100
(bench/results/report-fixture-rejected-h100.json), except the compile error, whose message is the one NVRTC 11.8
gives for that file (`kevo check`, no GPU needed). Their summaries start with "fixture:".

state.json keeps only kept ids in the island populations; events.jsonl is rebuilt from the kept records in
evaluation order with kevo's own rules (a champion event when a passing mutant beats the best so far).

Usage: python3 tools/report-fixture.py CAMPAIGN_DIR REJECTED_EVAL_JSON OUT_DIR
"""
import datetime, hashlib, json, os, re, sys

import campaign_folder
from campaign_folder import dump

LINEAGE = ["g0001-i1-c1", "g0008-i1-c1", "g0011-i1-c0", "g0016-i3-c0", "g0018-i3-c2"]
OTHERS = ["g0001-i0-c2", "g0001-i2-c2", "g0008-i0-c2", "g0010-i2-c2", "g0018-i1-c0"]
# slot id -> (file name in the eval record, source file, parent)
GRAFTS = {
    "g0002-i0-c1": ("online_typo.cu", "seeds/online.cu", "g0001-i0-c2"),
    "g0003-i1-c2": ("reads_past_x.cu", "evaluator/adversarial/reads_past_x.cu", "g0001-i1-c1"),
    "g0004-i2-c1": ("naive_exp.cu", "evaluator/adversarial/naive_exp.cu", "g0001-i2-c2"),
    "g0009-i3-c0": ("illegal_address.cu", "evaluator/adversarial/illegal_address.cu", "g0001-i1-c1"),
    "g0010-i2-c1": ("oob_write_past_y.cu", "evaluator/adversarial/oob_write_past_y.cu", "g0001-i2-c2"),
    "g0012-i0-c2": ("modifies_input.cu", "evaluator/adversarial/modifies_input.cu", "g0008-i0-c2"),
    "g0013-i1-c1": ("host_code.cu", "evaluator/adversarial/host_code.cu", "g0011-i1-c0"),
    "g0017-i3-c1": ("infinite_loop.cu", "evaluator/adversarial/infinite_loop.cu", "g0016-i3-c0"),
}
# online_typo.cu is seeds/online.cu with __syncthreads() misspelt; this is NVRTC 11.8's message for it (`kevo check`).
# The evaluator rejects a compile error with the same message before the GPU is involved. (The H100 run misspelt
# fmaxf, which online.cu does not call, so its online_typo.cu passed there; that result is not used.)
COMPILE_ERROR = 'online_typo.cu:36: error: identifier "__syncthread" is undefined'
COMMENT = re.compile(r"/\*(?!@kevo).*?\*/|//[^\n]*", re.S)


def source_hash(source):
    """store/SourceHash.java: comments but the plan header removed, whitespace collapsed, SHA-256."""
    normalised = re.sub(r"[ \t\n\x0b\f\r]+", " ", COMMENT.sub(" ", source)).strip()
    return hashlib.sha256(normalised.encode()).hexdigest()


def main():
    src, rejected_json, out = sys.argv[1:4]
    campaign_folder.fresh(out)
    campaign_folder.copy(src, out, ["campaign.yaml", "baseline.cu", "champion.cu", "champion.json"])
    seeds = sorted(f[:-5] for f in os.listdir(src) if f.startswith("seed-") and f.endswith(".json"))
    records = campaign_folder.copy_mutants(src, out, seeds + LINEAGE + OTHERS)
    campaign_folder.assert_closed(records)

    results = {r["name"]: r for r in json.load(open(rejected_json))["results"]}
    for slot, (name, source_file, parent) in GRAFTS.items():
        pruned = json.load(open(os.path.join(src, slot + ".json")))
        source = open(source_file).read()
        if name == "online_typo.cu":
            source = source.replace("__syncthreads()", "__syncthread()")
        if name == "online_typo.cu":
            result = {"name": name, "description": results[name]["description"], "verdict": "compile-error",
                      "detail": COMPILE_ERROR, "inputSeed": pruned["result"]["inputSeed"], "kernels": [], "shapes": []}
        else:
            result = dict(results[name])
        assert result["verdict"] != "pass", name
        result["name"] = slot + ".cu"
        result.pop("path", None)
        result["detail"] = result["detail"].replace(name, slot + ".cu")
        description = re.search(r'"description":\s*"([^"]*)"', source).group(1)
        rec = {"id": slot, "parents": [parent], "generation": pruned["generation"], "island": pruned["island"],
               "agent": pruned["agent"], "operator": "mutate", "summary": "fixture: " + description,
               "sourceHash": source_hash(source), "result": result, "agentMs": pruned["agentMs"],
               "createdAt": pruned["createdAt"]}
        with open(os.path.join(out, slot + ".cu"), "w") as f:
            f.write(source)
        dump(os.path.join(out, slot + ".json"), rec)
        records[slot] = rec

    state = campaign_folder.pruned_state(src, records)
    order = sorted(records.values(), key=lambda r: r["createdAt"])
    state["evaluations"] = sum(1 for r in order if "cachedFrom" not in r and r["generation"] <= state["generation"])
    dump(os.path.join(out, "state.json"), state)

    # events.jsonl: the recorded non-mutant events (started, generation, migrated, finished) at their times,
    # mutant and champion events rebuilt from the kept records, counts recomputed.
    recorded = [json.loads(line) for line in open(os.path.join(src, "events.jsonl"))]
    events = [e for e in recorded if e["type"] in ("started", "migrated")]
    best, evaluated = None, 0
    timeline = []
    for r in order:
        passed = r["result"]["verdict"] == "pass"
        score = r["result"].get("score") if passed else 0
        if "cachedFrom" not in r:
            evaluated += 1
        events.append({"time": r["createdAt"], "type": "mutant", "id": r["id"], "generation": r["generation"],
                       "island": r["island"], "agent": r["agent"], "verdict": r["result"]["verdict"],
                       "score": score, "cached": "cachedFrom" in r})
        if passed and (best is None or score > best[1]):
            best = (r["id"], score)
            events.append({"time": r["createdAt"], "type": "champion", "id": r["id"], "score": score})
        timeline.append((r["createdAt"], evaluated, best))
    for e in recorded:
        if e["type"] in ("generation", "finished"):
            before = [t for t in timeline if t[0] <= e["time"]][-1]
            e = dict(e, evaluations=before[1], champion=before[2][0])
            if e["type"] == "generation":
                e["score"] = before[2][1]
            events.append(e)
    events.sort(key=lambda e: (e["time"], e["type"] != "mutant"))
    campaign_folder.write_events(os.path.join(out, "events.jsonl"), events)
    assert best[0] == state["bestId"] == json.load(open(os.path.join(out, "champion.json")))["id"]
    size = campaign_folder.size(out)
    print(f"{out}: {len(records)} mutants, {size / 1e3:.0f} kB, champion {best[0]}, "
          f"built {datetime.date.today()}")


if __name__ == "__main__":
    main()
