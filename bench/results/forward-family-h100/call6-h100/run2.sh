#!/usr/bin/env bash
# Stored as run (2026-11-28, H100), the kernel files and suites renamed to where this folder and call4-h100/ keep them.
set -uo pipefail
o=$OUT; export KEVO_UNPACK=/tmp/kb; source tools/unpack.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/gpu.txt
timeout 90 python3 bench/family.py --out $o/additive2.json \
  --job masked_softmax:fp32:bench/results/forward-family-h100/call4-h100/masked-default-fp32.cu:bench/results/forward-family-h100/call5-h100/additive.yaml --job masked_softmax:fp32:bench/results/forward-family-h100/call6-h100/masked-batched-fp32.cu:bench/results/forward-family-h100/call5-h100/additive.yaml \
  --job masked_softmax:bf16:bench/results/forward-family-h100/call4-h100/masked-default-bf16.cu:bench/results/forward-family-h100/call5-h100/additive.yaml --job masked_softmax:bf16:bench/results/forward-family-h100/call6-h100/masked-batched-bf16.cu:bench/results/forward-family-h100/call5-h100/additive.yaml > $o/additive2.txt 2>&1
grep -E '^\{' $o/additive2.txt | cut -c1-200
timeout 100 bash tools/gpu-tests.sh --details=tree --include-classname '.*MaskedSoftmaxGpuTest' > $o/masked.txt 2>&1
grep -A14 "Test run finished" $o/masked.txt | sed -n 10,14p; grep "=> " $o/masked.txt | head -5 | cut -c1-300
