#!/bin/bash
# The cluster regime capped at the block regime's end: standard suite and LM-head suite in bf16
source tools/unpack.sh
export KEVO_COMMIT=$1
P=/opt/torch/.venv/bin/python
$KEVO eval --dtype bf16 --json $OUT/standard-eval-bf16.json probe5/fifth.cu probe5/default-capped.cu > $OUT/standard-eval-bf16.txt 2>&1; echo "eval rc $?"
timeout 200 $P bench/compare_torch.py --dtype bf16 --suite evaluator/suites/llm.yaml $OUT/llm-capped-bf16-h100.json probe5/fifth.cu probe5/default-capped.cu bench/results/campaign-bf16-h100/champion-bf16-h100.cu probe5/sixth-capped.cu > $OUT/llm-capped-bf16-h100.txt 2>&1; echo "compare rc $?"
