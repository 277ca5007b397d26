#!/usr/bin/env python3
"""Builds the exported kevo kernel with torch.utils.cpp_extension.load (needs ninja: pip install ninja; without it,
use setup.py) and checks it against @@TORCH_REF@@ in float64. Run from this folder: python example.py"""
import os

import torch
from torch.utils.cpp_extension import load

here = os.path.dirname(os.path.abspath(__file__))
@@P@@ = load(
    name="@@P@@", sources=[os.path.join(here, "@@P@@_torch.cpp"), os.path.join(here, "@@P@@.cu")],
    extra_cflags=["-O3"], extra_cuda_cflags=["-O3"], verbose=False)
@@PY_HELPERS@@
for @@PY_LOOP@@:
    inputs = @@PY_INPUTS@@   # kevo dtype @@DTYPE@@
    out = @@P@@.@@FN@@(**inputs)  # on torch.cuda.current_stream(); @@PY_OUT@@
    ref = @@PY_REF@@
    err = (out.double() - ref).abs()@@PY_SCALE@@
    ok = bool((err <= @@PY_BOUND@@).all()) and (err.norm() / @@PY_L2_OF@@.norm()).item() <= @@REL_L2@@
    print(f"@@PY_SHAPE@@: {'ok' if ok else 'WRONG'} (max abs error {err.max().item():.3g})")
