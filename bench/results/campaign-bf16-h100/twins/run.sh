#!/bin/bash
# The sixth bf16 campaign's champion beside torch and Triton; its fp16 twin; the GPU and sanitizer tests.
# Ran from the repository root on the GPU host as probe5/run.sh, with probe5/ holding the campaign's run JSON, its
# champion and the twin (../champion-bf16-h100.cu, ../campaign-bf16-run.json, champion-fp16-twin.cu here).
source tools/unpack.sh
export KEVO_COMMIT=8952960
P=/opt/torch/.venv/bin/python
bash bench/campaign-dtype.sh compare $OUT bf16 probe5/campaign-bf16-run.json probe5/champion-bf16-h100.cu
L=$OUT/twins.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $L; date -u >> $L
echo "## kevo eval --dtype fp16 champion-fp16-twin.cu" >> $L
$KEVO eval --dtype fp16 --json $OUT/eval-fp16.json probe5/champion-fp16-twin.cu >> $L 2>&1
echo "## compare_torch.py --dtype fp16" >> $L
$P bench/compare_torch.py --dtype fp16 $OUT/compare-fp16.json probe5/champion-fp16-twin.cu >> $L 2>&1
date -u >> $L
bash tools/gpu-tests.sh > $OUT/gpu-tests.txt 2>&1; tail -25 $OUT/gpu-tests.txt
