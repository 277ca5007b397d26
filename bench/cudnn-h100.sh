#!/usr/bin/env bash
# The GPU evidence for cuDNN's softmax as the baseline. Run from the repository root on the GPU host, the bundle
# (target/kevo-*-linux-x86_64.tar.gz) and, for the tests, target/gpu-tests (tools/pack-gpu-tests.sh) carried.
#
#   bench/cudnn-h100.sh evals      # ~5 min: gpu tests; seeds and the recorded champion over cuDNN, over
#                                  # block_two_pass and with auto; kevo reeval of the old recorded campaign
#                                  # (mutations/default-h100 recorded block_two_pass); the error case
#   bench/cudnn-h100.sh campaign   # ~9.5 min: the default campaign (config/default.yaml, baseline: auto) with
#                                  # bench/campaign.py, then kevo report and kevo reeval --top 3 of it
#   bench/cudnn-h100.sh summary    # no GPU: the summary table again, from what is under $OUT
#   bench/cudnn-h100.sh all        # the three in a row (more than one 10-minute device call)
#
# OUT: where results go (default /tmp/cudnn). Every stage ends with the summary table of what $OUT holds so far.
# Each stage stays under a 10-minute device call; the campaign stage has the least slack (evolve is 8.5 min).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/cudnn}
stage=${1:-all}
mkdir -p "$OUT"
if [[ $stage != summary && -z "${KEVO:-}" ]]; then
  source tools/unpack.sh
fi
# The same inputs for every eval, so that the two baselines' runs differ only by the baseline.
seed=17
champion=bench/results/champion-default-h100.cu

evals() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
  ls -l /usr/lib/x86_64-linux-gnu/libcudnn*.so* > "$OUT/cudnn-libraries.txt" 2>&1
  if [[ -d target/gpu-tests ]]; then
    echo "== gpu tests"
    bash tools/gpu-tests.sh --details=tree > "$OUT/gpu-tests-h100.txt" 2>&1
    echo "gpu tests exit $?" >> "$OUT/gpu-tests-h100.txt"
    grep -A4 -E "Failures \(|tests (successful|failed|skipped)" "$OUT/gpu-tests-h100.txt"
    grep -E "Cudnn|cuDNN|cudnn" "$OUT/gpu-tests-h100.txt" | head -20
  else
    echo "== gpu tests skipped: no target/gpu-tests (run tools/pack-gpu-tests.sh here and carry it)"
  fi
  for base in cudnn block_two_pass; do
    echo "== seeds and the recorded champion, --baseline $base"
    $KEVO eval seeds/*.cu "$champion" --baseline "$base" --seed "$seed" --json "$OUT/seeds-$base-h100.json" \
      > "$OUT/seeds-$base-h100.txt" 2>&1
    echo "exit $?" >> "$OUT/seeds-$base-h100.txt"
    head -1 "$OUT/seeds-$base-h100.txt"
    grep -E "PASS|REJECTED|^exit" "$OUT/seeds-$base-h100.txt"
  done
  echo "== --baseline auto (the header says which baseline and why)"
  $KEVO eval seeds/online.cu --baseline auto --seed "$seed" --json "$OUT/online-auto-h100.json" \
    > "$OUT/online-auto-h100.txt" 2>&1
  echo "exit $?" >> "$OUT/online-auto-h100.txt"
  head -1 "$OUT/online-auto-h100.txt"; grep -E "PASS|REJECTED|^exit" "$OUT/online-auto-h100.txt"
  echo "== kevo reeval --top 1 mutations/default-h100 (an old campaign: it recorded block_two_pass)"
  $KEVO reeval mutations/default-h100 --top 1 > "$OUT/reeval-old-default-h100.txt" 2>&1
  echo "exit $?" >> "$OUT/reeval-old-default-h100.txt"
  cat "$OUT/reeval-old-default-h100.txt"
  echo "== error case: KEVO_CUDNN names a library that does not exist (expect exit 3 and one line)"
  KEVO_CUDNN=/nonexistent/libcudnn.so.9 $KEVO eval seeds/online.cu --baseline cudnn \
    > "$OUT/error-missing-cudnn.txt" 2>&1
  echo "exit $?" >> "$OUT/error-missing-cudnn.txt"
  cat "$OUT/error-missing-cudnn.txt"
}

campaign() {
  echo "== default campaign (config/default.yaml; baseline: auto)"
  grep -n "baseline" config/default.yaml config/eval.yaml
  rm -rf "$OUT/campaign"
  python3 bench/campaign.py "$OUT/campaign" > "$OUT/campaign-run.txt" 2>&1
  echo "campaign.py exit $?" >> "$OUT/campaign-run.txt"
  tail -4 "$OUT/campaign-run.txt"
  dir=$(head -1 "$OUT/campaign/campaign-progress.txt" 2>/dev/null | cut -d' ' -f2-)
  if [[ -z "$dir" || ! -d "$dir" ]]; then
    echo "no campaign folder (see $OUT/campaign-run.txt, $OUT/campaign/campaign-progress.txt)" >&2
    return 1
  fi
  echo "$dir" > "$OUT/campaign/folder.txt"
  grep -n -A4 -i "baseline" "$dir/campaign.yaml" > "$OUT/campaign/campaign-yaml-baseline.txt"
  cat "$OUT/campaign/campaign-yaml-baseline.txt"
  $KEVO report "$dir" --out "$OUT/campaign/report-cudnn-h100.html" > "$OUT/campaign/report.txt" 2>&1
  $KEVO reeval "$dir" --top 3 > "$OUT/campaign/campaign-cudnn-reeval-h100.txt" 2>&1
  echo "exit $?" >> "$OUT/campaign/campaign-cudnn-reeval-h100.txt"
  cat "$OUT/campaign/campaign-cudnn-reeval-h100.txt"
  # Under the names bench/results/ will keep them by (campaign.py names them for the block_two_pass campaign).
  cp "$OUT/campaign/campaign-default-h100.json" "$OUT/campaign/campaign-cudnn-h100.json"
  cp "$OUT/campaign/champion-default-h100.cu" "$OUT/campaign/champion-cudnn-h100.cu"
  cp "$OUT/campaign/campaign-show.txt" "$OUT/campaign/campaign-cudnn-show-h100.txt"
  cp "$OUT/campaign/campaign-lineage.txt" "$OUT/campaign/campaign-cudnn-lineage-h100.txt"
  cp "$OUT/campaign/campaign-progress.txt" "$OUT/campaign/campaign-cudnn-progress-h100.txt"
  # The folder again, now that the report sits beside it: campaign.py packed it before.
  tar czf "$OUT/campaign/campaign-folder.tar.gz" -C "$(dirname "$dir")" "$(basename "$dir")"
}

summary() {
  python3 - "$OUT" <<'PY'
import glob, json, math, os, re, sys
out = sys.argv[1]

def load(name):
    path = os.path.join(out, name)
    return json.load(open(path)) if os.path.exists(path) else None

def geo(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None

def f(v, fmt):
    return fmt % v if isinstance(v, (int, float)) else "-"

def label(record):
    choice = record.get("baselineChoice") or {}
    if choice.get("version"):
        return "cuDNN " + choice["version"]
    return choice.get("name") or record.get("baseline") or "?"

runs = {b: load("seeds-%s-h100.json" % b) for b in ("cudnn", "block_two_pass")}
print()
print("== summary (%s)" % out)
for b, r in runs.items():
    if r:
        print("  --baseline %-15s -> %s  (%s)" % (b, label(r), json.dumps(r.get("baselineChoice"))))
by = {b: {x["name"]: x for x in (r or {}).get("results", [])} for b, r in runs.items()}
names = sorted(set(by["cudnn"]) | set(by["block_two_pass"]))
if names:
    # The baseline's own floor: geometric mean over the suite of copy time / baseline time, from the same run.
    print("%-26s %12s %14s %7s" % ("file", "over cuDNN", "over block2p", "floor"))
    for n in names:
        c, b = by["cudnn"].get(n), by["block_two_pass"].get(n)
        score = lambda x: f(x.get("score"), "%.3fx") if x and x.get("score") else (x["verdict"] if x else "-")
        print("%-26s %12s %14s %7s" % (n, score(c), score(b), f((c or b or {}).get("floorFraction"), "%.3f")))
    for b in ("cudnn", "block_two_pass"):
        first = next((x for x in by[b].values() if x.get("shapes") and x["shapes"][0].get("copy")), None)
        if first:
            floor = geo([s["copy"]["medianMs"] / s["baseline"]["medianMs"] for s in first["shapes"] if s.get("baseline")])
            print("  the baseline itself (%s): memory floor %s" % (b, f(floor, "%.3f")))
champ = {b: by[b].get("champion-default-h100.cu") for b in by}
if champ["cudnn"] and champ["cudnn"].get("shapes"):
    other = {s["shape"]: s for s in (champ["block_two_pass"] or {}).get("shapes", [])}
    print()
    print("recorded champion (bench/results/champion-default-h100.cu), per shape:")
    print("  %-12s %9s %10s %9s %9s %10s %8s %11s" % ("shape", "time(us)", "cuDNN(us)", "x cuDNN", "copy(us)",
                                                      "block(us)", "x block", "cuDNN relL2"))
    for s in champ["cudnn"]["shapes"]:
        o = other.get(s["shape"], {})
        us = lambda st: f(st["medianMs"] * 1000 if st else None, "%.1f")
        print("  %-12s %9s %10s %9s %9s %10s %8s %11s" % (
            s["shape"], us(s.get("candidate")), us(s.get("baseline")), f(s.get("speedup"), "%.2fx"),
            us(s.get("copy")), us(o.get("baseline")), f(o.get("speedup"), "%.2fx"),
            f(s.get("baselineRelativeL2"), "%.1e")))
auto = load("online-auto-h100.json")
if auto:
    print()
    print("--baseline auto resolved to: %s (%s)" % (label(auto), json.dumps(auto.get("baselineChoice"))))
for name in ("reeval-old-default-h100.txt", "error-missing-cudnn.txt"):
    path = os.path.join(out, name)
    if os.path.exists(path):
        lines = open(path).read().strip().splitlines()
        print("%s: %s" % (name, " | ".join(lines[-3:])))
camp = load("campaign/campaign-default-h100.json")
if camp:
    c = camp["champion"]
    print()
    print("campaign: %d evaluations, %.1f min, %d generations, exit %s" % (camp["evaluations"],
          camp["campaignMinutes"], camp["generations"], camp["exitCode"]))
    yaml = (camp.get("frozenCampaignYaml") or "").splitlines()
    recorded = []
    for i, line in enumerate(yaml):
        if re.match(r"^\s*baseline\w*:", line):
            recorded.append(line.strip())
            # A block (baselineChoice: name, version, library, reason) follows on indented lines.
            indent = len(line) - len(line.lstrip())
            for nxt in yaml[i + 1:i + 6]:
                if len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                recorded.append(nxt.strip())
    print("  recorded: %s" % ("; ".join(recorded) or "?"))
    print("  champion %s: score %.3fx over the campaign's baseline, memory floor %.4f" % (c["id"], c["score"],
          c["floorFractionGeomean"]))
    print("  %-12s %9s %9s %9s %7s" % ("shape", "time(us)", "base(us)", "speedup", "floor"))
    for s in c["shapes"]:
        print("  %-12s %9.1f %9.1f %8.2fx %7.2f" % (s["shape"], s["timeUs"], s["baselineUs"], s["speedup"],
                                                   s["floorFraction"]))
    reeval = os.path.join(out, "campaign", "campaign-cudnn-reeval-h100.txt")
    if os.path.exists(reeval):
        print("  reeval --top 3: " + " | ".join(open(reeval).read().strip().splitlines()[-4:]))
PY
}

case $stage in
  evals) evals; summary ;;
  campaign) campaign; summary ;;
  summary) summary ;;
  all) evals; campaign; summary ;;
  *) echo "usage: bench/cudnn-h100.sh evals|campaign|summary|all" >&2; exit 2 ;;
esac
