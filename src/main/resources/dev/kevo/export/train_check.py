#!/usr/bin/env python3
"""Checks the exported @@FN@@ as training uses it: x.grad through @@FP@@_autograd (kevo's forward and its backward)
against torch's autograd in float64, on a loss that weighs each output (loss = sum(@@FN@@(x) * w), so dy = w); then
times one forward and backward step beside torch's own @@FN@@ in @@TORCH_DTYPE@@. The bound: each element within
@@ABS_TOL@@ of kevo's scale for the gradient (|dy| + weight(y) * sum over the row of |term|), plus twice what torch's own autograd
in @@TORCH_DTYPE@@ is off there, plus one rounding of dx to its type; the same in L2 over the shape. Run from this folder: python train_check.py (builds in place on first import: needs
ninja). Prints one line a shape and exits 1 if any is WRONG."""
import sys

import torch

from @@FP@@_autograd import @@FN@@ as kevo_@@FN@@
@@PY_HELPERS@@

def step(f, x, w):
    """One training step's work on x: the forward, a weighted sum, and the backward into x.grad."""
    x.grad = None
    (f(x, dim=-1) * w).sum().backward()
    return x.grad


wrong = 0
for rows, cols in [(1024, 1000), (4096, 4096), (32, 50257), (2048, 32000)]:
    x = (torch.randn(rows, cols, device="cuda") * 4).to(@@TORCH_DTYPE@@).requires_grad_()
    w = torch.randn(rows, cols, device="cuda").to(@@TORCH_DTYPE@@)  # the loss's weights: dy = w
    got = step(kevo_@@FN@@, x, w).double()
    x64 = x.detach().double().requires_grad_()
    step(torch.@@FN@@, x64, w.double())
    ref = x64.grad
    y = torch.@@FN@@(x.detach().double(), dim=-1).to(@@TORCH_DTYPE@@)  # y as kevo's forward stores it
    scale = gradient_scale(y, w)
    x_torch = x.detach().clone().requires_grad_()
    torch_err = (step(torch.@@FN@@, x_torch, w).double() - ref).abs()  # torch's own autograd, same dtype
    rounding = ref.abs() * @@REL_TOL@@  # one rounding of dx to its type (0 in float32)
    err = (got - ref).abs()
    bound = @@ABS_TOL@@ * scale + 2 * torch_err + rounding
    ok = bool((err <= bound).all()) and err.norm() <= @@ABS_TOL@@ * scale.norm() + 1.25 * torch_err.norm() + rounding.norm()
    wrong += not ok
    t_kevo = median_us(lambda: step(kevo_@@FN@@, x, w), rounds=50)
    t_torch = median_us(lambda: step(torch.@@FN@@, x, w), rounds=50)
    print(f"{rows}x{cols}: {'ok' if ok else 'WRONG'} (max error {(err / bound.clamp_min(1e-300)).max().item():.3g} of the bound, "
          f"{(err / scale.clamp_min(1e-300)).max().item():.3g} of the scale; torch's {(torch_err / scale.clamp_min(1e-300)).max().item():.3g}); "
          f"step {t_kevo:.1f} us, torch {t_torch:.1f} us ({t_torch / t_kevo:.2f}x)")
sys.exit(1 if wrong else 0)
