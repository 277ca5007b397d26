#!/bin/bash
# A 4.5-minute campaign in bf16 in / fp32 out on the LM-head suite, then its champion beside torch and Triton
source tools/unpack.sh
P=/opt/torch/.venv/bin/python
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/progress.txt; date -u >> $OUT/progress.txt
$KEVO evolve --lines --config probe4/bf32/campaign.yaml >> $OUT/progress.txt 2>&1
date -u >> $OUT/progress.txt
folder=$(ls -d mutations/bf16fp32-llm-* | head -1)
$KEVO show $folder > $OUT/show.txt 2>&1
$KEVO lineage $folder > $OUT/lineage.txt 2>&1
cp $folder/champion.cu $OUT/champion-bf16-fp32-llm.cu
$P bench/compare_torch.py --dtype bf16-fp32 --suite evaluator/suites/llm.yaml $OUT/compare.json $folder/champion.cu probe4/tw/champion-bf16-fp32-twin.cu > $OUT/compare.txt 2>&1
tar czf $OUT/folder.tar.gz $folder
date -u >> $OUT/progress.txt
