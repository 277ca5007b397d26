#!/bin/bash
# The fifth bf16 campaign champion's genome rendered for fp16 and for bf16 in / fp32 out
source tools/unpack.sh
P=/opt/torch/.venv/bin/python
L=$OUT/twins.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $L; date -u >> $L
echo "## kevo eval --dtype fp16 champion-fp16-twin.cu" >> $L
$KEVO eval --dtype fp16 --json $OUT/eval-fp16.json probe4/tw/champion-fp16-twin.cu >> $L 2>&1
echo "## compare_torch.py --dtype fp16" >> $L
$P bench/compare_torch.py --dtype fp16 $OUT/compare-fp16.json probe4/tw/champion-fp16-twin.cu >> $L 2>&1
echo "## kevo eval --dtype bf16-fp32 --suite llm champion-bf16-fp32-twin.cu" >> $L
$KEVO eval --dtype bf16-fp32 --suite llm --json $OUT/eval-bf16-fp32-llm.json probe4/tw/champion-bf16-fp32-twin.cu >> $L 2>&1
echo "## compare_torch.py --dtype bf16-fp32 --suite evaluator/suites/llm.yaml" >> $L
$P bench/compare_torch.py --dtype bf16-fp32 --suite evaluator/suites/llm.yaml $OUT/compare-bf16-fp32-llm.json probe4/tw/champion-bf16-fp32-twin.cu >> $L 2>&1
date -u >> $L
