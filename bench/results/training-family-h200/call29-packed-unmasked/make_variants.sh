#!/usr/bin/env bash
# Variants of the backward default renders for one family-jobs step: the block kernels of 512 threads bounded to 3
# and 4 blocks an SM (__launch_bounds__(512, k)), from renders of this branch's library (16-bit y and dy held packed).
# Usage: make_variants.sh RENDER.cu OUTDIR   (RENDER: tools/RenderGenome.java default OP bf16 RENDER.cu)
set -euo pipefail
src=${1:?RENDER.cu}; out=${2:?OUTDIR}; mkdir -p "$out"; base=$(basename "$src" .cu)
for k in 3 4; do
  sed -E "s/__launch_bounds__\(512\) grad_block_t512_/__launch_bounds__(512, $k) grad_block_t512_/" "$src" \
    > "$out/$base-lb$k.cu"
done
