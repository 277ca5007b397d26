#!/usr/bin/env bash
# The default campaign in another dtype, and its champion beside torch.softmax and Triton's tutorial kernel in that
# dtype, recorded in one file: issue 27's campaign-<dtype>-h100.json. Two steps, because the 10-minute campaign alone
# fills a GPU host's 10-minute command: run each on a GPU host from the repository root, after
# `source tools/unpack.sh`, with KEVO_COMMIT set to the commit the bundle was built from (a GPU host's copy of the
# checkout may carry older git metadata):
#   bench/campaign-dtype.sh campaign OUT [DTYPE] [WALL_MINUTES]   (DTYPE: bf16, the default; fp16; bf16-fp32)
#       OUT receives six files: campaign.py's record (campaign-DTYPE-run.json), progress, show, lineage, the champion
#       (champion-DTYPE-h100.cu) and the campaign folder as a tarball (`kevo report` makes its report on any host).
#   bench/campaign-dtype.sh compare OUT DTYPE RUN_JSON CHAMPION
#       times CHAMPION beside torch and Triton in DTYPE and writes campaign-DTYPE-h100.json (the run's record, the
#       per-shape table, championBeatsOnEveryShape) and the comparison as text into OUT.
set -euo pipefail
step=$1
out=$2
dtype=${3:-bf16}
python=${KEVO_TORCH_PYTHON:-/opt/torch/.venv/bin/python}
work=$(mktemp -d)
mkdir -p "$out"
case "$step" in
campaign)
    minutes=${4:-8.5}
    sed -e "s/^dtype: fp32 /dtype: $dtype /" -e "s/^name: default /name: $dtype /" \
        -e "s/wall_minutes: 8.5/wall_minutes: $minutes/" config/default.yaml > "$work/campaign.yaml"
    grep -q "^dtype: $dtype " "$work/campaign.yaml" \
        || { echo "config/default.yaml has no 'dtype: fp32' line to set" >&2; exit 2; }
    python3 bench/campaign.py "$work/c" --config "$work/campaign.yaml" > /dev/null
    folder=$(head -1 "$work/c/campaign-progress.txt" | cut -d' ' -f2-)
    cp "$work/c/campaign-default-h100.json" "$out/campaign-$dtype-run.json"
    cp "$work/c/campaign-progress.txt" "$out/progress-$dtype-h100.txt"
    cp "$work/c/campaign-show.txt" "$out/show-$dtype-h100.txt"
    cp "$work/c/campaign-lineage.txt" "$out/lineage-$dtype-h100.txt"
    cp "$folder/champion.cu" "$out/champion-$dtype-h100.cu"
    cp "$work/c/campaign-folder.tar.gz" "$out/campaign-$dtype-folder.tar.gz"
    ;;
compare)
    run=$4
    champion=$5
    "$python" bench/compare_torch.py --dtype "$dtype" "$work/compare.json" "$champion" > "$out/compare-$dtype-h100.txt"
    python3 - "$run" "$work/compare.json" "$out/campaign-$dtype-h100.json" "$dtype" "bench/campaign-dtype.sh $*" <<'PY'
import json, sys
campaign, compare, dest, dtype = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
rows = compare["rows"]
beats = {"torch": all(r["kevo_us"] < r["torch_us"] for r in rows),
         "triton": all(r["triton_us"] is None or r["kevo_us"] < r["triton_us"] for r in rows)}
record = {"what": f"default campaign with dtype: {dtype}, and its champion beside torch.softmax and Triton's "
                  f"tutorial kernel in {dtype} on the same shapes and GPU",
          "dtype": dtype, "date": campaign["date"], "commit": compare["commit"], "nvidiaSmi": campaign["nvidiaSmi"],
          "command": sys.argv[5], "comparisonDate": compare.get("date"),
          "campaign": {k: campaign[k] for k in ("command", "frozenCampaignYaml", "processWallSeconds",
                                                 "campaignMinutes", "generations", "evaluations", "champion")},
          "comparison": {k: compare[k] for k in ("torch", "triton", "method", "floorGeomeanOverSuite")},
          "championFloorGeomean": campaign["champion"]["floorFractionGeomean"],
          "championBeatsOnEveryShape": beats,
          "rows": rows}
json.dump(record, open(dest, "w"), indent=1)
print(json.dumps({"floor": record["championFloorGeomean"], "beats": beats}))
PY
    ;;
*)
    echo "usage: bench/campaign-dtype.sh campaign OUT [DTYPE] [WALL_MINUTES] | compare OUT DTYPE RUN_JSON CHAMPION" >&2
    exit 2
    ;;
esac
