#!/usr/bin/env bash
# masked_softmax bf16's block kernels bounded to more blocks an SM: main's default render holds 54 registers in
# softmax_block_t256_n2 (softmax's holds 39), four 256-thread blocks an SM against six. ptxas (sm_90): bounded to 5,
# 48 registers and 4 bytes spilled; to 6, 40 registers and 56 bytes spilled.
# Usage: make_masked_variants.sh RENDER.cu OUTDIR   (RENDER: tools/RenderGenome.java default masked_softmax bf16 ...)
set -euo pipefail
src=${1:?RENDER.cu}; out=${2:?OUTDIR}; mkdir -p "$out"; base=$(basename "$src" .cu)
for k in 5 6; do
  sed -E "s/__launch_bounds__\(256\) softmax_block_t256_/__launch_bounds__(256, $k) softmax_block_t256_/" "$src" \
    > "$out/$base-lb$k.cu"
done
