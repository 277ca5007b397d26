"""What the tools that prune a recorded campaign folder share (tools/report-fixture.py, tools/sample-campaign.py).

A campaign folder as kevo's store writes it (store/CampaignStore.java): campaign.yaml, baseline.cu, one <id>.cu and
<id>.json per mutant with files beside them (<id>.sanitized.json, .cubin (the judged build), .prompt.md, .answer.md, .profile.json,
.rejudged.json), champion.cu/json, confirmation.json, state.json and events.jsonl. A pruned copy keeps some mutants
byte for byte; it stays readable as any campaign folder when every kept mutant's parents and cache source are kept,
state.json's populations name only kept mutants and its champion is kept with champion.cu/json.
"""
import json, os, shutil

# Files beside a mutant's record (CampaignStore, SanitizedRecords): they go where the mutant goes.
BESIDE = [".cu", ".json", ".sanitized.json", ".cubin", ".prompt.md", ".answer.md", ".profile.json", ".rejudged.json"]
NOT_MUTANTS = {"state.json", "champion.json", "confirmation.json"}


def records(folder):
    """Every mutant record of a campaign folder, by id (CampaignStore.isMutantRecord's rule)."""
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json") and not name.startswith(".") and name not in NOT_MUTANTS \
                and not any(name.endswith(s) for s in BESIDE[2:]):
            out[name[:-5]] = json.load(open(os.path.join(folder, name)))
    return out


def sources_of(record):
    """The mutants a record needs: its parents (a crossover's second parent too) and the mutant it reused."""
    return record["parents"] + ([record["cachedFrom"]] if "cachedFrom" in record else [])


def lineage(all_records, ids):
    """ids and, recursively, every mutant they need."""
    kept, todo = set(), list(ids)
    while todo:
        mid = todo.pop()
        if mid not in kept:
            kept.add(mid)
            todo.extend(sources_of(all_records[mid]))
    return kept


def assert_closed(kept_records):
    for mid, rec in kept_records.items():
        for ref in sources_of(rec):
            assert ref in kept_records, f"{mid} needs {ref}, which is not kept"


def fresh(out):
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)


def copy(src, out, names):
    """Files copied byte for byte; a name the recorded folder lacks is left out."""
    for name in names:
        if os.path.exists(os.path.join(src, name)):
            shutil.copyfile(os.path.join(src, name), os.path.join(out, name))


def copy_mutants(src, out, ids):
    """Each mutant's source, record and the files beside them, byte for byte; returns the records by id."""
    for mid in ids:
        copy(src, out, [mid + suffix for suffix in BESIDE])
    return {mid: json.load(open(os.path.join(out, mid + ".json"))) for mid in ids}


def pruned_state(src, kept):
    """state.json with each island's population cut to the kept mutants; its champion must be kept."""
    state = json.load(open(os.path.join(src, "state.json")))
    state["islands"] = [[m for m in island if m in kept] for island in state["islands"]]
    assert state["bestId"] in kept, f"the champion {state['bestId']} is not kept"
    return state


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)


def write_events(path, events):
    """events.jsonl: one compact JSON object a line, as kevo appends them."""
    with open(path, "w") as f:
        for e in events:
            f.write((e if isinstance(e, str) else json.dumps(e, separators=(",", ":"))).rstrip("\n") + "\n")


def size(out):
    return sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
