#!/usr/bin/env python3
"""Prunes a recorded campaign folder into the shipped sample (mutations/sample-h100/, mutations/sample-h100.md).

Kept byte for byte: campaign.yaml, baseline.cu, champion.cu/json, confirmation.json, the seeds, the champion and
every mutant confirmation.json names, with their whole lineages (parents, a crossover's second parent and the mutant
a cache hit reused, recursively), plus OTHERS, a few small ones so that lineage and the report show a tuning chain,
a crossover, a cache hit and screened mutants. Each kept mutant keeps the files beside it (the champion's
<id>.sanitized.json among them).

Rewritten: state.json (each island's population cut to kept ids; its champion, bestId, must be kept; its counters are
the campaign's, as recorded) and events.jsonl (the recorded lines, in order: the campaign's own events and those of
kept mutants; a drawn-ahead event keeps its kept children's sources, and goes when none is kept).

Usage: python3 tools/sample-campaign.py CAMPAIGN_DIR OUT_DIR
"""
import json, os, sys

import campaign_folder

# Small mutants worth showing (ids of the H100 recording of 2026-11-27): a chain of knob tunings of seed-cluster_rows
# (g0001-i3-c1, g0002-i3-c2), a screened tuning (g0001-i0-c1) and a screened cache hit of it (g0003-i3-c2).
OTHERS = ["g0001-i3-c1", "g0002-i3-c2", "g0001-i0-c1", "g0003-i3-c2"]
VERBATIM = ["campaign.yaml", "baseline.cu", "champion.cu", "champion.json", "confirmation.json"]


def event_ids(event):
    """The mutants an event is about; None for the campaign's own (started, generation, confirmed, finished...)."""
    if event["type"] in ("mutant", "champion", "sanitized", "unsanitized"):
        return [event["id"]]
    if event["type"] == "drawn-ahead":
        return [name[:-3] for name in event["sources"]]
    return None


def pruned_events(src, kept):
    out = []
    for line in open(os.path.join(src, "events.jsonl")):
        event = json.loads(line)
        ids = event_ids(event)
        if ids is None or all(i in kept for i in ids):
            out.append(line)
        elif event["type"] == "drawn-ahead" and any(i in kept for i in ids):
            event["sources"] = {k: v for k, v in event["sources"].items() if k[:-3] in kept}
            out.append(event)
    return out


def main():
    src, out = sys.argv[1:3]
    recorded = campaign_folder.records(src)
    state = json.load(open(os.path.join(src, "state.json")))
    champion = json.load(open(os.path.join(src, "champion.json")))["id"]
    assert champion == state["bestId"], f"champion.json names {champion}, state.json {state['bestId']}"
    contenders = [e["id"] for e in json.load(open(os.path.join(src, "confirmation.json")))["entries"]]
    seeds = [mid for mid in recorded if mid.startswith("seed-")]
    kept = campaign_folder.lineage(recorded, seeds + [champion] + contenders + OTHERS)
    order = sorted(kept, key=lambda mid: (recorded[mid]["generation"], mid))

    campaign_folder.fresh(out)
    campaign_folder.copy(src, out, VERBATIM)
    records = campaign_folder.copy_mutants(src, out, order)
    campaign_folder.assert_closed(records)
    assert os.path.exists(os.path.join(out, champion + ".sanitized.json")), f"{champion} was not sanitized"
    campaign_folder.dump(os.path.join(out, "state.json"), campaign_folder.pruned_state(src, kept))
    campaign_folder.write_events(os.path.join(out, "events.jsonl"), pruned_events(src, kept))
    print(f"{out}: {len(records)} of {len(recorded)} mutants, {campaign_folder.size(out) / 1e3:.0f} kB, "
          f"champion {champion}; kept: {' '.join(order)}")


if __name__ == "__main__":
    main()
