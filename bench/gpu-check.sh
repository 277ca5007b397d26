#!/usr/bin/env bash
# GPU tests and the evaluator's costs in one call on the GPU host (bundle and target/gpu-tests carried).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results/run}; mkdir -p "$out"
source bench/unpack.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/gpu.txt"
echo "== gpu tests"; bash bench/gpu-tests.sh --details=tree > "$out/gpu-tests.txt" 2>&1
grep -A4 -E "Failures \(|tests (successful|failed)" "$out/gpu-tests.txt"
echo "== evaluator costs"; python3 bench/evaluator_costs.py "$out/evaluator-costs-h100.json" 5
