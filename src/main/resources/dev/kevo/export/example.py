#!/usr/bin/env python3
"""Builds the exported kevo kernel with torch.utils.cpp_extension.load (needs ninja: pip install ninja; without it,
use setup.py) and checks it against torch.softmax. Run from this folder: python example.py"""
import os

import torch
from torch.utils.cpp_extension import load

here = os.path.dirname(os.path.abspath(__file__))
kevo_softmax = load(name="kevo_softmax", sources=[os.path.join(here, "kevo_softmax_torch.cpp"),
                                                  os.path.join(here, "kevo_softmax.cu")],
                    extra_cflags=["-O3"], extra_cuda_cflags=["-O3"], verbose=False)

for rows, cols in [(1024, 1000), (32, 50257), (1, 1000000)]:
    x = (torch.randn(rows, cols, device="cuda") * 4).to(@@PY_X@@)   # kevo dtype @@DTYPE@@
    y = kevo_softmax.softmax(x)           # on torch.cuda.current_stream(); y is @@PY_Y@@
    ref = torch.softmax(x.double(), dim=-1)
    err = (y.double() - ref).abs()
    ok = bool((err <= @@ABS_TOL@@ + @@REL_TOL@@ * ref.abs()).all()) and (err.norm() / ref.norm()).item() <= @@REL_L2@@
    print(f"{rows}x{cols}: {'ok' if ok else 'WRONG'} (max abs error {err.max().item():.3g})")
