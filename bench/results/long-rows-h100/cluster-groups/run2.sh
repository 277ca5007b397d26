#!/bin/bash
source tools/unpack.sh
L=$OUT/log2.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $L; date -u >> $L
cd probe4
$KEVO eval --dtype bf16 --suite lm.yaml --json $OUT/lm-bf16-r2.json old-bf16.cu r2-g2.cu r2-g4.cu r2-g14.cu t512-g2.cu t512-g14.cu >> $L 2>&1
date -u >> $L
