#!/bin/bash
# probe: cluster_rows with exponentials taken per cp.async group as the share lands
source tools/unpack.sh
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $L
date -u >> $L
cd probe4
$KEVO eval --dtype bf16 --suite lm.yaml --json $OUT/lm-bf16.json old-bf16.cu bf16-g1.cu bf16-g2.cu bf16-g4.cu bf16-g12.cu >> $L 2>&1
date -u >> $L
$KEVO eval --suite lm.yaml --json $OUT/lm-fp32.json old-fp32.cu fp32-g1.cu fp32-g2.cu fp32-g4.cu fp32-g12.cu >> $L 2>&1
date -u >> $L
$KEVO eval --dtype bf16 --json $OUT/std-bf16.json old-bf16.cu bf16-g2.cu bf16-g4.cu >> $L 2>&1
date -u >> $L
