#!/usr/bin/env python3
"""Many GPUs, measured: the same campaign (bench/multigpu.yaml) with --devices 0 and with --devices 0,1, evaluations
per minute of each, both champions, the 2-GPU campaign's confirmation, and `kevo reeval` of the 2-GPU champion on
one device (within the noise bound?). Writes OUT/multigpu-<host>.json with its provenance.
Usage (after `source tools/unpack.sh`, on a host with two GPUs): python3 bench/multigpu.py OUT [NAME [CONFIG]]
"""
import datetime, json, os, subprocess, sys, time

def campaign(kevo, devices, out, config):
    t0 = time.monotonic()
    run = subprocess.run([kevo, "evolve", "--config", config, "--devices", devices, "--lines"],
                         capture_output=True, text=True)
    wall = time.monotonic() - t0
    open(os.path.join(out, f"progress-devices-{devices.replace(',', '_')}.txt"), "w").write(run.stdout + run.stderr)
    folder = run.stdout.splitlines()[0].split(" ", 1)[1].strip()
    state = json.load(open(os.path.join(folder, "state.json")))
    champion = json.load(open(os.path.join(folder, "champion.json")))
    records = [json.load(open(os.path.join(folder, f))) for f in os.listdir(folder)
               if f.endswith(".json") and f not in ("state.json", "champion.json", "confirmation.json")]
    judged = [r for r in records if r.get("cachedFrom") is None and r["result"]["verdict"] != "agent-failure"]
    by_device = {}
    for r in judged:
        d = r["result"].get("device") or "?"
        by_device[d] = by_device.get(d, 0) + 1
    confirmation = os.path.join(folder, "confirmation.json")
    minutes = state["elapsedMillis"] / 60000
    return folder, {
        "devices": devices, "exitCode": run.returncode, "processWallSeconds": round(wall, 1),
        "campaignMinutes": minutes, "generations": state["generation"], "evaluations": state["evaluations"],
        "evaluationsPerMinute": state["evaluations"] / minutes, "judgedByDevice": by_device,
        "champion": {"id": champion["id"], "score": champion["result"]["score"],
                     "floorFraction": champion["result"]["floorFraction"], "device": champion["result"].get("device")},
        "confirmation": json.load(open(confirmation)) if os.path.exists(confirmation) else None,
        "show": subprocess.run([kevo, "show", folder], capture_output=True, text=True).stdout,
    }

def main():
    out = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "h200x2"
    config = sys.argv[3] if len(sys.argv) > 3 else "bench/multigpu.yaml"
    kevo = os.environ["KEVO"]
    os.makedirs(out, exist_ok=True)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=index,name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    _, one = campaign(kevo, "0", out, config)
    folder2, two = campaign(kevo, "0,1", out, config)
    champ = two["champion"]["id"]
    reeval = subprocess.run([kevo, "reeval", folder2, "--id", champ, "--device", "0"], capture_output=True, text=True)
    record = {
        "what": "one campaign on one and on two GPUs of one host",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "command": "python3 bench/multigpu.py " + " ".join(sys.argv[1:]),
        "nvidiaSmi": smi, "config": open(config).read(),
        "oneDevice": one, "twoDevices": two,
        "throughputRatio": two["evaluationsPerMinute"] / one["evaluationsPerMinute"], "target": 1.8,
        "reevalOfTwoDeviceChampionOnDevice0": {"exitCode": reeval.returncode, "output": reeval.stdout + reeval.stderr},
    }
    json.dump(record, open(os.path.join(out, f"multigpu-{name}.json"), "w"), indent=2)
    print(json.dumps({k: record[k] for k in ("throughputRatio",)}),
          "one:", one["evaluationsPerMinute"], one["champion"], "two:", two["evaluationsPerMinute"], two["champion"],
          two["judgedByDevice"])
    print(record["reevalOfTwoDeviceChampionOnDevice0"]["output"])

if __name__ == "__main__":
    main()
