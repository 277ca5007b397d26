#!/usr/bin/env bash
# Stored as run (2026-11-28, H100), the kernel files and suites renamed to where this folder and call4-h100/ keep them.
# One device call: BackwardGpuTest with the flush floor, then the additive-order probe (timing, then ncu).
set -uo pipefail
o=$OUT; export KEVO_UNPACK=/tmp/kb; source tools/unpack.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/gpu.txt
timeout 150 bash tools/gpu-tests.sh --details=tree --include-classname '.*BackwardGpuTest' > $o/backward.txt 2>&1
grep -A14 "Test run finished" $o/backward.txt | sed -n 12,14p; grep "=> " $o/backward.txt | head -5 | cut -c1-300
timeout 120 python3 bench/family.py --out $o/additive.json --job masked_softmax:fp32:bench/results/forward-family-h100/call4-h100/masked-default-fp32.cu:bench/results/forward-family-h100/call5-h100/additive.yaml --job masked_softmax:fp32:bench/results/forward-family-h100/call5-h100/masked-default-fp32-xorder.cu:bench/results/forward-family-h100/call5-h100/additive.yaml > $o/additive.txt 2>&1; tail -3 $o/additive.txt | cut -c1-300
m=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for f in bench/results/forward-family-h100/call4-h100/masked-default-fp32.cu bench/results/forward-family-h100/call5-h100/masked-default-fp32-xorder.cu; do
  timeout 100 ncu --clock-control none --kernel-name regex:softmax_block --launch-count 4 --metrics $m python3 bench/family.py --rounds 2 --out /tmp/n.json --job masked_softmax:fp32:$f:bench/results/forward-family-h100/call5-h100/additive-one.yaml > $o/ncu-$(basename $f .cu).txt 2>&1
  grep -E "softmax_block|dram__|lts__|gpu__time|warps" $o/ncu-$(basename $f .cu).txt | head -40
done
