#!/usr/bin/env bash
# The evaluator's evidence on a GPU host. Run from the repository root with the
# bundle and target/gpu-tests carried; results land in ${OUT:-bench/results/run}.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-bench/results/run}; mkdir -p "$out"
source tools/unpack.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/gpu.txt"
echo "== gpu tests"; bash tools/gpu-tests.sh --details=tree 2>&1 | tee "$out/gpu-tests.txt" | tail -40
echo "== seeds, standard suite"; $KEVO eval seeds/*.cu --json "$out/seeds-h100.json" 2>&1 | tee "$out/seeds-h100.txt" \
  | grep -E "PASS|REJECTED|^[a-z_]+\.cu"
echo "== cold vs warm"; $KEVO eval seeds/online.cu --suite seed004 --cold 2>&1 | tee "$out/cold.txt" | tail -8
echo "== evaluator costs"; python3 bench/evaluator_costs.py "$out/evaluator-costs-h100.json" 5
