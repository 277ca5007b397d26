#!/usr/bin/env bash
# Issue 44's measured model path on the GPU host: the answers a stand-in model wrote, without tools, to kevo's real
# prompts of one generation (bench/llm-rules/, captured by bench/llm-step.sh with CONFIG=bench/llm-rules.yaml) are
# judged by kevo eval on the standard suite; the passing ones then seed a campaign in which the built-in agent tunes
# them for MINUTES (bench/llm-knobs-tune.yaml: no model, no genomes of its own); the genome champions (the recorded
# fp32 campaign's and the shipped sample's) are judged in the same run, on the same GPU. Everything goes into
# $OUT/llm-rules.tgz.
# Usage on the GPU host: OUT=dir bash bench/llm-rules-h100.sh [MINUTES]   (default 3)
set -uo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-3}
out=/tmp/llm-rules; rm -rf "$out"; mkdir -p "$out/seeds-tune"
trap 'tar czf "${OUT:-.}/llm-rules.tgz" -C /tmp llm-rules' EXIT
source tools/unpack.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
echo "kevo $($KEVO --version), commit ${KEVO_COMMIT:-unknown}, $(date -u +%FT%TZ)" | tee -a "$out/gpu.txt"
$KEVO eval bench/llm-rules/answers/*.cu --seed 7 --json "$out/answers.json" > "$out/answers.txt" 2>&1
grep -E "^[a-z0-9_./-]+\.cu|PASS|REJECTED|score" "$out/answers.txt" | head -30
$KEVO eval bench/results/campaign-fp32-h100/champion-fp32-h100.cu mutations/sample-h100/g0021-i0-c2.cu --seed 7 \
  --json "$out/genome.json" > "$out/genome.txt" 2>&1
grep -E "PASS|REJECTED" "$out/genome.txt"
python3 - "$out" <<'PY'
import json, shutil, sys
out = sys.argv[1]
for r in json.load(open(out + "/answers.json"))["results"]:
    if r["verdict"] == "pass":
        shutil.copy(r["path"], out + "/seeds-tune/")
PY
ls "$out/seeds-tune"
sed -e "s|@OUT@|$out|" -e "s|@MINUTES@|$minutes|" -e "s|^name: llm-knobs-tune|name: llm-rules-tune|" \
  bench/llm-knobs-tune.yaml > "$out/tune.yaml"
$KEVO evolve --config "$out/tune.yaml" --lines > "$out/tune.txt" 2>&1
echo "tune exit $?"; tail -4 "$out/tune.txt"
dir=$(ls -d "$out"/mutations/llm-rules-tune-* 2>/dev/null | tail -1)
$KEVO show "$dir" > "$out/tune-show.txt" 2>&1; tail -30 "$out/tune-show.txt"
$KEVO lineage "$dir" > "$out/tune-lineage.txt" 2>&1
