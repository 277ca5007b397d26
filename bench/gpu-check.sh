#!/usr/bin/env bash
# GPU tests, the seeds on the standard suite, the evaluator's costs and the supervisor's memory, in one call on
# the GPU host (bundle and target/gpu-tests carried). Results land in ${OUT:-bench/results/run}.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results/run}; mkdir -p "$out"
source tools/unpack.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/gpu.txt"
echo "== gpu tests"; bash tools/gpu-tests.sh --details=tree > "$out/gpu-tests-h100.txt" 2>&1
grep -A4 -E "Failures \(|tests (successful|failed)" "$out/gpu-tests-h100.txt"
echo "== seeds, standard suite"; $KEVO eval seeds/*.cu --json "$out/seeds-h100.json" > "$out/seeds-h100.txt" 2>&1
grep -E "PASS|REJECTED" "$out/seeds-h100.txt"
echo "== evaluator costs"; python3 bench/evaluator_costs.py "$out/evaluator-costs-h100.json" 5 | tail -12
echo "== supervisor memory"; python3 bench/memory.py "$out/memory-h100.json" 500
